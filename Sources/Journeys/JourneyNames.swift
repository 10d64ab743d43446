import FunnelModel
import LogFiles

/// The names a flow definition gives, in a fixed order: its step ids, then the keys and values
/// its steps collect, its flags and lanes. The stored form of a journey folded with the
/// definition writes these as their index here. Shared by reference: every journey of the
/// flow is written and read with one, and a copy is one retain instead of one a table.
public final class JourneyNames: Sendable {
    public let names: [String]
    /// Each distinct name's bytes, numbered in first-seen order, and the index in `names` of
    /// each number's first occurrence: a journey's keys and values are looked up by their
    /// bytes, without hashing each `String` anew.
    private let interned: ByteInterner
    private let firstIndex: [Int]
    /// By index in `names`, the rank of a first occurrence among the distinct names in the
    /// strings' own order (`<`): keys the definition names sort by it without comparing text.
    private let ranks: [Int32]
    /// The keys the definition's steps collect and its flags, numbered (`DefinedKeys`): a
    /// journey's answers and flags held by these codes are written by them.
    package let answerKeys: DefinedKeys
    package let flagKeys: DefinedKeys

    public convenience init(_ definition: FlowDefinition?) {
        var names = definition?.steps.map(\.id) ?? []
        var keys: [String] = []
        if let definition {
            for step in definition.steps {
                for c in step.collects {
                    names += [c.key] + (c.values ?? [])
                    keys.append(c.key)
                }
            }
            names += definition.flags.map(\.id)
            names += definition.laneKey.map { [$0] } ?? []
            names += definition.lanes.map(\.id)
        }
        self.init(names: names, answerKeys: Array(Set(keys)), flagKeys: Array(Set(definition?.flags.map(\.id) ?? [])))
    }

    /// `names` in order; `answerKeys` and `flagKeys` (each one of them) numbered as `DefinedKeys`.
    package init(names: [String], answerKeys: [String] = [], flagKeys: [String] = []) {
        self.names = names
        var interned = ByteInterner()
        var firstIndex: [Int] = []
        for (i, name) in names.enumerated() {
            var name = name
            if name.withUTF8({ interned.intern($0).isNew }) { firstIndex.append(i) }
        }
        self.interned = interned
        self.firstIndex = firstIndex
        var ranks = [Int32](repeating: -1, count: names.count)
        for (rank, i) in firstIndex.sorted(by: { names[$0] < names[$1] }).enumerated() { ranks[i] = Int32(rank) }
        self.ranks = ranks
        func index(_ key: String) -> Int? {
            var key = key
            return key.withUTF8 { interned.lookup($0) }.map { firstIndex[$0] }
        }
        self.answerKeys = answerKeys.isEmpty ? .none : DefinedKeys(keys: answerKeys, nameCount: names.count, index: index)
        self.flagKeys = flagKeys.isEmpty ? .none : DefinedKeys(keys: flagKeys, nameCount: names.count, index: index)
    }

    /// The rank of the name at `index` (one `index(of:)` gave) in the strings' own order.
    package func rank(ofIndex index: Int) -> Int32 { ranks[index] }

    /// The index of `name`'s first occurrence in `names`, nil when it is not one of them.
    package func index(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { interned.lookup($0) }.map { firstIndex[$0] }
    }

    /// No definition: every name is written in full.
    public static let none = JourneyNames(nil)
}
