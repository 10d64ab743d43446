import ArgumentParser
import Flows
import Foundation
import LogSources
import Simulator

struct SampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "Simulate users through a flow and write logs as a collector does.",
        usage: "funnel sample --flow <flow> --users <users> --out <out> [<options>]",
        discussion: """
        Writes DIR/events-YYYY-MM-DD.ndjson.gz, one multi-member gzip per UTC day, batches out \
        of order, about 1% re-sent duplicate lines and a few late events. The same flow, options \
        and seed give the same bytes; --files-per-day and --single-file pack the same lines \
        differently (docs/performance.md benches each layout).
        --as writes the same journeys as a vendor's export (a preset: posthog, segment, \
        rudderstack, amplitude, mixpanel; or a source definition file), in the files its \
        definition names (docs/sources.md).
        Example:
          funnel sample --flow trendy --users 500 --out trendy-logs
          funnel sample --flow trendy --users 500 --as segment --out trendy-segment
        """)

    @OptionGroup var flows: FlowsDirectoryOption
    @Option(help: "The flow id.") var flow: String
    @Option(help: "How many users.") var users: Int
    @Option(help: "The random seed.") var seed: UInt64 = 1
    @Option(help: "Users start over this many days.") var days: Int = 7
    @Option(help: "The first day, YYYY-MM-DD.") var start: String = "2026-10-01"
    @Option(help: "The output directory (created if missing).") var out: String
    @Option(name: .customLong("first-user"),
            help: "The number in the first user's id (u-000001 for 1); give the number after an earlier run's last user to simulate new users.")
    var firstUser: Int = 1
    @Option(name: .customLong("compression-level"), help: "zlib level 1-9.") var compressionLevel: Int32 = 6
    @Option(name: .customLong("ids"), help: "Event ids: hex (16 digits) or uuid.") var ids: SimulationOptions.EventIDStyle = .hex
    @Option(name: .customLong("files-per-day"), help: "Split each day's users over N files.") var filesPerDay: Int = 1
    @Flag(name: .customLong("single-file"), help: "All lines in one single-member gzip file, events.ndjson.gz.")
    var singleFile = false
    @Flag(help: "Write into --out even when it already holds logs (files of the same names are replaced).")
    var force = false
    @Option(name: .customLong("as"), help: "Write the lines as a vendor's export: a source preset or a source definition file.")
    var vendor: String?
    @Flag(help: "Users also stray: jump ahead, view steps off their path, resume days later on an earlier step (docs/paths.md).")
    var wander = false

    /// The values the simulation does not check itself in range (a bad value exits 2, as
    /// everywhere; `funnel help`).
    func check() throws {
        guard users >= 1 else { throw CLIError("--users must be at least 1") }
        guard (1...9).contains(compressionLevel) else { throw CLIError("--compression-level must be 1-9") }
        guard (1...100).contains(filesPerDay) else { throw CLIError("--files-per-day must be 1-100") }
        guard !(singleFile && filesPerDay > 1) else { throw CLIError("--single-file and --files-per-day exclude each other") }
        guard !(vendor != nil && filesPerDay > 1) else { throw CLIError("--as and --files-per-day exclude each other: the source names its files") }
    }

    func run() throws {
        try reportingErrors("sample") {
            try check()
            let definition = try flows.catalog().flow(flow)
            let source = try vendor.map { name throws(SourceLoadError) in try SourcePresets.resolve(name) }
            try checkOutFolder(writing: source?.exportFiles.fileExtension ?? CollectorWriter.nativeFileExtension)
            let options = SimulationOptions(users: users, seed: seed, days: days, startDay: start, firstUser: firstUser, eventIDs: ids,
                                            wander: wander)
            let simulation = try Simulation(flow: definition, options: options)
            try createFolder(out)
            // The lines wait in a spool in the output folder (it has no name, so nothing is left
            // behind), then the collector reads them back batch by batch.
            let bar = ProgressBar.onTerminal()
            let spooled = try simulation.spool(in: out, progress: bar.map { b in { (done: Int) in b.update(done: done, of: users, "users simulated") } })
            var writer = CollectorWriter(seed: seed)
            writer.compressionLevel = compressionLevel
            writer.layout = singleFile ? .single : filesPerDay > 1 ? .split(filesPerDay) : source?.collectorLayout ?? .daily
            let progress = bar.map { b in { (done: Int, total: Int) in b.update(done: done, of: total, "lines written") } }
            let summary: CollectorSummary
            if let source {
                writer.fileExtension = source.exportFiles.fileExtension
                summary = try writer.write(VendorLines(spooled.lines, as: source), to: out, progress: progress)
            } else {
                summary = try writer.write(spooled.lines, to: out, progress: progress)
            }
            bar?.clear()
            print("\(definition.id): \(users) users, \(spooled.started) started, \(spooled.completed) completed")
            print("\(summary.events) events, \(summary.lines) lines (\(summary.duplicates) re-sent, \(summary.late) late), \(summary.members) gzip members")
            print("\(summary.files.count) files in \(out)")
        }
    }

    /// The output folder and its parents, made when missing (`mkdir -p`); what is in the way
    /// said in words.
    private func createFolder(_ path: String) throws {
        if mkdir(path, 0o755) == 0 { return }
        var reason = errno
        if reason == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            if !parent.isEmpty, parent != path {
                try createFolder(parent)
                if mkdir(path, 0o755) == 0 { return }
                reason = errno
            }
        }
        if reason == EEXIST {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
            throw CLIError("cannot write the logs to \(path): it is a file, not a folder")
        }
        throw CLIError("cannot create the folder \(path): \(String(cString: strerror(reason)))")
    }
}

extension SimulationOptions.EventIDStyle: ExpressibleByArgument {}
