import FunnelModel

/// A journey's answers or flags (`Journey.values`, `Journey.flags`), key to value, as a
/// dictionary reads them: the keys its flow definition names held in a slot by their code
/// (`DefinedKeys`), so that folding and saving a journey hash no key; any other key by its
/// name. A key the definition names is held, and given back, in the definition's spelling.
public struct KeyedValues: Sendable {
    /// The codes the slots are by.
    package let keys: DefinedKeys
    /// By code, the key's value (empty before the first).
    private var slots: [JSONValue?] = []
    /// Keys without a code.
    private var others: [String: JSONValue] = [:]
    public private(set) var count = 0

    /// No answers yet, held by `keys`' codes.
    package init(keys: DefinedKeys) {
        self.keys = keys
    }

    /// `values`, each held by its name.
    public init(_ values: [String: JSONValue] = [:]) {
        keys = .none
        others = values
        count = values.count
    }

    public var isEmpty: Bool { count == 0 }

    public subscript(key: String) -> JSONValue? {
        get {
            if let code = keys.codes[key] { return value(code: code) }
            return others[key]
        }
        set {
            if let code = keys.codes[key] {
                set(newValue, code: code)
            } else if let newValue {
                if others.updateValue(newValue, forKey: key) == nil { count += 1 }
            } else if others.removeValue(forKey: key) != nil {
                count -= 1
            }
        }
    }

    /// The value of the key with `code` (one of `keys`' codes).
    @inline(__always)
    package func value(code: Int32) -> JSONValue? {
        let i = Int(code)
        return i < slots.count ? slots[i] : nil
    }

    /// Sets the value of the key with `code` (one of `keys`' codes).
    @inline(__always)
    package mutating func set(_ value: JSONValue?, code: Int32) {
        if slots.isEmpty {
            if value == nil { return }
            slots = [JSONValue?](repeating: nil, count: keys.count)
        }
        let i = Int(code)
        count += (value == nil ? 0 : 1) - (slots[i] == nil ? 0 : 1)
        slots[i] = value
    }

    /// Whether every value is held by its code (none by name).
    package var allCoded: Bool { others.isEmpty }

    /// The values held by code, in code order (the keys' text order), with their codes.
    package func forEachCoded(_ body: (Int, JSONValue) -> Void) {
        for i in slots.indices {
            if let v = slots[i] { body(i, v) }
        }
    }

    /// These values held by `keys`' codes where they have one.
    package func coded(by keys: DefinedKeys) -> KeyedValues {
        guard keys !== self.keys else { return self }
        var out = KeyedValues(keys: keys)
        for (key, v) in self { out[key] = v }
        return out
    }

    /// Calls `body` with each pair in the keys' text order.
    package func forEachSorted(_ body: (String, JSONValue) -> Void) {
        guard others.isEmpty else {
            for (k, v) in dictionary.sorted(by: { $0.key < $1.key }) { body(k, v) }
            return
        }
        for i in slots.indices {
            if let v = slots[i] { body(keys.keys[i], v) }
        }
    }

    /// The values as a dictionary.
    public var dictionary: [String: JSONValue] {
        var out = others
        out.reserveCapacity(count)
        forEachCoded { i, v in out[keys.keys[i]] = v }
        return out
    }
}

extension KeyedValues: Sequence {
    /// The pairs: those held by code in code order, then the others.
    public func makeIterator() -> AnyIterator<(key: String, value: JSONValue)> {
        var coded = slots.indices.makeIterator()
        var named = others.makeIterator()
        let keys = keys.keys, slots = slots
        return AnyIterator {
            while let i = coded.next() {
                if let v = slots[i] { return (keys[i], v) }
            }
            return named.next()
        }
    }

    public var underestimatedCount: Int { count }
}

extension KeyedValues: Hashable {
    /// The same pairs, however each is held.
    public static func == (a: KeyedValues, b: KeyedValues) -> Bool {
        guard a.count == b.count else { return false }
        return a.allSatisfy { b[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(dictionary)
    }
}

extension KeyedValues: Codable {
    /// Encoded as the dictionary of its pairs.
    public init(from decoder: Decoder) throws {
        self.init(try [String: JSONValue](from: decoder))
    }

    public func encode(to encoder: Encoder) throws {
        try dictionary.encode(to: encoder)
    }
}

extension KeyedValues: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension KeyedValues: CustomStringConvertible {
    public var description: String { dictionary.description }
}

extension KeyedValues {
    /// The value of the `i`th of `keys`' keys, `name`: by its code when these values are held
    /// by the same codes, else by its name.
    @inline(__always)
    package func value(_ i: Int, of keys: KeyCodes, name: String) -> JSONValue? {
        guard keys.keys === self.keys else { return self[name] }
        let code = keys.codes[i]
        return code >= 0 ? value(code: code) : others[name]
    }
}
