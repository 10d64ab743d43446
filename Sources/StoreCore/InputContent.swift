import LogFiles
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What an input holds, as the ledger knows it: the SHA-256 and size of its bytes, taken
/// before anything of it is written, so that an input already ingested is skipped.
package enum InputContent {
    package struct Hash: Sendable {
        package var sha256: String
        package var size: Int64
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 and size of a file's bytes.
    package static func hash(path: String) throws -> Hash {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw InputError(kind: .unreadable, path: path, offset: 0, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var hasher = SHA256()
        // Uninitialized: a small input touches only the pages it is read into.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Tuning.readBuffer, alignment: 16)
        defer { buffer.deallocate() }
        var size: Int64 = 0
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(kind: .unreadable, path: path, offset: size, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            size += Int64(n)
        }
        return Hash(sha256: hex(hasher.finalize()), size: size)
    }

    /// SHA-256 and size of an entry of a zip archive: of its bytes as the unzipped file holds
    /// them, so the entry and that file are one content to the ledger. Reading it checks it
    /// whole (its CRC-32 too) before anything of it is written.
    package static func hash(_ zip: ZipMember) throws -> Hash {
        var hasher = SHA256()
        var size: Int64 = 0
        try zip.forEachChunk { chunk in
            hasher.update(bufferPointer: chunk)
            size += Int64(chunk.count)
        }
        return Hash(sha256: hex(hasher.finalize()), size: size)
    }

    /// An input's content hash; standard input is spooled to a temporary file first, whose
    /// path is returned for the caller to read and remove. Throws for an input compressed in
    /// a format funnel does not read (`InputError.Kind.unsupported`), before anything of it
    /// is written.
    package static func of(_ input: InputSource) throws -> (Hash, spooled: String?) {
        if let fault = input.fault { throw fault }
        if let zip = input.zip { return (try hash(zip), nil) }
        guard input.isStandardInput else {
            _ = try InputFormat.check(path: input.path)
            return (try hash(path: input.path), nil)
        }
        let (path, hash) = try spoolStandardInput()
        do {
            _ = try InputFormat.check(path: path)
        } catch var e as InputError {
            unlink(path)
            e.path = "-"
            throw e
        }
        return (hash, path)
    }

    /// Copies standard input to a temporary file (hashing it on the way), so that it can be
    /// checked against the ledger before anything is written.
    package static func spoolStandardInput() throws -> (String, Hash) {
        var template = Array((NSTemporaryDirectory() + "/funnel-stdin-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { p in p.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw InputError(kind: .unreadable, path: "-", offset: 0, reason: "cannot spool standard input: " + String(cString: strerror(errno))) }
        defer { close(fd) }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: Tuning.readBuffer)
        var size: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(kind: .unreadable, path: "-", offset: size, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            if let reason = buffer.withUnsafeBytes({ writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) {
                throw InputError(kind: .unreadable, path: "-", offset: size, reason: "cannot spool standard input: " + reason)
            }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            size += Int64(n)
        }
        return (path, Hash(sha256: hex(hasher.finalize()), size: size))
    }
}
