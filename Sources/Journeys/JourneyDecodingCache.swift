import FunnelModel
import EventLog

/// Equal strings and objects seen while decoding journeys, shared instead of rebuilt.
/// Bounded: starts over past a number of entries. Use from one thread.
public final class JourneyDecodingCache {
    package var stringKeys = ByteInterner()
    package var strings: [String] = []
    package var objectKeys = ByteInterner()
    package var objects: [[String: JSONValue]] = []

    public init() {}

    package func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let u = bytes.bindMemory(to: UInt8.self)
        let (i, isNew) = stringKeys.intern(u)
        if isNew {
            if strings.count >= Tuning.cachedDecodedValues {
                stringKeys = ByteInterner()
                strings.removeAll(keepingCapacity: true)
                _ = stringKeys.intern(u)
            }
            strings.append(String(decoding: u, as: UTF8.self))
            return strings[strings.count - 1]
        }
        return strings[i]
    }
}
