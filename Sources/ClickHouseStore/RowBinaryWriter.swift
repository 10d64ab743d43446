import Foundation
import FunnelModel

/// Rows in ClickHouse's RowBinary format, column after column as the insert names them:
/// integers little-endian, strings with a LEB128 length, Nullable with a null byte first.
public struct RowBinaryWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    public var isEmpty: Bool { bytes.isEmpty }
    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    public mutating func uint8(_ v: UInt8) { bytes.append(v) }
    public mutating func uint32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    public mutating func uint64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    public mutating func int64(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }

    public mutating func string<C: Collection>(bytes s: C) where C.Element == UInt8 {
        Varint.append(UInt64(s.count), to: &bytes)
        bytes.append(contentsOf: s)
    }

    /// An array's length, before its elements.
    public mutating func arrayCount(_ n: Int) { Varint.append(UInt64(n), to: &bytes) }

    public mutating func string(_ s: String) { string(bytes: s.utf8) }

    public mutating func nullableString(_ s: String?) {
        guard let s else { bytes.append(1); return }
        bytes.append(0)
        string(s)
    }
}
