import EventLog
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One server's HTTP interface, through Foundation's URLSession: a query's whole answer, or
/// an insert's rows sent as one body. The server answers only once the query has ended
/// (`wait_end_of_query`), so a failure is never a status 200 with an error at the end.
/// Reads are tried again when the server cannot be reached; inserts never are.
public final class ClickHouseClient: Sendable {
    public let server: ClickHouseServer
    public let database: String
    private let authorization: String?
    private let session: URLSession
    private let refusals = Refusals()

    public init(server: ClickHouseServer, database: String, user: String?, password: String?) {
        self.server = server
        self.database = database
        if let user {
            authorization = "Basic " + Data("\(user):\(password ?? "")".utf8).base64EncodedString()
        } else {
            authorization = nil
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = Tuning.requestTimeout
        configuration.timeoutIntervalForResource = Tuning.requestTimeout * 12
        session = URLSession(configuration: configuration, delegate: refusals, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

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

    /// Runs a query that reads (tried again when the server cannot be reached) and returns its
    /// answer's bytes.
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
            } catch let e as Unreachable where attempt < Tuning.readAttempts {
                _ = e
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

    /// A request's body besides the query: an insert's rows (gzip-compressed when large: fewer
    /// bytes through URLSession), or an external table.
    struct Body {
        var data: Data
        var contentType: String?
        var encoding: String?

        static func rows(_ rows: Data) -> Body {
            guard rows.count >= Tuning.compressedBodyBytes, let gzip = GzipMember(level: Tuning.bodyGzipLevel),
                  let packed = rows.withUnsafeBytes({ gzip.compress($0) { Data($0) } }) else { return Body(data: rows) }
            return Body(data: packed, encoding: "gzip")
        }

        static func multipart(_ table: ExternalTable) -> Body {
            let boundary = "funnel-" + UUID().uuidString
            var data = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(table.name)\"; filename=\"\(table.name)\"\r\n".utf8)
            data.append(Data("Content-Type: application/octet-stream\r\n\r\n".utf8))
            data.append(table.rows)
            data.append(Data("\r\n--\(boundary)--\r\n".utf8))
            return Body(data: data, contentType: "multipart/form-data; boundary=\(boundary)")
        }
    }

    /// Inserts `rows` (RowBinary, in the order of `columns`) into `table`, once: the server
    /// stores the whole body or none of it.
    /// `settings`: query settings, e.g. `insert_distributed_sync=1` for a Distributed table.
    public func insert(into table: String, columns: [String], rows: Data, doing: String, settings: [String: String] = [:]) throws {
        let sql = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) FORMAT RowBinary"
        do { _ = try send(sql: sql, body: Body.rows(rows), doing: doing, settings: settings, useDatabase: true) } catch let e as Unreachable { throw e.error }
    }

    /// A request that did not reach the server or got no answer: a read may be tried again.
    private struct Unreachable: Error {
        var error: ClickHouseError
    }

    /// The query goes in the URL when there is a body (an insert's rows, an external table),
    /// else in the body.
    private func send(sql: String, body: Body?, doing: String, settings: [String: String], useDatabase: Bool) throws -> Data {
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
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body?.data ?? Data(sql.utf8)
        if let type = body?.contentType { request.setValue(type, forHTTPHeaderField: "Content-Type") }
        if let encoding = body?.encoding { request.setValue(encoding, forHTTPHeaderField: "Content-Encoding") }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { data, response, error in
            outcome.set(data: data, status: (response as? HTTPURLResponse)?.statusCode, error: error)
            done.signal()
        }
        task.resume()
        done.wait()
        let (data, status, error) = outcome.get()
        if refusals.take(task.taskIdentifier) {
            throw ClickHouseError(server: server, doing: doing,
                                  reason: "the server refused the user or password (HTTP 401); give them as clickhouse://USER:PASSWORD@…",
                                  query: shown)
        }
        if let error {
            throw Unreachable(error: ClickHouseError(server: server, doing: doing, reason: "no answer: \(error.localizedDescription)", query: shown))
        }
        guard let status else {
            throw Unreachable(error: ClickHouseError(server: server, doing: doing, reason: "no HTTP answer", query: shown))
        }
        guard status == 200 else {
            let text = String(decoding: (data ?? Data()).prefix(2_000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw ClickHouseError(server: server, doing: doing, reason: "HTTP \(status): \(Self.exception(text))", query: shown)
        }
        return data ?? Data()
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

/// A request's result, handed from URLSession's queue to the waiting caller.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    private var status: Int?
    private var error: (any Error)?

    func set(data: Data?, status: Int?, error: (any Error)?) {
        lock.lock()
        defer { lock.unlock() }
        self.data = data
        self.status = status
        self.error = error
    }

    func get() -> (Data?, Int?, (any Error)?) {
        lock.lock()
        defer { lock.unlock() }
        return (data, status, error)
    }
}

/// Answers the server's request for credentials (HTTP 401): the request carried the ones the
/// address gave, so the challenge is cancelled and the task noted as refused (URLSession
/// would otherwise wait for credentials that never come).
private final class Refusals: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var refused = Set<Int>()

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        lock.lock()
        refused.insert(task.taskIdentifier)
        lock.unlock()
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    /// Whether the task was refused (forgotten once asked).
    func take(_ task: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return refused.remove(task) != nil
    }
}
