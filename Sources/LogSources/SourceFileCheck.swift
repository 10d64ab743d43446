import Foundation
import FunnelModel

/// One source definition file checked: the definition when it is sound, and every issue. A
/// file that cannot be read has one issue, of kind `unreadable`.
public struct SourceFileCheck: Sendable, Hashable, DefinitionFileCheck {
    public var file: String
    public var definition: SourceDefinition?
    public var issues: [SourceIssue]

    public var isReadable: Bool { !issues.contains { $0.kind == .unreadable } }

    public var issueRows: [DefinitionCheckText.Row] {
        issues.map(\.row)
    }
}

extension SourceChecker {
    /// Checks one definition file.
    public static func checkFile(_ path: String) -> SourceFileCheck {
        guard let data = FileManager.default.contents(atPath: path) else {
            return SourceFileCheck(file: path, definition: nil,
                                   issues: [SourceIssue(.unreadable, "$", "cannot read \(path): \(FileProblem.reason(path))")])
        }
        let (definition, issues) = read(Array(data))
        return SourceFileCheck(file: path, definition: definition, issues: issues)
    }
}

extension SourcePresets {
    /// A preset by name, or else a definition file: what `--as` (and later `--source`) takes.
    public static func resolve(_ nameOrFile: String) throws(SourceLoadError) -> SourceDefinition {
        if let preset = named(nameOrFile) { return preset }
        let check = SourceChecker.checkFile(nameOrFile)
        guard let definition = check.definition else {
            if check.issues.first?.kind == .unreadable, !nameOrFile.contains("/"), !nameOrFile.hasSuffix(".json") {
                let names = all.map(\.name).joined(separator: ", ")
                throw SourceLoadError(file: nameOrFile, issues: [SourceIssue(.unreadable, "$", "no source preset \"\(nameOrFile)\" (\(names)) and no such file")])
            }
            throw SourceLoadError(file: nameOrFile, issues: check.issues)
        }
        return definition
    }
}
