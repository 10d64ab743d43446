import FunnelModel
import LogFiles
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How every store tells events apart: by the hash of their decoded `event_id` (part of the
/// store format: stored id indexes are keyed by it) and, for two lines with the same id, by
/// whether they are the same event.
package enum EventIdentity {
    /// The dedupe index key of an event id: its 64-bit FNV-1a, as a signed integer.
    @inline(__always)
    package static func idHash(_ id: UnsafeBufferPointer<UInt8>) -> Int64 {
        Int64(bitPattern: FNV1a.hash(id))
    }

    /// Whether two lines with the same event id are the same event: the same bytes, or the
    /// same JSON (other spacing or key order). A copy that is not is a conflict.
    package static func sameEvent(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        if a.count == b.count, let p = a.baseAddress, let q = b.baseAddress, memcmp(p, q, a.count) == 0 { return true }
        let x = EventDecoder.jsonValue(a)
        return x != nil && x == EventDecoder.jsonValue(b)
    }
}
