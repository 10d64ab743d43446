import FunnelModel
import LogFiles
import LineParsing
import StoreCore

/// The events of one input grouped by user and flow on the parsing thread (within a buffer
/// limit), their seq holding the line number until the input's accepted lines
/// (`AcceptedLines`) give the real one. The parsing thread touches it while it reads the
/// input; the store's observer adopts it on the writing thread when the input commits, after
/// the parse finished.
/// Unchecked: a value handed across a queue (the parse's end), never touched by two threads
/// at once; a lock would cost every event.
package final class ParsedGroups: ParsedEventSink, @unchecked Sendable {
    package let bufferLimit: Int
    /// Whether the ingest may end the input's segment at a new day (`detach()`).
    package let segmented: Bool
    /// Users and flows in first-touch order.
    package var order: [JourneyKey] = []
    /// Each of `order`'s list in `lists`, or -1: past the buffer limit, folded from the log.
    package var slots: [Int] = []
    package var lists: [[HeldEvent]] = []
    package var parts = EventParts()
    private var count = 0
    /// Each key's index in `order`.
    private var index: [JourneyKey: Int] = [:]
    /// By the line's user number: the index in `order` of that user's first key, or -1. Most
    /// lines find their key here, without hashing the user id and flow.
    private var byUser: [Int32] = []

    package init(bufferLimit: Int, segmented: Bool = true) {
        self.bufferLimit = bufferLimit
        self.segmented = segmented
    }

    package var room: Int { bufferLimit - count }

    package var held: Int { count }

    package func detach() -> (any ParsedEventSink)? {
        guard segmented else { return nil }
        let ended = ParsedGroups(bufferLimit: bufferLimit)
        swap(&ended.order, &order)
        swap(&ended.slots, &slots)
        swap(&ended.lists, &lists)
        swap(&ended.parts, &parts)
        swap(&ended.count, &count)
        swap(&ended.index, &index)
        swap(&ended.byUser, &byUser)
        return ended
    }

    package func forgetAll() {
        order = []
        slots = []
        lists = []
        parts = EventParts()
        count = 0
        index = [:]
        byUser = []
    }

    package func take(line: Int, user: Int32, key: Int32, shape: Int32, envelope env: Envelope,
                      in b: UnsafeBufferPointer<UInt8>) {
        let names = parts.names(ofKey: key, env, in: b)
        let flow = parts.names[Int(names)].flow
        let u = Int(user)
        let k: Int
        if u >= 0, u < byUser.count, byUser[u] >= 0, order[Int(byUser[u])].flow == flow {
            k = Int(byUser[u])
        } else {
            let key = JourneyKey(flow: flow, user: env.userID.string(in: b))
            if u >= byUser.count { byUser.append(contentsOf: repeatElement(-1, count: u + 1 - byUser.count)) }
            if let known = index[key] {
                k = known
            } else {
                // A new key gets an empty list, or none past the limit.
                k = order.count
                order.append(key)
                index[key] = k
                if u >= 0, byUser[u] < 0 { byUser[u] = Int32(k) }
                if count < bufferLimit {
                    slots.append(lists.count)
                    lists.append(ParsedGroups.newList(expecting: count / max(1, lists.count)))
                } else {
                    slots.append(-1)
                }
            }
        }
        let i = slots[k]
        guard i >= 0 else { return }
        if count >= bufferLimit {
            count -= lists[i].count
            lists[i] = []
            slots[k] = -1
            return
        }
        lists[i].append(parts.hold(seq: Int64(line), names: names, shape: shape, env, in: b))
        count += 1
    }

    /// A list with room for `expected` events (the input's average so far; at most
    /// `Tuning.heldListStart`): all lists together reserve at most about twice the events.
    private static func newList(expecting expected: Int) -> [HeldEvent] {
        var list: [HeldEvent] = []
        list.reserveCapacity(min(Tuning.heldListStart, expected + 1))
        return list
    }
}

extension ParsedGroups {
    /// Hands each user and flow's accepted events on, in first-touch order, with their real
    /// seqs, moving them out: events whose line was not accepted (a duplicate, a conflict) are
    /// dropped, and a user and flow left with none is skipped. nil: past the buffer limit,
    /// to be folded from the log. Leaves the groups empty.
    package func takeAccepted(_ accepted: AcceptedLines, _ body: (JourneyKey, [HeldEvent]?) -> Void) {
        defer {
            order = []
            slots = []
            lists = []
            index = [:]
            byUser = []
            count = 0
        }
        let accepted = accepted.byLine
        for (k, key) in order.enumerated() {
            let i = slots[k]
            guard i >= 0 else {
                body(key, nil)
                continue
            }
            // Taken out of the list (so that rewriting seqs does not copy them).
            var events: [HeldEvent] = []
            swap(&events, &lists[i])
            var kept = 0
            for i in events.indices {
                if let s = accepted.seq(ofLine: Int(events[i].seq)) {
                    events[i].seq = s
                    if kept != i { events.swapAt(kept, i) }
                    kept += 1
                }
            }
            events.removeLast(events.count - kept)
            if !events.isEmpty { body(key, events) }
        }
    }
}
