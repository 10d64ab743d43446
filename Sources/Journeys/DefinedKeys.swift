/// Keys a flow definition names for one kind of a journey's values (the keys its steps
/// collect, or its flags), each numbered by its place in the keys' text order: a journey's
/// values are held by these codes (`KeyedValues`) and written in this order, which is the
/// order the stored form sorts named keys in. Built once by the definition's `JourneyNames`
/// and shared by reference.
package final class DefinedKeys: Sendable {
    /// The keys, sorted by text: a key's code is its index here.
    package let keys: [String]
    /// Each key's code.
    package let codes: [String: Int32]
    /// By code, the key's index in the `JourneyNames` these were built with (how the stored
    /// form writes it).
    package let nameIndexes: [Int]
    /// By index in those names, the code of the key that name is (-1: none).
    package let codeOfName: [Int32]

    /// No keys: every value is held by its key's name.
    package static let none = DefinedKeys(keys: [], nameCount: 0) { _ in nil }

    /// `keys` (any order), each written as its index among `nameCount` names (`index(of:)`,
    /// nil for a key that is not one of them).
    init(keys: [String], nameCount: Int, index: (String) -> Int?) {
        let sorted = keys.sorted()
        self.keys = sorted
        var codes: [String: Int32] = [:]
        for (i, key) in sorted.enumerated() { codes[key] = Int32(i) }
        self.codes = codes
        let indexes = sorted.map { index($0) ?? -1 }
        var codeOfName = [Int32](repeating: -1, count: nameCount)
        for (code, i) in indexes.enumerated() where i >= 0 { codeOfName[i] = Int32(code) }
        // A key without a name index cannot be written by one: then no key is written by code.
        nameIndexes = indexes.contains(-1) ? [] : indexes
        self.codeOfName = codeOfName
    }

    package var count: Int { keys.count }
    package var isEmpty: Bool { keys.isEmpty }
}

extension DefinedKeys {
    /// The codes of `names` (a `ConditionReads`' value keys) among these keys.
    package func codes(of names: [String]) -> KeyCodes {
        KeyCodes(keys: self, codes: names.map { codes[$0] ?? -1 })
    }
}

/// Some keys' codes among one `DefinedKeys` (-1: a key without one), in the keys' order: what
/// reads the same few answers of many journeys finds once.
package struct KeyCodes: Sendable {
    package let keys: DefinedKeys
    package let codes: [Int32]
}
