import CZlib
import Foundation

/// Zip archives written for the tests, as Amplitude's export and `zip` write them: each
/// entry stored or deflated (zlib, raw deflate), a local header before its data, the central
/// directory and its end record after them (ZIP64's too when asked). Fields can be set wrong
/// on purpose (`Entry.crc32`, `methodNumber`, `flags`) to make a bad archive; `layout` says
/// where each entry's data lies, to cut or damage it.
public enum ZipFixture {
    public enum Method: Sendable { case stored, deflate }

    public struct Entry: Sendable {
        public var name: String
        public var data: [UInt8]
        public var method: Method
        /// Written instead of the data's CRC-32.
        public var crc32: UInt32?
        /// Written instead of the method's number (the data is still as `method` makes it).
        public var methodNumber: UInt16?
        public var flags: UInt16 = 0x0800

        public init(_ name: String, _ data: [UInt8], method: Method = .deflate, crc32: UInt32? = nil,
                    methodNumber: UInt16? = nil, flags: UInt16 = 0x0800) {
            self.name = name
            self.data = data
            self.method = method
            self.crc32 = crc32
            self.methodNumber = methodNumber
            self.flags = flags
        }
    }

    /// Where one entry lies in the archive.
    public struct Placed: Sendable {
        public var headerOffset: Int
        public var dataOffset: Int
        public var compressedSize: Int
    }

    /// The archive's bytes, and where each entry lies.
    public static func archive(_ entries: [Entry], zip64: Bool = false) -> (bytes: [UInt8], layout: [Placed]) {
        var out: [UInt8] = []
        var central: [UInt8] = []
        var layout: [Placed] = []
        for entry in entries {
            let packed = entry.method == .stored ? entry.data : deflate(entry.data)
            let crc = entry.crc32 ?? crc32(entry.data)
            let method = entry.methodNumber ?? (entry.method == .stored ? 0 : 8)
            let name = Array(entry.name.utf8)
            let offset = out.count
            // ZIP64: the 32-bit fields full, the values in the extra field 0x0001.
            var localExtra: [UInt8] = []
            if zip64 { localExtra = le16(1) + le16(16) + le64(entry.data.count) + le64(packed.count) }
            out += le32(0x0403_4B50) + le16(zip64 ? 45 : 20) + le16(entry.flags) + le16(method) + le16(0) + le16(0x21)
            out += le32(crc) + le32(zip64 ? 0xFFFF_FFFF : packed.count) + le32(zip64 ? 0xFFFF_FFFF : entry.data.count)
            out += le16(name.count) + le16(localExtra.count) + name + localExtra
            layout.append(Placed(headerOffset: offset, dataOffset: out.count, compressedSize: packed.count))
            out += packed
            var extra: [UInt8] = []
            if zip64 { extra = le16(1) + le16(24) + le64(entry.data.count) + le64(packed.count) + le64(offset) }
            central += le32(0x0201_4B50) + le16(0x031E) + le16(zip64 ? 45 : 20) + le16(entry.flags) + le16(method) + le16(0) + le16(0x21)
            central += le32(crc) + le32(zip64 ? 0xFFFF_FFFF : packed.count) + le32(zip64 ? 0xFFFF_FFFF : entry.data.count)
            central += le16(name.count) + le16(extra.count) + le16(0) + le16(0) + le16(0) + le32(0o100644 << 16)
            central += le32(zip64 ? 0xFFFF_FFFF : offset) + name + extra
        }
        let directoryOffset = out.count
        out += central
        if zip64 {
            let record = out.count
            out += le32(0x0606_4B50) + le64(44) + le16(45) + le16(45) + le32(0) + le32(0)
            out += le64(entries.count) + le64(entries.count) + le64(central.count) + le64(directoryOffset)
            out += le32(0x0706_4B50) + le32(0) + le64(record) + le32(1)
            out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(0xFFFF) + le16(0xFFFF) + le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF) + le16(0)
        } else {
            out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(entries.count) + le16(entries.count)
            out += le32(central.count) + le32(directoryOffset) + le16(0)
        }
        return (out, layout)
    }

    /// An archive of the files in `folder` (not its subfolders), each named `prefix/NAME`, in
    /// name order.
    public static func archive(folder: URL, prefix: String, method: Method = .deflate) throws -> [UInt8] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let entries = try names.map { Entry("\(prefix)/\($0)", Array(try Data(contentsOf: folder.appendingPathComponent($0))), method: method) }
        return archive(entries).bytes
    }

    public static func crc32(_ data: [UInt8]) -> UInt32 {
        UInt32(data.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, UInt32($0.count)) })
    }

    /// `data` as raw deflate (no zlib or gzip wrapper), as a zip holds it.
    public static func deflate(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard funnel_deflateInit2(&stream, 6, -MAX_WBITS) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))) + 64)
        var input = data
        let produced = input.withUnsafeMutableBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst -> Int in
                stream.next_in = src.baseAddress
                stream.avail_in = UInt32(src.count)
                stream.next_out = dst.baseAddress
                stream.avail_out = UInt32(dst.count)
                _ = CZlib.deflate(&stream, Z_FINISH)
                return dst.count - Int(stream.avail_out)
            }
        }
        return Array(out[0..<produced])
    }

    static func le16(_ v: some BinaryInteger) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
    static func le32(_ v: some BinaryInteger) -> [UInt8] { le16(v) + le16(v >> 16) }
    static func le64(_ v: some BinaryInteger) -> [UInt8] { le32(v) + le32(v >> 32) }
}
