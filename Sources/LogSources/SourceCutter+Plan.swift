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

        enum Flags: Sendable {
            case object([Int])
            /// The member list of the container, and the prefix of its flag keys.
            case prefix(list: Int, prefix: [UInt8])
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
        var flags: Flags?
        /// Vendor name → the native name, quoted.
        var events: [([UInt8], [UInt8])]
        var stepViewed: [UInt8]
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
                flags = .object(paths.compactMap(cut.slotIndex))
            case .prefix(let container, let key)?:
                if let s = cut.slotIndex(container), let list = cut.memberSlots.firstIndex(of: s) {
                    flags = .prefix(list: list, prefix: Array(key.utf8))
                }
            case nil:
                flags = nil
            }
            events = d.events.map { (Array($0.key.utf8), quoted($0.value)) }
            stepViewed = quoted(EventName.stepViewed.rawValue)
            self.defaultFlow = defaultFlow.map(quoted)
            timeFormat = d.timeFormat
        }

        /// The prefix of the flag keys among the members of list `list` (nil: they hold none):
        /// those keys are flags, not properties nor values a line's shape could cut.
        func flagPrefix(ofList list: Int) -> [UInt8]? {
            if case .prefix(let flagList, let prefix)? = flags, flagList == list { return prefix }
            return nil
        }
    }
}
