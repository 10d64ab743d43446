import ArgumentParser
import EventStore
import Foundation
import FunnelModel
import Projections
import Reports
import Journeys

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay one user's journey event by event, with why the report counts it as it does.",
        usage: "funnel replay --user <user> [<options>]",
        discussion: """
            Examples:
              funnel replay --user u-000006
              funnel replay --user u-000006 --at 2026-10-03T12:00:00Z --format json
            Colour on a terminal; off when piped or with NO_COLOR set.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption
    @Option(help: "The user id.") var user: String
    @Option(help: "Only this flow (default: every flow the user has events in).") var flow: String?
    @Option(help: "Show the journey and verdict as of this time (RFC 3339 or YYYY-MM-DD).") var at: String?
    @Option(help: "Idle window (default 24h).") var idle: String?
    @Option(help: "text or json.") var format: OutputFormat = .text

    func run() throws {
        try reportingErrors("replay") {
            let catalog = try flows.catalog()
            let atTime = try at.map { try Inputs.time($0, option: "--at") }
            let idleSeconds = try idle.map { try Inputs.duration($0) } ?? Journey.defaultIdleSeconds
            let store = try storeOptions.openExisting(command: "replay").log
            if let flow, !catalog.all.contains(where: { $0.id == flow }), try !store.flows().contains(flow) {
                let known = Set(catalog.all.map(\.id)).union(try store.flows()).sorted()
                throw CLIError("unknown flow \"\(flow)\"; known flows: \(known.joined(separator: ", "))")
            }
            var events = try store.events(user: user, flow: flow)
            guard !events.isEmpty else { throw try CLIError.unknownUser(user, flow: flow, in: store) }
            let asOf: Timestamp
            if let atTime {
                asOf = atTime
            } else if let latest = try store.defaultAsOf(now: now()) {
                asOf = latest
            } else {
                throw CLIError("the store holds no events")
            }
            events = try startedBy(asOf, events)
            let copies = try store.duplicates(ofEventIDs: events.map(\.event.id)).mapValues { list in
                list.map { "\($0.inputPath) line \($0.line) (ingested \($0.arrivedAt))" }
            }
            let flowsOfUser = Array(Set(events.map(\.event.flow))).sorted()
            var replays: [Replay] = []
            for f in flowsOfUser {
                let definition = catalog.all.first { $0.id == f }
                if let r = Replay.build(events: events.filter { $0.event.flow == f }, definition: definition,
                                        asOf: asOf, idleSeconds: idleSeconds, duplicates: copies) {
                    replays.append(r)
                }
            }
            switch format {
            case .json:
                if replays.count == 1, let only = replays.first {
                    print(try only.json(), terminator: "")
                } else {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                    print(String(decoding: try encoder.encode(replays), as: UTF8.self))
                }
            case .text:
                let colour = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
                print(replays.map { $0.text(palette: Palette(enabled: colour)) }.joined(separator: "\n"), terminator: "")
            }
        }
    }

    /// The events of the flows the user had started by `asOf`: a flow begun later is left
    /// out with a note, and when every one is, that is the answer (exit 2).
    private func startedBy(_ asOf: Timestamp, _ events: [RecordedEvent]) throws -> [RecordedEvent] {
        var first: [String: Timestamp] = [:]
        for e in events { first[e.event.flow] = min(first[e.event.flow] ?? e.event.time, e.event.time) }
        let later = first.filter { $0.value > asOf }.sorted { $0.key < $1.key }
        if later.count == first.count, let earliest = later.map(\.value).min() {
            throw CLIError("user \(user) had not started yet at \(asOf)" + (flow.map { " in flow \($0)" } ?? "")
                           + ": the first event is at \(earliest)")
        }
        for (f, t) in later {
            FileHandle.standardError.write(Data("funnel replay: note: user \(user) had not started flow \(f) yet at \(asOf) (first event at \(t))\n".utf8))
        }
        let left = Set(later.map(\.key))
        return left.isEmpty ? events : events.filter { !left.contains($0.event.flow) }
    }
}
