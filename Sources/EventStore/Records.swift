import FunnelModel
import EventLog
import GRDB

/// A migration added by another module (projections), registered after the store's own.
/// Like the store's migrations, a shipped migration is never edited: add a new one.
public struct StoreMigration: Sendable {
    public var name: String
    public var migrate: @Sendable (Database) throws -> Void

    public init(name: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        self.name = name
        self.migrate = migrate
    }
}

/// Told about newly accepted events (never duplicates or conflicts) inside the ingest write
/// transaction, after each batch, so that what it writes commits together with the events.
public protocol IngestObserver {
    func didAppend(_ events: [RecordedEvent], in db: Database) throws
    /// Called once per input, inside its transaction, after its last batch and ledger row:
    /// the place to do work once per input instead of once per batch.
    func willCommit(in db: Database) throws
    /// Like `willCommit(in:)`, also told which users' first events in the store (any flow)
    /// arrived with this input: they had no events before it. The default calls `willCommit(in:)`.
    func willCommit(in db: Database, newUsers: Set<String>) throws
    /// Whether `didAppend` needs each event's line (default true); without, lines are empty.
    var wantsLines: Bool { get }
    /// The fast path (default nil). When given, the ingestor hands the sink every decoded
    /// event of one input on the parsing thread (duplicates included, in line order) and calls
    /// `didAccept(line:seq:)` on the writing thread for every accepted line, instead of
    /// `didAppend`. Called once per input before it is read: a new sink each time. The next
    /// input may be read ahead, into its own sink, while this one is still being written; a
    /// sink whose input is skipped is dropped unused.
    func parsedEventSink() -> (any ParsedEventSink)?
    /// Called on the writing thread inside an input's transaction, before its first batch is
    /// written: its events went to `sink` (one `parsedEventSink()` gave).
    func willRead(sink: any ParsedEventSink)
    /// An accepted line's seq (see `parsedEventSink`): every accepted line, in line order.
    func didAccept(line: Int, seq: Int64)
    /// Like `willCommit(in:newUsers:)`; `more` is true when another input of the same ingest
    /// follows. The observer may then leave the input's work for later (`didCommit` starts
    /// it off the writing thread, the next `willCommit` or `finish` writes it), provided the
    /// store records what is left undone, so that a run killed in between is completed by
    /// the next one. The default calls `willCommit(in:newUsers:)`.
    func willCommit(in db: Database, newUsers: Set<String>, more: Bool) throws
    /// Called inside an input's transaction after each batch of its lines is written, and
    /// while the writing thread waits for the next batch.
    func betweenBatches(in db: Database) throws
    /// Called after an input's transaction committed (not for a skipped input).
    func didCommit(store: EventStore)
    /// Called once after the last input of an ingest, outside any transaction: the place to
    /// write work left for later.
    func finish(store: EventStore) throws
}

extension IngestObserver {
    public func willCommit(in db: Database) throws {}
    public func willCommit(in db: Database, newUsers: Set<String>) throws { try willCommit(in: db) }
    public var wantsLines: Bool { true }
    public func parsedEventSink() -> (any ParsedEventSink)? { nil }
    public func willRead(sink: any ParsedEventSink) {}
    public func didAccept(line: Int, seq: Int64) {}
    public func willCommit(in db: Database, newUsers: Set<String>, more: Bool) throws {
        try willCommit(in: db, newUsers: newUsers)
    }
    public func betweenBatches(in db: Database) throws {}
    public func didCommit(store: EventStore) {}
    public func finish(store: EventStore) throws {}
}

/// An event as the log holds it, with where it came from.
public struct StoredEvent: Sendable, Hashable {
    public var recorded: RecordedEvent
    public var inputID: Int64
    public var lineNumber: Int

    public init(recorded: RecordedEvent, inputID: Int64, lineNumber: Int) {
        self.recorded = recorded
        self.inputID = inputID
        self.lineNumber = lineNumber
    }
}

/// A copy of an accepted event that arrived again with the same body.
public struct DuplicateCopy: Sendable, Hashable {
    public var eventID: String
    public var inputPath: String
    public var line: Int
    /// When the ingest that read the copy started.
    public var arrivedAt: Timestamp
}

/// A line that reused an accepted event's `event_id` with a different body, kept verbatim.
public struct ConflictCopy: Sendable, Hashable {
    public var eventID: String
    public var inputPath: String
    public var line: Int
    public var arrivedAt: Timestamp
    public var text: String
}

/// A rejected line, kept byte for byte.
public struct QuarantineEntry: Sendable, Hashable {
    public var inputPath: String
    public var line: Int
    /// Offset of the line in the uncompressed input.
    public var byteOffset: Int64
    public var code: Rejection.Code
    public var reason: String
    /// The line's bytes (without its newline; at most 1 MiB of an oversized line).
    public var raw: [UInt8]
}

/// One row of the inputs ledger.
public struct LedgerEntry: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable {
        case complete, partial
    }
    public var id: Int64
    public var path: String
    /// SHA-256 of the input's bytes as read (compressed bytes for gzip), lowercase hex.
    public var sha256: String
    public var size: Int64
    public var lines: Int
    public var accepted: Int
    public var duplicates: Int
    public var conflicts: Int
    public var quarantined: Int
    public var unplanned: Int
    public var outcome: Outcome
    public var error: String?
    public var startedAt: Timestamp
    public var finishedAt: Timestamp
}

/// A store failure, saying what the store was doing.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var doing: String
    public var reason: String

    public init(doing: String, reason: String) {
        self.doing = doing
        self.reason = reason
    }

    public var description: String { "store: while \(doing): \(reason)" }
}
