import FunnelModel
import LogFiles

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

    public init(eventID: String, inputPath: String, line: Int, arrivedAt: Timestamp) {
        self.eventID = eventID
        self.inputPath = inputPath
        self.line = line
        self.arrivedAt = arrivedAt
    }
}

/// A line that reused an accepted event's `event_id` with a different body, kept verbatim.
public struct ConflictCopy: Sendable, Hashable {
    public var eventID: String
    public var inputPath: String
    public var line: Int
    public var arrivedAt: Timestamp
    public var text: String

    public init(eventID: String, inputPath: String, line: Int, arrivedAt: Timestamp, text: String) {
        self.eventID = eventID
        self.inputPath = inputPath
        self.line = line
        self.arrivedAt = arrivedAt
        self.text = text
    }
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

    public init(inputPath: String, line: Int, byteOffset: Int64, code: Rejection.Code, reason: String, raw: [UInt8]) {
        self.inputPath = inputPath
        self.line = line
        self.byteOffset = byteOffset
        self.code = code
        self.reason = reason
        self.raw = raw
    }
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

    public init(id: Int64, path: String, sha256: String, size: Int64, lines: Int, accepted: Int, duplicates: Int,
                conflicts: Int, quarantined: Int, unplanned: Int, outcome: Outcome, error: String?,
                startedAt: Timestamp, finishedAt: Timestamp) {
        self.id = id
        self.path = path
        self.sha256 = sha256
        self.size = size
        self.lines = lines
        self.accepted = accepted
        self.duplicates = duplicates
        self.conflicts = conflicts
        self.quarantined = quarantined
        self.unplanned = unplanned
        self.outcome = outcome
        self.error = error
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}
