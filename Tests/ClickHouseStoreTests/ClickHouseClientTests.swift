import XCTest
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import ClickHouseStore

/// A read or an insert refused by the server's HTTP layer before any query ran (HTTP 400
/// without a text) is tried again; a query's own error is not.
final class ClickHouseClientTests: XCTestCase {
    /// A scripted loopback server answering `replies` in turn, and a client of it.
    func scripted(_ replies: [String]) throws -> (ScriptedHTTPServer, ClickHouseClient) {
        let server = try ScriptedHTTPServer(replies: replies)
        return (server, ClickHouseClient(server: ClickHouseServer(host: "127.0.0.1", port: server.port), database: "x", user: nil, password: nil))
    }

    func testAnInsertRefusedWithoutATextIsSentAgain() throws {
        let (server, client) = try scripted([
            "HTTP/1.1 400 Bad Request\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        ])
        var rows = RowBinaryWriter()
        rows.uint64(42)
        try client.insert(into: "t", columns: ["n"], rows: rows, doing: "inserting")
        XCTAssertEqual(server.answered(), 2)
        XCTAssertEqual(server.bodies(), [[42, 0, 0, 0, 0, 0, 0, 0], [42, 0, 0, 0, 0, 0, 0, 0]], "the same rows sent twice")
    }

    func testAnInsertsErrorIsNotSentAgain() throws {
        let text = "Code: 27, e.displayText() = DB::Exception: Cannot parse input"
        let (server, client) = try scripted([
            "HTTP/1.1 400 Bad Request\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)",
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        ])
        var rows = RowBinaryWriter()
        rows.uint8(1)
        XCTAssertThrowsError(try client.insert(into: "t", columns: ["n"], rows: rows, doing: "inserting")) { error in
            XCTAssertTrue("\(error)".contains("HTTP 400: Code: 27"), "\(error)")
        }
        XCTAssertEqual(server.answered(), 1)
    }

    func testARequestRefusedWithoutATextIsReadAgain() throws {
        let (server, client) = try scripted([
            "HTTP/1.1 400 Bad Request\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n1\n",
        ])
        XCTAssertEqual(String(decoding: try client.read("SELECT 1", doing: "checking"), as: UTF8.self), "1\n")
        XCTAssertEqual(server.answered(), 2)
    }

    func testAQuerysErrorIsNotReadAgain() throws {
        let text = "Code: 62, e.displayText() = DB::Exception: Syntax error"
        let (server, client) = try scripted([
            "HTTP/1.1 400 Bad Request\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)",
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n1\n",
        ])
        XCTAssertThrowsError(try client.read("SELEC 1", doing: "checking")) { error in
            XCTAssertTrue("\(error)".contains("HTTP 400: Code: 62"), "\(error)")
            XCTAssertEqual((error as? ClickHouseError)?.kind, .server)
        }
        XCTAssertEqual(server.answered(), 1)
    }
}

/// A loopback HTTP server that answers its connections in turn with `replies` (raw HTTP),
/// each after reading the whole request (headers and `Content-Length` body), then closes it.
final class ScriptedHTTPServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var count = 0
    private var received: [[UInt8]] = []

    init(replies: [String]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        listener = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                bind(fd, a, size) == 0 && listen(fd, 4) == 0 && getsockname(fd, a, &size) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in
            for reply in replies {
                let c = accept(fd, nil, nil)
                guard c >= 0 else { return }
                let body = ScriptedHTTPServer.readRequest(c)
                _ = Array(reply.utf8).withUnsafeBytes { send(c, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(c)
                lock.lock(); count += 1; received.append(body); lock.unlock()
            }
        }.start()
    }

    deinit { close(listener) }

    /// How many requests it has answered.
    func answered() -> Int { lock.lock(); defer { lock.unlock() }; return count }

    /// The bodies of the requests it has answered, in turn.
    func bodies() -> [[UInt8]] { lock.lock(); defer { lock.unlock() }; return received }

    /// Reads a request's headers and its `Content-Length` body; returns the body.
    @discardableResult
    private static func readRequest(_ c: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var wanted = Int.max
        while bytes.count < wanted {
            let n = buffer.withUnsafeMutableBytes { recv(c, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return [] }
            bytes += buffer[..<n]
            if headerEnd == nil, let end = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                headerEnd = end
                let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                wanted = end + length
            }
        }
        return Array(bytes[(headerEnd ?? bytes.count)...])
    }
}
