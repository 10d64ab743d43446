import ArgumentParser
import Foundation
import FunnelModel
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
            let request = ReplayRequest(user: user, flow: flow, at: atTime, idleSeconds: idleSeconds)
            let replays = try request.run(log: store, definitions: catalog.all, now: now())
            for note in replays.notes {
                FileHandle.standardError.write(Data("funnel replay: note: \(note)\n".utf8))
            }
            switch format {
            case .json:
                print(try replays.json(), terminator: "")
            case .text:
                let colour = isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
                print(replays.text(palette: Palette(enabled: colour)), terminator: "")
            }
        }
    }
}
