import FunnelModel
import EventLog

/// A store failure, saying what the store was doing.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var doing: String
    public var reason: String

    public init(doing: String, reason: String) {
        self.doing = doing
        self.reason = reason
    }

    public var description: String { "store: while \(doing): \(reason)" }
}
