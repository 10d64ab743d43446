import FunnelModel

extension DropoffExplanation {
    /// What the users who dropped at the step did last on it: each one's last event on the
    /// step (fold order, up to as-of), by name and key properties, with the share of those
    /// users; most users first.
    ///
    /// - Parameter last: by user, their last event on the step (`EventLogReading.lastEvents`).
    static func lastEvents(of users: [String], scope: DropoffScope, last: [String: RecordedEvent]) -> [LastEvent] {
        lastEvents(users.compactMap { last[$0]?.event }, among: users.count, freeFormKeys: scope.freeFormKeys)
    }

    /// `events` tallied by name and properties (without `freeFormKeys`), each with its share
    /// of `total` users; most users first.
    static func lastEvents(_ events: [Event], among total: Int, freeFormKeys: Set<String>) -> [LastEvent] {
        var tally: [Seen: Int] = [:]
        for e in events { tally[Seen(e, freeFormKeys: freeFormKeys), default: 0] += 1 }
        return lastEvents(tally, among: total)
    }

    /// Events already tallied, each with its share of `total` users; most users first.
    static func lastEvents(_ tally: [Seen: Int], among total: Int) -> [LastEvent] {
        guard total > 0 else { return [] }
        return tally.map { e, n in
            LastEvent(event: e.event, properties: e.properties, users: n, share: Double(n) / Double(total))
        }.sorted { a, b in
            if a.users != b.users { return a.users > b.users }
            if a.text != b.text { return a.text < b.text }
            // The same text from other properties (a value holding "="): by the pairs themselves.
            let pa = a.properties.sorted { $0.key < $1.key }, pb = b.properties.sorted { $0.key < $1.key }
            return (a.event, pa.count) != (b.event, pb.count) ? (a.event, pa.count) < (b.event, pb.count)
                : pa.lexicographicallyPrecedes(pb) { ($0.key, $0.value) < ($1.key, $1.value) }
        }
    }

    /// An event as the tally counts it: its name without the v1 prefix, and its properties
    /// as text except free-form answers (a height or a user id would make every user a row).
    struct Seen: Hashable {
        var event: String
        var properties: [String: String]

        init(_ e: Event, freeFormKeys: Set<String>) {
            event = e.known != nil && e.name.hasPrefix(EventName.prefix) ? String(e.name.dropFirst(EventName.prefix.count)) : e.name
            properties = [:]
            for (k, v) in e.properties where !freeFormKeys.contains(k) { properties[k] = v.textValue }
        }
    }
}

extension DropoffExplanation.LastEvent {
    /// Whether this last event is the step view itself: the user did nothing after it.
    var isTheView: Bool { event == "step_viewed" && properties.isEmpty }
}
