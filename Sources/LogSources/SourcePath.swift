import FunnelModel

/// Where a value sits in a vendor's line: object keys from the root, written with dots
/// (`properties.$screen_name`, `context.app.version`). A key cannot hold a dot.
public struct SourcePath: Sendable, Hashable, CustomStringConvertible {
    public var keys: [String]

    public init(keys: [String]) { self.keys = keys }

    /// The path of a dotted text, or nil when the text is empty or has an empty key.
    public init?(_ text: String) {
        let keys = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !keys.contains(where: \.isEmpty) else { return nil }
        self.keys = keys
    }

    public var description: String { keys.joined(separator: ".") }

    /// The value at the path, or nil when a key is absent, a container on the way is not an
    /// object, or the value is `null` (vendors write `null` for "none": Amplitude's
    /// `user_id` of an anonymous user).
    public func value(in root: JSONValue) -> JSONValue? {
        var here = root
        for key in keys {
            guard case .object(let o) = here, let next = o[key] else { return nil }
            here = next
        }
        return here == .null ? nil : here
    }

    /// True when `other` is this path with one key more: a field of the object here.
    func isParent(of other: SourcePath) -> Bool {
        other.keys.count == keys.count + 1 && Array(other.keys.prefix(keys.count)) == keys
    }

    /// Puts `value` at the path, making the objects on the way. Fails (false) when a value
    /// is already there or a container on the way is not an object.
    func put(_ value: JSONValue, into root: inout JSONValue) -> Bool {
        Self.put(value, keys[...], into: &root)
    }

    private static func put(_ value: JSONValue, _ keys: ArraySlice<String>, into node: inout JSONValue) -> Bool {
        guard let key = keys.first, case .object(var o) = node else { return false }
        if keys.count == 1 {
            guard o[key] == nil else { return false }
            o[key] = value
        } else {
            var child = o[key] ?? .object([:])
            guard put(value, keys.dropFirst(), into: &child) else { return false }
            o[key] = child
        }
        node = .object(o)
        return true
    }

    /// The byte offset of the value at the path in a line (the last of a repeated key, as the
    /// parsed value keeps), or nil when it is not there. The line is valid JSON already.
    func offset(in b: UnsafeBufferPointer<UInt8>) -> Int? {
        var sc = JSONScanner(b)
        for key in keys {
            guard let at = Self.lastField(key, &sc) else { return nil }
            sc.i = at
        }
        sc.skipWhitespace()
        return sc.i
    }

    /// Where the value of `key` starts in the object at the scanner, or nil.
    private static func lastField(_ key: String, _ sc: inout JSONScanner) -> Int? {
        sc.skipWhitespace()
        guard sc.peek == 0x7B else { return nil }
        sc.i += 1
        var found: Int?
        do throws(JSONSyntaxError) {
            sc.skipWhitespace()
            if sc.peek == 0x7D { return nil }
            while true {
                sc.skipWhitespace()
                let k = try sc.parseString()
                sc.skipWhitespace()
                try sc.expect(0x3A, .colon)
                sc.skipWhitespace()
                if k == key { found = sc.i }
                try sc.skipValue()
                sc.skipWhitespace()
                guard sc.peek == 0x2C else { break }
                sc.i += 1
            }
        } catch {
            return found
        }
        return found
    }
}
