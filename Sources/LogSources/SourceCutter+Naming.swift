import FunnelModel

extension SourceCutter {
    enum Name {
        case raw(Value)
        /// A native name, by its index in `Plan.quotedNames` (read there in place).
        case quoted(Int)
    }

    /// The native name, as `SourceMapping`'s naming gives it; a step view's step to `step`.
    func naming(_ b: UnsafeBufferPointer<UInt8>, step: inout Value?) -> Name? {
        if let view = plan.stepView, let v = present(view.match), v.isString {
            guard !v.escaped else { return nil }
            if !Self.equal(view.equals, v.start..<v.end, b) {
                if Self.isWide(v.start..<v.end, b) { return nil }
            } else {
                return viewed(view, &step)
            }
        }
        if let types = plan.eventTypes {
            guard let t = present(types.slot), t.isString, !t.escaped else { return nil }
            if !types.carryEvent.contains(where: { Self.equal($0, t.start..<t.end, b) }) {
                return Self.isWide(t.start..<t.end, b) ? nil : .raw(t)
            }
        }
        var vendor: Value?
        guard string(plan.event, &vendor), let vendor, !vendor.escaped else { return nil }
        // By index: the table's entries are read in place, not copied.
        for e in plan.events.indices where Self.equal(plan.events[e].0, vendor.start..<vendor.end, b) {
            return .quoted(plan.events[e].1)
        }
        return Self.isWide(vendor.start..<vendor.end, b) ? nil : .raw(vendor)
    }

    /// A step view's name, its step (when its line has one) to `step`.
    private func viewed(_ view: Plan.StepView, _ step: inout Value?) -> Name? {
        var viewed: Value?
        guard string(view.step, &viewed) else { return nil }
        if let viewed { step = viewed }
        return .quoted(plan.stepViewed)
    }
}
