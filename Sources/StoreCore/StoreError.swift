import FunnelModel
import LogFiles

/// A store failure: what the store was doing, why, and its kind, which a caller matches to
/// tell failures apart (the CLI's exit status, a retry) without reading the message.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The kinds of store failure a caller can act on differently.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A failure of no other kind (the default).
        case failed
        /// Another writer holds the store (an ingest or rebuild), or the database stayed
        /// locked: the same command can succeed once it ends.
        case busy
        /// The path holds no store this funnel can open: a file that is not a database, or
        /// a store in a format this funnel does not read as it is (one an older funnel wrote,
        /// opened by a user who cannot upgrade it).
        case notAStore
        /// The store contradicts itself: a stored line that does not decode, an event indexed
        /// but not stored, a row without its key, a database file SQLite finds damaged.
        case corrupt
    }

    public var kind: Kind
    public var doing: String
    public var reason: String

    public init(doing: String, reason: String, kind: Kind = .failed) {
        self.doing = doing
        self.reason = reason
        self.kind = kind
    }

    public var description: String { "store: while \(doing): \(reason)" }
}

extension StoreError.Kind {
    /// The kind of `error`: its own when it is a `StoreError`, else `failed`.
    public init(of error: any Error) {
        self = (error as? StoreError)?.kind ?? .failed
    }
}
