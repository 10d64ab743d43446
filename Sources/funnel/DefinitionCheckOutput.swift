import ArgumentParser
import Foundation
import FunnelModel
import Reports

/// What `flows check` and `sources check` print and how they exit: the checked files as text
/// (wrapped to 80 columns) or JSON, each unreadable file on standard error; exit 2 when a file
/// could not be read, 1 when any has an issue.
func printChecks(_ results: [some DefinitionFileCheck], single: Bool, format: OutputFormat, command: String) throws {
    if results.contains(where: \.isReadable) {
        switch format {
        case .text: print(Format.wrapLines(DefinitionCheckText.text(results, single: single)), terminator: "")
        case .json: print(DefinitionCheckText.json(results, single: single).jsonText)
        }
    }
    for r in results where !r.isReadable {
        for issue in r.issueRows { FileHandle.standardError.write(Data("funnel \(command): \(issue.message)\n".utf8)) }
    }
    if results.contains(where: { !$0.isReadable }) { throw ExitCode(2) }
    if results.contains(where: { !$0.issueRows.isEmpty }) { throw ExitCode(1) }
}
