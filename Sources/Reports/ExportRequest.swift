import LogFiles
import StoreCore

/// Everything `funnel export` needs: which events. The lines come from any log's
/// `forEachLine`, so every store exports the same bytes.
public struct ExportRequest: Sendable {
    public var selection: EventSelection

    public init(selection: EventSelection) {
        self.selection = selection
    }

    /// A flow or user the log does not have is a `RequestError`, not an empty export.
    public func check(log: any EventLogReading) throws {
        if let flow = selection.flow {
            let flows = try log.flows()
            guard flows.contains(flow) else {
                throw RequestError("no events in flow \"\(flow)\"; the store has: " + (flows.isEmpty ? "no events" : flows.joined(separator: ", ")))
            }
        }
        if let user = selection.user, try log.events(user: user, flow: selection.flow).isEmpty {
            throw try RequestError.unknownUser(user, flow: selection.flow, in: log)
        }
    }

    /// Writes each selected line to `writer` (which the caller finishes), telling `written`
    /// how many so far after each; returns how many.
    public func run(log: any EventLogReading, to writer: LineWriter, written: ((Int) -> Void)? = nil) throws -> Int {
        var count = 0
        try log.forEachLine(selection) { line in
            try writer.write(line)
            count += 1
            written?(count)
        }
        return count
    }
}
