import ArgumentParser
import LogFiles
import EventStore
import Foundation
import FunnelModel
import Projections
import Journeys
import Reports
import StoreCore
import LogSources

/// The one way the CLI ingests (`funnel ingest`, and `funnel report` given logs): with the
/// flow definitions, so unplanned events are counted, and with the projection updater, so
/// journeys commit with their events.
enum IngestRun {
    static func run(_ sources: [InputSource], store: OpenedStore, definitions: [FlowDefinition],
                    strict: Bool, source: SourceMapping? = nil, command: String = "ingest") throws -> IngestSummary {
        let options = IngestOptions(strict: strict, flows: definitions, source: source)
        let bar = ProgressBar.onTerminal()
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
            throw ExitCode(ExitStatus.of(error))
        }
    }
}

extension IngestRun {
    /// The inputs of `arguments` (`InputSource.discover`), saying on standard error what a
    /// directory held besides logs and which directory held none.
    /// `source`: the inputs are its export files (`SourceDefinition.exportFiles`).
    static func discover(_ arguments: [String], source: SourceDefinition? = nil, command: String) throws -> [InputSource] {
        var skipped = InputSource.Skipped()
        let extensions = source?.inputExtensions ?? InputSource.logExtensions
        let sources = try InputSource.discover(arguments, extensions: extensions, skipped: &skipped)
        let kinds = extensions.joined(separator: ", ")
        for folder in skipped.emptyDirectories {
            FileHandle.standardError.write(Data((Format.wrapLines("funnel \(command): warning: \(folder) holds no logs (\(kinds)); nothing read from it") + "\n").utf8))
        }
        if !skipped.files.isEmpty {
            let shown = skipped.files.prefix(Tuning.skippedFilesShown).joined(separator: ", ")
            let more = skipped.files.count > Tuning.skippedFilesShown ? " and \(skipped.files.count - Tuning.skippedFilesShown) more" : ""
            let count = skipped.files.count == 1 ? "1 file" : "\(skipped.files.count) files"
            FileHandle.standardError.write(Data((Format.wrapLines("funnel \(command): note: left out \(count) not named as logs (\(kinds)): \(shown)\(more); give a file by name to read it") + "\n").utf8))
        }
        if !skipped.entries.isEmpty {
            let shown = skipped.entries.prefix(Tuning.skippedFilesShown).joined(separator: ", ")
            let more = skipped.entries.count > Tuning.skippedFilesShown ? " and \(skipped.entries.count - Tuning.skippedFilesShown) more" : ""
            let count = skipped.entries.count == 1 ? "1 zip entry" : "\(skipped.entries.count) zip entries"
            FileHandle.standardError.write(Data((Format.wrapLines("funnel \(command): warning: left out \(count) not named as logs (\(extensions.filter { $0 != ".zip" }.joined(separator: ", "))): \(TerminalText.escape(shown))\(more); unzip the archive and give a file by name to read it") + "\n").utf8))
        }
        return sources
    }
}

struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Ingest gzip NDJSON onboarding logs into the event store.",
        usage: "funnel ingest [<options>] <inputs> ...",
        discussion: """
            INPUT: .ndjson/.jsonl files (plain, gzip or zstd, told by their first bytes), \
            directories (recursively, in name order), zip archives (their log entries, in name \
            order, each as ARCHIVE:ENTRY) or - for standard input. xz, bzip2, zlib and lz4 \
            data are refused by name, with nothing stored. Exit status: 0 when every \
            line is accounted for, 1 with --strict when a line was quarantined, 2 when an input \
            is unreadable, refused or partial.
            Examples:
              funnel ingest sample-data/glp1
              funnel ingest --store edge.sqlite sample-data/edge
              zcat sample-data/trendy/*.gz | funnel ingest --store trendy.sqlite -
              funnel ingest --store ph.sqlite --source posthog sample-data/sources/posthog
            With --source, the inputs are a vendor's export read through the source (a preset \
            or a source definition file; docs/sources.md): a directory gives the source's \
            export files, and --flow names the flow of events whose line has none.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption
    @OptionGroup var wait: WaitOption
    @Option(help: "Output format: text or json.") var format: OutputFormat = .text
    @Flag(help: "Exit 1 when any line was quarantined.") var strict = false
    @Option(help: "Read a vendor's export: a source preset (posthog, segment, rudderstack, amplitude, mixpanel) or a source definition file (docs/sources.md).")
    var source: String?
    @Option(help: "With --source: the flow of events whose line names none.") var flow: String?
    @Argument(help: "Files, directories or - for standard input.") var inputs: [String]

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one INPUT (a file, a directory or -)") }
        if flow != nil, source == nil { throw ValidationError("--flow names the flow of a vendor's events: give it with --source") }
        if let flow, flow.isEmpty { throw ValidationError("--flow needs a flow id") }
    }

    func run() throws {
        let definition = try reportingErrors("ingest") { try source.map { name throws(SourceLoadError) in try SourcePresets.resolve(name) } }
        let mapping = definition.map { SourceMapping($0, defaultFlow: flow) }
        let sources = try reportingErrors("ingest") { try IngestRun.discover(inputs, source: definition, command: "ingest") }
        let (store, lock) = try reportingErrors("ingest") { try storeOptions.openForWriting(wait, command: "ingest") }
        let summary = try withExtendedLifetime(lock) {
            try IngestRun.run(sources, store: store, definitions: try flows.catalog().all, strict: strict, source: mapping)
        }
        switch format {
        case .json: print(summary.json.jsonText)
        case .text: print(Format.wrapLines(summary.text(store: storeOptions.name)))
        }
        let code = summary.exitCode(strict: strict)
        if code != 0 { throw ExitCode(code) }
    }
}
