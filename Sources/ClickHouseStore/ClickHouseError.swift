/// A ClickHouse failure: which server (when one), what funnel was doing, and why. It never
/// holds a password (requests carry it in a header, not in their text).
public struct ClickHouseError: Error, Sendable, CustomStringConvertible {
    /// The kinds of ClickHouse failure a caller can act on differently.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A failure of no other kind (the default).
        case failed
        /// The server did not answer (down, unreachable, timed out).
        case unreachable
        /// The server refused the user or password.
        case refused
        /// The server answered with an error (an exception in the query, a server fault).
        case server
        /// The server's answer is not what funnel expects of it.
        case reply
        /// The store address does not parse.
        case address
    }

    public var kind: Kind
    public var server: ClickHouseServer?
    public var doing: String
    public var reason: String
    /// The start of the query that failed, when one did.
    public var query: String?

    public init(server: ClickHouseServer?, doing: String, reason: String, query: String? = nil, kind: Kind = .failed) {
        self.kind = kind
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
