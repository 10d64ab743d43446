import FunnelModel
import EventLog
import GRDB

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
