import ArgumentParser
import EventStore
import FunnelModel

struct QuarantineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quarantine",
        abstract: "List the lines ingest rejected, with file, line, byte offset and reason.")

    @OptionGroup var storeOptions: StoreOptions
    @Option(help: "Output format: text or json.") var format: OutputFormat = .text

    func run() throws {
        let entries = try storeOptions.open().quarantine()
        switch format {
        case .json:
            print(JSONValue.object(["count": .number(String(entries.count)), "lines": .array(entries.map(\.json))]).jsonText)
        case .text:
            if entries.isEmpty { print("no quarantined lines"); return }
            for e in entries {
                print("\(e.inputPath):\(e.line) (byte \(e.byteOffset)): \(e.reason) [\(e.code.rawValue)]")
                print("    " + e.preview(limit: 72))
            }
            print("\(entries.count) quarantined line\(entries.count == 1 ? "" : "s")")
        }
    }
}
