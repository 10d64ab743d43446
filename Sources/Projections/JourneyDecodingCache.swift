import FunnelModel
import EventLog

/// Equal strings and objects seen while decoding journeys, shared instead of rebuilt.
/// Bounded: starts over past a number of entries. Use from one thread.
public final class JourneyDecodingCache {
    var stringKeys = ByteInterner()
    var strings: [String] = []
    var objectKeys = ByteInterner()
    var objects: [[String: JSONValue]] = []

    public init() {}

    func string(_ bytes: UnsafeRawBufferPointer) -> String {
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
