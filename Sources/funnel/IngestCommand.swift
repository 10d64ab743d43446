import ArgumentParser
import EventLog
import EventStore
import Foundation
import FunnelModel
import Projections
import Reports

/// The one way the CLI ingests (`funnel ingest`, and `funnel report` given logs): with the
/// flow definitions, so unplanned events are counted, and with the projection updater, so
/// journeys commit with their events.
enum IngestRun {
    static func run(_ sources: [InputSource], store: OpenedStore, definitions: [FlowDefinition],
                    strict: Bool, command: String = "ingest") throws -> IngestSummary {
        let options = IngestOptions(strict: strict, flows: definitions)
        let bar = isatty(2) == 1 ? ProgressBar() : nil
        defer { bar?.clear() }
        do {
            let summary = try store.ingest(sources, options: options, progress: bar.map { b in { b.update($0) } })
            bar?.clear()
            for failure in summary.failures {
                FileHandle.standardError.write(Data("funnel \(command): \(TerminalText.escape(failure.text))\n".utf8))
            }
            return summary
        } catch {
            bar?.clear()
            FileHandle.standardError.write(Data("funnel \(command): \(TerminalText.escapeLines("\(error)"))\n".utf8))
            throw ExitCode(2)
        }
    }
}

struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Ingest gzip NDJSON onboarding logs into the event store.",
        usage: "funnel ingest [<options>] <inputs> ...",
        discussion: """
            INPUT: .ndjson/.jsonl files (plain, gzip or zstd, told by their first bytes), \
            directories (recursively, in name order) or - for standard input. xz, bzip2, zlib, \
            lz4 and zip data are refused by name, with nothing stored. Exit status: 0 when every \
            line is accounted for, 1 with --strict when a line was quarantined, 2 when an input \
            is unreadable, refused or partial.
            Examples:
              funnel ingest sample-data/glp1
              funnel ingest --store edge.sqlite sample-data/edge
              zcat sample-data/trendy/*.gz | funnel ingest --store trendy.sqlite -
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption
    @OptionGroup var wait: WaitOption
    @Option(help: "Output format: text or json.") var format: OutputFormat = .text
    @Flag(help: "Exit 1 when any line was quarantined.") var strict = false
    @Argument(help: "Files, directories or - for standard input.") var inputs: [String]

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one INPUT (a file, a directory or -)") }
    }

    func run() throws {
        let sources: [InputSource]
        do {
            sources = try InputSource.discover(inputs)
        } catch {
            FileHandle.standardError.write(Data("funnel ingest: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let (store, lock) = try reportingErrors("ingest") { try storeOptions.openForIngest(wait, command: "ingest") }
        let summary = try withExtendedLifetime(lock) {
            try IngestRun.run(sources, store: store, definitions: try flows.catalog().all, strict: strict)
        }
        switch format {
        case .json: print(summary.json.jsonText)
        case .text: print(Format.wrapLines(summary.text(store: storeOptions.name)))
        }
        let code = summary.exitCode(strict: strict)
        if code != 0 { throw ExitCode(code) }
    }
}

/// A one-line progress bar on standard error (only used when it is a terminal).
final class ProgressBar {
    private var last = 0.0

    func update(_ p: IngestProgress) {
        let now = Date().timeIntervalSince1970
        guard now - last >= 0.1 else { return }
        last = now
        let fraction = p.size > 0 ? min(1, Double(p.bytesRead) / Double(p.size)) : 0
        let width = 24
        let filled = Int(fraction * Double(width))
        let name = (p.path as NSString).lastPathComponent
        let text = String(format: "\r[%@%@] %3d%% %d/%d %@ %d lines", String(repeating: "#", count: filled),
                          String(repeating: " ", count: width - filled), Int(fraction * 100), p.inputIndex + 1,
                          p.inputCount, TerminalText.fit(name, width: 24), p.lines)
        FileHandle.standardError.write(Data((text.padding(toLength: 79, withPad: " ", startingAt: 0)).utf8))
    }

    func clear() {
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: 79) + "\r").utf8))
    }
}
