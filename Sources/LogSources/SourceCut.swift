import FunnelModel

/// A source definition compiled for one scan of a vendor line's bytes: the object levels that
/// hold wanted values (a trie of the definition's paths), each wanted path a slot, and the
/// objects whose members are copied (properties, a flags prefix's container).
struct SourceCut: Sendable {
    /// One object level of the line on the way to wanted values.
    struct Node: Sendable {
        /// The keys wanted here, as bytes.
        var keys: [[UInt8]] = []
        /// The slot of each key's value, or -1.
        var slots: [Int] = []
        /// The node each key's value (an object) is read as, or -1.
        var children: [Int] = []
        /// The member list this object's members go to, or -1.
        var members = -1
        /// A wanted key here holds a byte past ASCII: another spelling of it could be equal
        /// as a `String` (canonical equivalence), so such keys are not told apart by bytes.
        var wide = false
        /// Whether each key is one a properties object leaves out (`Plan.consumed`).
        var consumed: [Bool] = []
        /// The keys a properties object leaves out that are not wanted here.
        var otherConsumed: [[UInt8]] = []
    }

    /// Node 0 is the line's object.
    private(set) var nodes: [Node] = [Node()]
    /// Each slot's path.
    private(set) var paths: [SourcePath] = []
    /// Slots whose object's members are kept (their key and value ranges), in slot order.
    private(set) var memberSlots: [Int] = []

    init(_ d: SourceDefinition) {
        var wanted = SourceDefinition.Field.allCases.flatMap(d.paths)
        if let view = d.stepView { wanted += [view.match] + view.step }
        if let types = d.eventTypes { wanted.append(types.path) }
        switch d.flags {
        case .object(let paths)?: wanted += paths
        case .prefix(let container, _)?: wanted.append(container); memberSlots.append(slot(container))
        case nil: break
        }
        for path in wanted { _ = slot(path) }
        for path in d.paths(.properties) where !memberSlots.contains(slot(path)) { memberSlots.append(slot(path)) }
        for (list, s) in memberSlots.enumerated() { nodes[node(of: paths[s])].members = list }
    }

    /// The node an object at `path` is read as, added when new.
    private mutating func node(of path: SourcePath) -> Int {
        var node = 0
        for key in path.keys {
            let bytes = Array(key.utf8)
            guard let at = nodes[node].keys.firstIndex(of: bytes) else { return 0 }
            if nodes[node].children[at] < 0 {
                nodes.append(Node())
                nodes[node].children[at] = nodes.count - 1
            }
            node = nodes[node].children[at]
        }
        return node
    }

    /// Marks, in each object whose members are kept, the keys a properties object leaves out
    /// (`Plan.consumed`), so that the scan tells each member's fate once.
    mutating func markConsumed(_ keys: [[UInt8]]) {
        for n in nodes.indices where nodes[n].members >= 0 {
            nodes[n].consumed = nodes[n].keys.map(keys.contains)
            nodes[n].otherConsumed = keys.filter { !nodes[n].keys.contains($0) }
        }
    }

    /// Whether the member key at `r` of an object read as `node`, at index `k` among its
    /// keys (-1: none), is one a properties object leaves out.
    func isConsumed(_ r: Range<Int>, at k: Int, node: Int, in b: UnsafeBufferPointer<UInt8>) -> Bool {
        if k >= 0 { return nodes[node].consumed[k] }
        let count = nodes[node].otherConsumed.count
        for c in 0..<count where SourceCutter.equal(nodes[node].otherConsumed[c], r, b) { return true }
        return false
    }

    /// The index among `node`'s keys of the key whose bytes are `r`, or -1.
    func find(_ r: Range<Int>, node: Int, in b: UnsafeBufferPointer<UInt8>) -> Int {
        let count = nodes[node].keys.count
        for k in 0..<count where SourceCutter.equal(nodes[node].keys[k], r, b) { return k }
        return -1
    }

    /// The slot of `path`, added with the nodes on its way when new.
    func slotIndex(_ path: SourcePath) -> Int? { paths.firstIndex(of: path) }

    private mutating func slot(_ path: SourcePath) -> Int {
        if let s = slotIndex(path) { return s }
        var node = 0
        for (depth, key) in path.keys.enumerated() {
            let bytes = Array(key.utf8)
            var at = nodes[node].keys.firstIndex(of: bytes)
            if at == nil {
                nodes[node].keys.append(bytes)
                nodes[node].slots.append(-1)
                nodes[node].children.append(-1)
                if bytes.contains(where: { $0 >= 0x80 }) { nodes[node].wide = true }
                at = nodes[node].keys.count - 1
            }
            guard let at else { break }
            if depth == path.keys.count - 1 {
                nodes[node].slots[at] = paths.count
            } else {
                if nodes[node].children[at] < 0 {
                    nodes.append(Node())
                    nodes[node].children[at] = nodes.count - 1
                }
                node = nodes[node].children[at]
            }
        }
        paths.append(path)
        return paths.count - 1
    }
}
