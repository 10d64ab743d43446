#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What some conditions read of a context (`ConditionContext.lookup`'s keys), and a context
/// cut down to that as a small value to key a cache by: two contexts with equal keys (and the
/// same flag defaults) answer those conditions, and every flag, alike. The key is the parts'
/// bytes in one buffer, hashed and compared in one pass each (no `String` or `JSONValue` is
/// copied, hashed or released one by one).
public struct ConditionReads: Sendable, Hashable {
    /// The keys read, sorted; each is kept from the values, as `FlowDefinition.pathContext` does.
    public let valueKeys: [String]
    public let appVersion: Bool
    public let platform: Bool
    public let startDate: Bool

    public init(_ keys: Set<String>) {
        valueKeys = keys.sorted()
        appVersion = keys.contains("app_version")
        platform = keys.contains("platform")
        startDate = keys.contains("start_date")
    }

    /// A context cut down to what the conditions read, with every flag (a step's flag is read
    /// by its name, not through a key): each value read (or none), the flags in name order,
    /// and the app version, platform and start day when read, each tagged and its text
    /// length-prefixed (`KeyBytes`). Equal bytes are equal parts; parts a `String` comparison
    /// finds equal in another spelling (canonical equivalents) only keep two entries apart.
    public struct Key: Sendable, Hashable {
        var bytes: [UInt8]

        public static func == (a: Key, b: Key) -> Bool {
            a.bytes.withUnsafeBytes { x in
                b.bytes.withUnsafeBytes { y in
                    guard x.count == y.count, let p = x.baseAddress, let q = y.baseAddress else { return x.count == y.count }
                    return memcmp(p, q, x.count) == 0
                }
            }
        }

        public func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// The key of a context with these parts; `startDate` is asked only when a condition reads it.
    public func key(values: [String: JSONValue], flags: [String: JSONValue], appVersion: String?,
                    platform: String?, startDate: () -> String?) -> Key {
        var out = KeyBytes()
        for k in valueKeys {
            if let v = values[k] { out.byte(1); out.value(v) } else { out.byte(0) }
        }
        out.pairs(flags)
        return finish(&out, appVersion: appVersion, platform: platform, startDate: startDate)
    }

    /// `key(values:…)` with each value read by `value`, given the key's index in `valueKeys`
    /// and the key, and the flags (`flagCount` of them) given by `flags` in their names' order.
    public func key(value: (Int, String) -> JSONValue?, flagCount: Int,
                    flags: ((String, JSONValue) -> Void) -> Void, appVersion: String?,
                    platform: String?, startDate: () -> String?) -> Key {
        var out = KeyBytes()
        for i in valueKeys.indices {
            if let v = value(i, valueKeys[i]) { out.byte(1); out.value(v) } else { out.byte(0) }
        }
        Varint.append(UInt64(flagCount), to: &out.bytes)
        flags { k, v in
            out.text(k)
            out.value(v)
        }
        return finish(&out, appVersion: appVersion, platform: platform, startDate: startDate)
    }

    /// A key's bytes ended with the parts besides values and flags that the conditions read.
    private func finish(_ out: inout KeyBytes, appVersion: String?, platform: String?, startDate: () -> String?) -> Key {
        if self.appVersion { out.optional(appVersion) }
        if self.platform { out.optional(platform) }
        if self.startDate { out.optional(startDate()) }
        return Key(bytes: out.bytes)
    }
}

/// The bytes of a `ConditionReads.Key`: a tag a value, texts as their length and UTF-8.
struct KeyBytes {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(128) }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func text(_ s: String) {
        var s = s
        s.withUTF8 { u in
            Varint.append(UInt64(u.count), to: &bytes)
            bytes.append(contentsOf: u)
        }
    }

    mutating func optional(_ s: String?) {
        if let s { byte(1); text(s) } else { byte(0) }
    }

    mutating func value(_ v: JSONValue) {
        switch v {
        case .null: byte(0)
        case .bool(let b): byte(b ? 2 : 1)
        case .number(let n): byte(3); text(n)
        case .string(let s): byte(4); text(s)
        case .array(let a):
            byte(5)
            Varint.append(UInt64(a.count), to: &bytes)
            for e in a { value(e) }
        case .object(let o):
            byte(6)
            pairs(o)
        }
    }

    /// An object's pairs (or the flags) in key order, so that the order they were set in
    /// does not matter: their count, then each key and value.
    mutating func pairs(_ o: [String: JSONValue]) {
        Varint.append(UInt64(o.count), to: &bytes)
        if o.count == 1, let (k, v) = o.first {
            text(k)
            value(v)
            return
        }
        for (k, v) in o.sorted(by: { $0.key < $1.key }) {
            text(k)
            value(v)
        }
    }
}
