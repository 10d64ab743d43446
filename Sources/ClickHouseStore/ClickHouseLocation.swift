import Foundation

/// One ClickHouse server's HTTP interface.
public struct ClickHouseServer: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }

    /// Whether the host names this machine (localhost, 127.0.0.0/8, ::1).
    public var isLoopback: Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "::1" || h == "[::1]" || h.hasPrefix("127.")
    }
}

/// Where a ClickHouse store lives, from
/// `clickhouse://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT…]/DATABASE[?cluster=NAME][&compress=gzip|none]`:
/// one server, or every shard of the cluster `NAME` in the order of the servers' `remote_servers`.
/// Its description never shows the password.
public struct ClickHouseLocation: Sendable, Hashable, CustomStringConvertible {
    public var user: String?
    public var password: String?
    public var servers: [ClickHouseServer]
    public var database: String
    public var cluster: String?
    /// Whether inserts go gzip-compressed; nil: to a server on another machine only.
    public var compress: Bool?

    public static let scheme = "clickhouse://"
    /// The HTTP port when a server names none.
    public static let defaultPort = 8123

    /// Whether `store` names a ClickHouse store rather than a SQLite file.
    public static func names(_ store: String) -> Bool { store.hasPrefix(scheme) }

    public init(servers: [ClickHouseServer], database: String, cluster: String? = nil,
                user: String? = nil, password: String? = nil) {
        self.servers = servers
        self.database = database
        self.cluster = cluster
        self.user = user
        self.password = password
    }

    public init(_ text: String) throws {
        func fail(_ reason: String) -> ClickHouseError {
            // The text may hold a password: the error shows the redacted form only.
            ClickHouseError(server: nil, doing: "reading the store address \(ClickHouseLocation.redacted(text))",
                            reason: reason + " (expected clickhouse://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT…]/DATABASE[?cluster=NAME][&compress=gzip|none])",
                            kind: .address)
        }
        guard text.hasPrefix(Self.scheme) else { throw fail("it does not start with \(Self.scheme)") }
        var rest = Substring(text.dropFirst(Self.scheme.count))
        var query: Substring = ""
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        guard let slash = rest.firstIndex(of: "/") else { throw fail("no /DATABASE") }
        var authority = rest[..<slash]
        let database = String(rest[rest.index(after: slash)...])
        guard Self.isName(database) else { throw fail("the database name \"\(database)\" is not letters, digits and _") }
        if let at = authority.lastIndex(of: "@") {
            let info = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = info.firstIndex(of: ":") {
                user = Self.decoded(info[..<colon])
                password = Self.decoded(info[info.index(after: colon)...])
            } else {
                user = Self.decoded(info)
            }
            if user?.isEmpty == true { throw fail("an empty user name") }
        }
        var servers: [ClickHouseServer] = []
        for part in authority.split(separator: ",", omittingEmptySubsequences: false) {
            let hostPort = part.split(separator: ":", omittingEmptySubsequences: false)
            guard let host = hostPort.first, !host.isEmpty, hostPort.count <= 2 else { throw fail("a server \"\(part)\" is not HOST:PORT") }
            var port = Self.defaultPort
            if hostPort.count == 2 {
                guard let p = Int(hostPort[1]), (1...65_535).contains(p) else { throw fail("the port of \"\(part)\" is not a number from 1 to 65535") }
                port = p
            }
            servers.append(ClickHouseServer(host: String(host), port: port))
        }
        guard !servers.isEmpty else { throw fail("no server") }
        guard Set(servers).count == servers.count else { throw fail("a server is listed twice") }
        self.servers = servers
        self.database = database
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2 else { throw fail("the parameter \"\(pair)\" is not NAME=VALUE") }
            switch kv[0] {
            case "cluster":
                let name = String(kv[1])
                guard Self.isName(name) else { throw fail("the cluster name \"\(name)\" is not letters, digits and _") }
                cluster = name
            case "compress":
                guard kv[1] == "gzip" || kv[1] == "none" else { throw fail("compress is gzip or none, not \"\(kv[1])\"") }
                compress = kv[1] == "gzip"
            default:
                throw fail("unknown parameter \"\(kv[0])\" (cluster=NAME or compress=gzip|none)")
            }
        }
        if cluster == nil && servers.count > 1 { throw fail("several servers need ?cluster=NAME (the cluster they are the shards of)") }
    }

    /// The address as given, with the password replaced by `***`.
    public var description: String {
        var s = Self.scheme
        if let user {
            s += user
            if password != nil { s += ":***" }
            s += "@"
        }
        s += servers.map(\.description).joined(separator: ",") + "/" + database
        var parameters: [String] = []
        if let cluster { parameters.append("cluster=" + cluster) }
        if let compress { parameters.append("compress=" + (compress ? "gzip" : "none")) }
        if !parameters.isEmpty { s += "?" + parameters.joined(separator: "&") }
        return s
    }

    /// `text` with anything between `://` and `@` after its first `:` replaced by `***`.
    static func redacted(_ text: String) -> String {
        guard let start = text.range(of: "://"), let at = text[start.upperBound...].firstIndex(of: "@"),
              let colon = text[start.upperBound..<at].firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }

    static func isName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 95 }
    }

    private static func decoded(_ s: Substring) -> String {
        String(s).removingPercentEncoding ?? String(s)
    }
}
