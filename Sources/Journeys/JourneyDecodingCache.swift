import FunnelModel
import LogFiles

/// Equal strings and objects seen while decoding journeys, shared instead of rebuilt.
/// Bounded: each table starts over past `Tuning.cachedDecodedValues` entries. Use from one thread.
public final class JourneyDecodingCache {
    package var strings = BoundedByteCache<String>(limit: Tuning.cachedDecodedValues)
    package var objects = BoundedByteCache<[String: JSONValue]>(limit: Tuning.cachedDecodedValues)

    public init() {}

    package func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let u = bytes.bindMemory(to: UInt8.self)
        return strings.value(for: u) { String(decoding: u, as: UTF8.self) }
    }
}
