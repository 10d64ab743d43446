import FunnelModel

/// The names a flow definition gives, in a fixed order: its step ids, then the keys and values
/// its steps collect, its flags and lanes. The stored form of a journey folded with the
/// definition writes these as their index here.
public struct JourneyNames: Sendable {
    public let names: [String]
    package let index: [String: Int]

    public init(_ definition: FlowDefinition?) {
        var names = definition?.steps.map(\.id) ?? []
        if let definition {
            for step in definition.steps {
                for c in step.collects { names += [c.key] + (c.values ?? []) }
            }
            names += definition.flags.map(\.id)
            names += definition.laneKey.map { [$0] } ?? []
            names += definition.lanes.map(\.id)
        }
        self.init(names: names)
    }

    package init(names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
        self.index = index
    }

    /// No definition: every name is written in full.
    public static let none = JourneyNames(nil)
}
