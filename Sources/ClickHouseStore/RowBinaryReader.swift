import Foundation
import FunnelModel

/// Reads an answer in RowBinary, column after column as the query selects them.
public struct RowBinaryReader {
    private let bytes: [UInt8]
    private var at = 0
    /// What the rows are, for an error.
    private let doing: String

    public init(_ data: Data, doing: String) {
        bytes = [UInt8](data)
        self.doing = doing
    }

    public var isAtEnd: Bool { at >= bytes.count }

    private func truncated() -> ClickHouseError {
        ClickHouseError(server: nil, doing: doing, reason: "the answer ends inside a row (byte \(at) of \(bytes.count))", kind: .reply)
    }

    private mutating func fixed<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard at + size <= bytes.count else { throw truncated() }
        var v: T = 0
        for i in 0..<size { v |= T(bytes[at + i]) << (8 * i) }
        at += size
        return v
    }

    public mutating func uint8() throws -> UInt8 { try fixed(UInt8.self) }
    public mutating func uint32() throws -> UInt32 { try fixed(UInt32.self) }
    public mutating func uint64() throws -> UInt64 { try fixed(UInt64.self) }
    public mutating func int64() throws -> Int64 { Int64(bitPattern: try fixed(UInt64.self)) }

    /// A string's bytes.
    public mutating func bytesOfString() throws -> ArraySlice<UInt8> {
        let length = try self.length()
        guard at + length <= bytes.count else { throw truncated() }
        defer { at += length }
        return bytes[at..<(at + length)]
    }

    /// A string's bytes, nil for NULL.
    public mutating func nullableBytesOfString() throws -> ArraySlice<UInt8>? {
        try uint8() == 1 ? nil : try bytesOfString()
    }

    /// A LEB128 length: of a string, whose bytes follow, or of an array, whose elements follow.
    public mutating func length() throws -> Int {
        try bytes.withUnsafeBytes { b -> Int in
            guard let n = Varint.read(b, at: &at), n <= UInt64(b.count) else { throw truncated() }
            return Int(n)
        }
    }

    public mutating func string() throws -> String { String(decoding: try bytesOfString(), as: UTF8.self) }

    public mutating func nullableString() throws -> String? {
        try uint8() == 1 ? nil : try string()
    }
}
