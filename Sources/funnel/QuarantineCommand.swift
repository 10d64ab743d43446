import ArgumentParser
import EventStore
import FunnelModel
import Reports

struct QuarantineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarantine",
        abstract: "List the lines ingest rejected, with file, line, byte offset and reason.")

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Output format: text or json.") var format: OutputFormat = .text

    func run() throws {
        let entries = try reportingErrors("quarantine") { try storeOptions.openExisting(command: "quarantine").log.quarantine() }
        switch format {
        case .json:
            print(JSONValue.object(["count": .number(String(entries.count)), "lines": .array(entries.map(\.json))]).jsonText)
        case .text:
            print(QuarantineText.render(entries), terminator: "")
        }
    }
}
