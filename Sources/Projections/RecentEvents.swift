import Journeys
import Workers

/// The held events of the users new with the last inputs an ingest committed (each one's whole
/// history in the store then), kept while the next input is folded: a user who comes back
/// there with an event earlier than their last (a session across the cut between two files)
/// is folded again from these and the new events, not from the log.
///
/// An input's events are kept under its sink (`CommittedInput.events`) and read only once
/// it has committed (`committed(_:)`): an input whose transaction rolled back never is.
final class RecentEvents: Sendable {
    /// One input's kept events, by user and flow, and the parts they refer to.
    private struct Input {
        /// The input's sink: held, so that no other input's has its identity.
        let owner: AnyObject
        /// Nil until the first event is kept.
        var table: EventTable?
        var events: [JourneyKey: [HeldEvent]] = [:]
        var count = 0
        var committed = false
    }

    /// Inputs in the order they were kept.
    private let inputs = Locked<[Input]>([])
    /// Events kept for one input at most: past it, the next ones are not kept.
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Keeps the events of a user new with the input of `owner` (`table`: its parts).
    func keep(_ key: JourneyKey, _ events: [HeldEvent], table: EventTable, owner: AnyObject) {
        inputs.withLock { inputs in
            let i = RecentEvents.entry(of: owner, in: &inputs)
            guard inputs[i].count + events.count <= limit else { return }
            if inputs[i].table == nil { inputs[i].table = table }
            inputs[i].events[key] = events
            inputs[i].count += events.count
        }
    }

    /// The input of `owner` has committed: its events may be read (those kept after this too:
    /// its new users' fold may still be running). Inputs kept before it that did not commit
    /// never will, and only the last committed ones are kept (`kept(_:)`).
    func committed(_ owner: AnyObject) {
        inputs.withLock { inputs in
            let i = RecentEvents.entry(of: owner, in: &inputs)
            inputs[i].committed = true
            inputs = kept(inputs[..<i].filter(\.committed)) + inputs[i...]
        }
    }

    /// Of the committed inputs before the one that just committed, those kept: the last one,
    /// and the ones before it while all their events together stay within `limit`. Many small
    /// inputs (several files a day) keep as many events as one daily file, so a user whose
    /// earlier events lie a few files back still folds from them.
    private func kept(_ earlier: [Input]) -> [Input] {
        var count = 0, events = 0
        for input in earlier.reversed() {
            guard count == 0 || events + input.count <= limit else { break }
            events += input.count
            count += 1
        }
        return Array(earlier.suffix(count))
    }

    /// The index of `owner`'s input in `inputs`, added when it has none.
    private static func entry(of owner: AnyObject, in inputs: inout [Input]) -> Int {
        if let i = inputs.lastIndex(where: { $0.owner === owner }) { return i }
        inputs.append(Input(owner: owner))
        return inputs.count - 1
    }

    /// The events a committed input kept for `key` (the latest such input), and their parts.
    func previous(_ key: JourneyKey) -> (table: EventTable, events: [HeldEvent])? {
        inputs.withLock { inputs in
            for input in inputs.reversed() where input.committed {
                if let table = input.table, let events = input.events[key] { return (table, events) }
            }
            return nil
        }
    }

    /// Forgets every kept event.
    func clear() {
        inputs.withLock { $0 = [] }
    }
}
