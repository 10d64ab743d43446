import FunnelModel

extension Plan {
    /// With `wander`, after the view of `shown[index]` (not the last step): at most one stray
    /// from the path, then back on the step. A jump two steps ahead (a skip, then a back
    /// move); a step the path does not hold (two off-path moves); or days away, then a view
    /// of the first or the previous step of the path before the step again (a return after
    /// the idle window, earlier than the step left).
    func strays(from index: Int, shown: [String], t: inout Int64, rng: inout SplitMix64, emitter: inout Emitter,
                out: inout SimulatedEvents, viewed: inout Set<String>, summary: inout SimulatedUser) {
        guard let here = steps[shown[index]] else { return }
        var target: String?
        let roll = rng.unit()
        if roll < Tuning.wanderSkip, index + 2 < shown.count {
            t += Int64(rng.logUniform(2, 20) * 1000) * 1000
            target = shown[index + 2]
        } else if roll < Tuning.wanderSkip + Tuning.wanderOffPath {
            let off = order.filter { !shown.contains($0) && steps[$0]?.step.kind != .entry }
            guard !off.isEmpty else { return }
            t += Int64(rng.logUniform(2, 20) * 1000) * 1000
            target = off[rng.int(0...(off.count - 1))]
        } else if roll < Tuning.wanderSkip + Tuning.wanderOffPath + Tuning.wanderAway {
            let tracked = shown.prefix(index).filter { steps[$0]?.step.kind != .entry }
            guard let first = tracked.first, let previous = tracked.last else { return }
            t += Int64(rng.logUniform(25 * 3600, 72 * 3600) * 1000) * 1000
            target = rng.chance(0.5) ? first : previous
        }
        guard let target, let info = steps[target] else { return }
        emitter.emit(.stepViewed, step: info.quotedID, at: t, into: &out)
        if viewed.insert(target).inserted { summary.viewedSteps.append(target) }
        t += Int64(rng.logUniform(2, 20) * 1000) * 1000
        emitter.emit(.stepViewed, step: here.quotedID, at: t, into: &out)
        t += Int64(rng.logUniform(2, 20) * 1000) * 1000
    }
}
