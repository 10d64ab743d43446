import FunnelModel

extension DropoffExplanation {
    /// What the users who dropped at `scope.step` did last on it: each one's last event on
    /// the step (fold order, up to `asOf`), by name and key properties, with the share of
    /// those users; most users first.
    ///
    /// - Parameter events: one user's events in the flow, in fold order (`EventLogReading`).
    static func lastEvents(of users: [String], scope: DropoffScope, asOf: Timestamp,
                           events: (String) throws -> [RecordedEvent]) rethrows -> [LastEvent] {
        guard !users.isEmpty else { return [] }
        var tally: [Seen: Int] = [:]
        for user in users {
            let onStep = try events(user).filter { $0.event.step == scope.step && $0.event.time <= asOf }
            guard let last = onStep.max(by: RecordedEvent.foldOrder) else { continue }
            tally[Seen(last.event, scope: scope), default: 0] += 1
        }
        return tally.map { e, n in
            LastEvent(event: e.event, properties: e.properties, users: n, share: Double(n) / Double(users.count))
        }.sorted { $0.users != $1.users ? $0.users > $1.users : $0.text < $1.text }
    }

    /// An event as the tally counts it: its name without the v1 prefix, and its properties
    /// as text except free-form answers (a height or a user id would make every user a row).
    struct Seen: Hashable {
        var event: String
        var properties: [String: String]

        init(_ e: Event, scope: DropoffScope) {
            event = e.known != nil && e.name.hasPrefix(EventName.prefix) ? String(e.name.dropFirst(EventName.prefix.count)) : e.name
            properties = [:]
            for (k, v) in e.properties where !scope.freeFormKeys.contains(k) { properties[k] = v.textValue }
        }
    }
}
