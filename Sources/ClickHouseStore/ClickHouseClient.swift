import AsyncHTTPClient
import LogFiles
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOPosix

/// One server's HTTP interface, through async-http-client: a query's whole answer, or an
/// insert's rows sent as one body. The server answers only once the query has ended
/// (`wait_end_of_query`), so a failure is never a status 200 with an error at the end.
/// Reads are tried again when the server cannot be reached or refuses the request before any
/// query runs; inserts only when it refused them before any query ran (nothing was stored).
public final class ClickHouseClient: Sendable {
    public let server: ClickHouseServer
    public let database: String
    /// Whether large insert bodies go gzip-compressed.
    public let compress: Bool
    private let authorization: String?

    /// The process's one HTTP client, shared by every server's requests (its pool keeps a few
    /// connections per server); it lives as long as the process, so it is never shut down.
    private static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: amount(Tuning.connectTimeout), read: amount(Tuning.requestTimeout))
        configuration.connectionPool = .init(idleTimeout: amount(Tuning.idleConnectionTimeout))
        // A refused connection fails the request at once; `read` decides whether to try again.
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The longest a whole request may take, its upload included (the read timeout only
    /// starts once the body is sent).
    private static let requestDeadline = amount(Tuning.requestTimeout * 12)

    /// `compress`: whether large inserts go gzip-compressed (nil: unless the server is on this machine).
    public init(server: ClickHouseServer, database: String, user: String?, password: String?, compress: Bool? = nil) {
        self.server = server
        self.database = database
        self.compress = compress ?? !server.isLoopback
        if let user {
            authorization = "Basic " + Data("\(user):\(password ?? "")".utf8).base64EncodedString()
        } else {
            authorization = nil
        }
    }

    /// A table sent with a query (ClickHouse's external data): the query reads it by `name`,
    /// e.g. `WHERE event_id IN ids`, and the server parses it as data, not as SQL.
    public struct ExternalTable: Sendable {
        public var name: String
        /// Its columns, as `event_id String`.
        public var structure: String
        /// Its rows as TabSeparated (`ClickHouseSQL.tsv` escapes a field).
        public var rows: Data

        public init(name: String, structure: String, rows: Data) {
            self.name = name
            self.structure = structure
            self.rows = rows
        }
    }

    /// Runs a query that reads (tried again when the server cannot be reached or refuses the
    /// request before the query runs) and returns its answer's bytes.
    @discardableResult
    public func read(_ sql: String, doing: String, settings: [String: String] = [:], external: ExternalTable? = nil,
                     useDatabase: Bool = true) throws -> Data {
        var settings = settings
        var body: Body?
        if let external {
            settings[external.name + "_structure"] = external.structure
            settings[external.name + "_format"] = "TabSeparated"
            body = Body.multipart(external)
        }
        var delay = Tuning.retryDelay
        for attempt in 1... {
            do {
                return try send(sql: sql, body: body, doing: doing, settings: settings, useDatabase: useDatabase)
            } catch is Unreachable where attempt < Tuning.readAttempts {
                Thread.sleep(forTimeInterval: delay)
                delay *= 2
            } catch let e as Unreachable {
                throw e.error
            }
        }
        throw ClickHouseError(server: server, doing: doing, reason: "no attempt was made")
    }

    /// Runs a statement that changes something (DDL, ALTER), once.
    public func execute(_ sql: String, doing: String, useDatabase: Bool = true) throws {
        do { _ = try send(sql: sql, body: nil, doing: doing, settings: [:], useDatabase: useDatabase) } catch let e as Unreachable { throw e.error }
    }

    /// A request's body besides the query: an insert's rows (gzip-compressed when large and
    /// going over a network: fewer bytes to send), or an external table.
    struct Body: Sendable {
        var payload: HTTPClient.Body
        var contentType: String?
        var encoding: String?

        /// `compress`: whether a large body is worth compressing (not to a server on this
        /// machine, where compressing and unpacking cost both sides CPU and save no network).
        /// Uncompressed rows are sent from the writer's own array, a few MB at a time, not
        /// copied whole first.
        static func rows(_ rows: RowBinaryWriter, compress: Bool) -> Body {
            guard compress, rows.bytes.count >= Tuning.compressedBodyBytes, let gzip = GzipMember(level: Tuning.bodyGzipLevel),
                  let packed = rows.bytes.withUnsafeBytes({ gzip.compress($0) { ByteBuffer(bytes: $0) } }) else {
                return Body(payload: .bytes(rows.bytes))
            }
            return Body(payload: .byteBuffer(packed), encoding: "gzip")
        }

        static func multipart(_ table: ExternalTable) -> Body {
            let boundary = "funnel-" + UUID().uuidString
            let head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(table.name)\"; filename=\"\(table.name)\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n"
            let tail = "\r\n--\(boundary)--\r\n"
            var bytes = ByteBufferAllocator().buffer(capacity: head.utf8.count + table.rows.count + tail.utf8.count)
            bytes.writeString(head)
            bytes.writeData(table.rows)
            bytes.writeString(tail)
            return Body(payload: .byteBuffer(bytes), contentType: "multipart/form-data; boundary=\(boundary)")
        }
    }

    /// Inserts `rows` (RowBinary, in the order of `columns`) into `table`: the server stores
    /// the whole body or none of it. Sent again only when the server refused it before any
    /// query ran (HTTP 400 without a text): an insert that got no answer may have been stored.
    /// `settings`: query settings, e.g. `insert_distributed_sync=1` for a Distributed table.
    public func insert(into table: String, columns: [String], rows: RowBinaryWriter, doing: String, settings: [String: String] = [:]) throws {
        try startInsert(into: table, columns: columns, rows: rows, doing: doing, settings: settings).wait()
    }

    /// `insert`, sent now and waited for later: the caller goes on while the server stores
    /// the rows, and learns the outcome from `wait()`.
    public func startInsert(into table: String, columns: [String], rows: RowBinaryWriter, doing: String,
                            settings: [String: String] = [:]) throws -> PendingInsert {
        let sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) FORMAT RowBinary"
        let body = Body.rows(rows, compress: compress)
        let send = { @Sendable [self] in
            try start(sql: sql, body: body, doing: doing, settings: settings, useDatabase: true)
        }
        return PendingInsert(request: try send(), resend: send)
    }

    /// An insert under way.
    public struct PendingInsert: Sendable {
        fileprivate let request: Request
        /// Sends the same insert again.
        fileprivate let resend: @Sendable () throws -> Request

        /// Waits until the server stored the rows or failed; throws its error. An insert the
        /// server refused before any query ran is sent again (as a read is).
        public func wait() throws {
            var request = self.request
            var delay = Tuning.retryDelay
            for attempt in 1... {
                do {
                    _ = try request.answer()
                    return
                } catch let e as Unreachable where e.refusedBeforeQuery && attempt < Tuning.readAttempts {
                    Thread.sleep(forTimeInterval: delay)
                    delay *= 2
                    request = try resend()
                } catch let e as Unreachable {
                    throw e.error
                }
            }
        }
    }

    /// A request that did not reach the server, got no answer, or was refused before any
    /// query ran (HTTP 400 without a text, `refusedBeforeQuery`): a read may be tried again,
    /// an insert only when refused.
    fileprivate struct Unreachable: Error {
        var error: ClickHouseError
        var refusedBeforeQuery = false
    }

    private func send(sql: String, body: Body?, doing: String, settings: [String: String], useDatabase: Bool) throws -> Data {
        try start(sql: sql, body: body, doing: doing, settings: settings, useDatabase: useDatabase).answer()
    }

    /// A request sent, its answer still to come.
    fileprivate struct Request: Sendable {
        let server: ClickHouseServer
        let doing: String
        let shown: String
        let response: EventLoopFuture<HTTPClient.Response>

        /// Waits for the answer: its bytes on status 200, else the server's error.
        func answer() throws -> Data {
            let response: HTTPClient.Response
            do {
                response = try self.response.wait()
            } catch {
                throw Unreachable(error: ClickHouseError(server: server, doing: doing, reason: "no answer: \(ClickHouseClient.reason(error))",
                                                         query: shown, kind: .unreachable))
            }
            let answer = response.body ?? ByteBuffer()
            switch response.status.code {
            case 200:
                return Data(buffer: answer)
            case 401:
                throw ClickHouseError(server: server, doing: doing,
                                      reason: "the server refused the user or password (HTTP 401); give them as clickhouse://USER:PASSWORD@…",
                                      query: shown, kind: .refused)
            case let status:
                let text = String(decoding: answer.readableBytesView.prefix(2_000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                let error = ClickHouseError(server: server, doing: doing, reason: "HTTP \(status): \(ClickHouseClient.exception(text))", query: shown, kind: .server)
                // No text: the server's HTTP layer refused the request before any query ran (a
                // query's error always has its text), so a read may be sent again.
                if text.isEmpty && status == 400 { throw Unreachable(error: error, refusedBeforeQuery: true) }
                throw error
            }
        }
    }

    /// Sends a request. The query goes in the URL when there is a body (an insert's rows, an
    /// external table), else in the body.
    private func start(sql: String, body: Body?, doing: String, settings: [String: String], useDatabase: Bool) throws -> Request {
        var components = URLComponents()
        components.scheme = "http"
        components.host = server.host
        components.port = server.port
        components.path = "/"
        var items = [URLQueryItem(name: "wait_end_of_query", value: "1"),
                     URLQueryItem(name: "max_query_size", value: String(Tuning.maxQuerySize)),
                     URLQueryItem(name: "max_ast_elements", value: String(Tuning.queryElements)),
                     URLQueryItem(name: "max_expanded_ast_elements", value: String(Tuning.queryElements))]
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) { items.append(URLQueryItem(name: name, value: value)) }
        if useDatabase { items.append(URLQueryItem(name: "database", value: database)) }
        if body != nil { items.append(URLQueryItem(name: "query", value: sql)) }
        components.queryItems = items
        let shown = Self.shown(sql)
        guard let url = components.url else {
            throw ClickHouseError(server: server, doing: doing, reason: "cannot form the request's URL", query: shown)
        }
        var request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url, method: .POST, body: body?.payload ?? .byteBuffer(ByteBuffer(string: sql)))
        } catch {
            throw ClickHouseError(server: server, doing: doing, reason: "cannot form the request's URL (\(Self.reason(error)))", query: shown)
        }
        if let type = body?.contentType { request.headers.add(name: "Content-Type", value: type) }
        if let encoding = body?.encoding { request.headers.add(name: "Content-Encoding", value: encoding) }
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        return Request(server: server, doing: doing, shown: shown,
                       response: Self.http.execute(request: request, deadline: .now() + Self.requestDeadline))
    }

    /// Why a request got no answer, in a few words (the error names the server already).
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as HTTPClientError where error == .readTimeout:
            return "nothing came for \(Int(Tuning.requestTimeout)) s"
        case let error as HTTPClientError where error == .connectTimeout:
            return "no connection within \(Int(Tuning.connectTimeout)) s"
        case let error as HTTPClientError where error == .deadlineExceeded:
            return "not done within \(Int(Tuning.requestTimeout * 12)) s"
        case let error as HTTPClientError:
            return error.shortDescription.lowercased()
        case let error as NIOConnectionError:
            if let dns = error.dnsAError ?? error.dnsAAAAError { return "cannot resolve \(error.host) (\(dns))" }
            return error.connectionErrors.last.map { reason($0.error) } ?? "cannot connect"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        default:
            return String(describing: error)
        }
    }

    /// Seconds as NIO's time amount.
    private static func amount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1e9))
    }

    /// The server's exception text without its stack-trace boilerplate.
    static func exception(_ text: String) -> String {
        guard let r = text.range(of: ", e.what() = ") else { return text }
        return String(text[..<r.lowerBound]).replacingOccurrences(of: "e.displayText() = ", with: "")
    }

    /// The query's start on one line, for an error.
    static func shown(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return line.count <= Tuning.queryShown ? line : String(line.prefix(Tuning.queryShown)) + "…"
    }
}
