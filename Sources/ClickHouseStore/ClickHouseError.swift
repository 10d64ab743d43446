/// A ClickHouse failure: which server (when one), what funnel was doing, and why. It never
/// holds a password (requests carry it in a header, not in their text).
public struct ClickHouseError: Error, Sendable, CustomStringConvertible {
    public var server: ClickHouseServer?
    public var doing: String
    public var reason: String
    /// The start of the query that failed, when one did.
    public var query: String?

    public init(server: ClickHouseServer?, doing: String, reason: String, query: String? = nil) {
        self.server = server
        self.doing = doing
        self.reason = reason
        self.query = query
    }

    public var description: String {
        var s = "clickhouse"
        if let server { s += " \(server)" }
        s += ": while \(doing): \(reason)"
        if let query { s += " (query: \(query))" }
        return s
    }
}
