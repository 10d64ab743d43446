import FunnelModel

extension SourceCutter {
    /// A source definition's fields as the cutter reads them: each field's slots in the
    /// order tried, names and keys as bytes.
    struct Plan: Sendable {
        struct StepView: Sendable {
            var match: Int
            var equals: [UInt8]
            var step: [Int]
        }

        struct EventTypes: Sendable {
            var slot: Int
            var carryEvent: [[UInt8]]
        }

        struct Properties: Sendable {
            var slot: Int
            var list: Int
        }

        var eventID: [Int], userID: [Int], ts: [Int], event: [Int], flow: [Int], step: [Int]
        var appVersion: [Int], platform: [Int]
        var properties: [Properties]
        /// Keys of the properties objects that other fields read.
        var consumed: [[UInt8]]
        var stepView: StepView?
        var eventTypes: EventTypes?
        /// The flags as an object: its slots (empty: flags are not read so).
        var flagSlots: [Int] = []
        /// The flags as members with a prefix: the member list of their container (-1: flags
        /// are not read so), the keys' prefix, and whether it has bytes beyond ASCII. Kept as
        /// plain fields, not an enum's payload: each line reads them in place, without a copy.
        var flagList = -1
        var flagPrefix: [UInt8] = []
        var flagPrefixWide = false
        /// Vendor name → the index of the native name in `quotedNames`.
        var events: [([UInt8], Int)]
        /// The native names the vendor's map to, and then `step_viewed`, quoted.
        var quotedNames: [[UInt8]]
        /// `step_viewed`'s index in `quotedNames`.
        var stepViewed: Int
        /// The default flow, quoted.
        var defaultFlow: [UInt8]?
        var timeFormat: SourceDefinition.TimeFormat

        init(_ d: SourceDefinition, cut: SourceCut, defaultFlow: String?) {
            func slots(_ field: SourceDefinition.Field) -> [Int] { d.paths(field).compactMap(cut.slotIndex) }
            func quoted(_ s: String) -> [UInt8] {
                var out: [UInt8] = []
                JSONValue.writeString(s, into: &out)
                return out
            }
            eventID = slots(.eventID); userID = slots(.userID); ts = slots(.ts); event = slots(.event)
            flow = slots(.flow); step = slots(.step); appVersion = slots(.appVersion); platform = slots(.platform)
            properties = d.paths(.properties).compactMap { path in
                cut.slotIndex(path).flatMap { s in cut.memberSlots.firstIndex(of: s).map { Properties(slot: s, list: $0) } }
            }
            consumed = SourceMapping.consumedKeys(d).map { Array($0.utf8) }
            stepView = d.stepView.flatMap { v in
                cut.slotIndex(v.match).map { StepView(match: $0, equals: Array(v.equals.utf8), step: v.step.compactMap(cut.slotIndex)) }
            }
            eventTypes = d.eventTypes.flatMap { t in
                cut.slotIndex(t.path).map { EventTypes(slot: $0, carryEvent: t.carryEvent.map { Array($0.utf8) }) }
            }
            switch d.flags {
            case .object(let paths)?:
                flagSlots = paths.compactMap(cut.slotIndex)
            case .prefix(let container, let key)?:
                if let s = cut.slotIndex(container), let list = cut.memberSlots.firstIndex(of: s) {
                    flagList = list
                    flagPrefix = Array(key.utf8)
                    flagPrefixWide = flagPrefix.contains { $0 >= 0x80 }
                }
            case nil:
                break
            }
            let mapped = d.events.map { (Array($0.key.utf8), quoted($0.value)) }
            events = mapped.indices.map { (mapped[$0].0, $0) }
            quotedNames = mapped.map(\.1) + [quoted(EventName.stepViewed.rawValue)]
            stepViewed = mapped.count
            self.defaultFlow = defaultFlow.map(quoted)
            timeFormat = d.timeFormat
        }

        /// Whether the members of list `list` hold the flags (their keys start with
        /// `flagPrefix`): those keys are flags, not properties nor values a line's shape could cut.
        func holdsFlags(list: Int) -> Bool { list >= 0 && list == flagList }
    }
}
