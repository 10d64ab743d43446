import FunnelModel

/// Which stored events a store's `forEachLine` (export) gives back: all of them, or those of
/// one flow, one user, and event times in `[since, until)`.
public struct EventSelection: Sendable, Hashable {
    public var flow: String?
    public var user: String?
    public var since: Timestamp?
    public var until: Timestamp?

    public init(flow: String? = nil, user: String? = nil, since: Timestamp? = nil, until: Timestamp? = nil) {
        self.flow = flow
        self.user = user
        self.since = since
        self.until = until
    }

    package func holds(micros: Int64) -> Bool {
        (since.map { micros >= $0.micros } ?? true) && (until.map { micros < $0.micros } ?? true)
    }
}
