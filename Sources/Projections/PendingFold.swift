import Journeys
import Workers
import LineParsing
/// One input's touched journeys, waiting to be folded: the events buffered per user and
/// flow (nil: fold from the log), in first-touch order.
struct PendingFold: Sendable {
    var order: [JourneyKey]
    var buffered: [JourneyKey: [HeldEvent]?]
    /// The parts the held events refer to, as their folds read them (one table for all).
    var table: EventTable
    /// The input's first seq (`.max` when it added no events).
    var firstSeq: Int64
    /// Users whose first events in the store came with this input.
    var newUsers: Set<String>
    /// The store's last seq with this input in: the watermark once its journeys are written.
    var through: Int64
    /// The journeys folded before the input committed (`FoldContext.foldNew`), taken out.
    var folded = ProjectionUpdater.Counts()
    /// The input's sink: what its new users' events are kept under for the inputs after it
    /// (`RecentEvents`; nil: not kept).
    var input: (any ParsedEventSink)? = nil
}

extension PendingFold {
    /// Moves the users new with this input, with their held events, into a pending fold of
    /// their own (what `FoldContext.foldNew` folds), leaving the rest here in their order.
    mutating func takeNewUsers() -> PendingFold {
        var new = self
        new.order = order.filter { key in newUsers.contains(key.user) && (buffered[key] ?? nil) != nil }
        let keys = Set(new.order)
        new.buffered = [:]
        for key in new.order { new.buffered[key] = buffered.removeValue(forKey: key) }
        order.removeAll { keys.contains($0) }
        return new
    }
}

/// A pending fold handed to the thread that folds it, so that the thread holds its only
/// reference (and can let go of each journey's events as it goes).
final class PendingBox: Sendable {
    private let value: Locked<PendingFold?>
    let through: Int64

    init(_ value: PendingFold) {
        self.value = Locked(value)
        through = value.through
    }

    func take() -> PendingFold? {
        value.withLock { value in
            defer { value = nil }
            return value
        }
    }

    /// Hands a pending fold back, for the thread that goes on with it.
    func put(_ pending: PendingFold) {
        value.withLock { $0 = pending }
    }
}
