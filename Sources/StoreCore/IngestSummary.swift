import FunnelModel
import LogFiles
import LineParsing
import LogSources

/// Options for an ingest run.
public struct IngestOptions: Sendable {
    /// Asks callers to treat a quarantined line as a failure (`funnel ingest --strict` exits 1).
    public var strict: Bool
    /// Flow definitions for counting unplanned events. Without any, only event names outside
    /// the v1 vocabulary are counted as unplanned (`IngestSummary.flowsChecked` is false).
    public var flows: [FlowDefinition]
    /// The clock: arrival times in the ledger and the duplicates table.
    public var now: @Sendable () -> Timestamp
    /// Parse on a second thread while this one writes the store.
    public var parallel: Bool
    public var batchLines: Int
    /// The inputs are a vendor's export, read through this source (`ingest --source`); nil:
    /// funnel's own lines.
    public var source: SourceMapping?

    /// Each defined flow's step ids, by flow id (the first definition of an id wins): what a
    /// writer classifies events against (`IngestKey.isPlanned`).
    package var stepsByFlow: [String: Set<String>] {
        Dictionary(flows.map { ($0.id, Set($0.steps.map(\.id))) }, uniquingKeysWith: { a, _ in a })
    }

    /// `batchLines`: nil for the parser's default.
    public init(strict: Bool = false, flows: [FlowDefinition] = [], parallel: Bool = true, batchLines: Int? = nil,
                source: SourceMapping? = nil, now: @escaping @Sendable () -> Timestamp = { Timestamp.now() }) {
        self.strict = strict
        self.source = source
        self.flows = flows
        self.now = now
        self.parallel = parallel
        self.batchLines = batchLines ?? LineParser.defaultBatchLines
    }
}

/// Progress of a run, reported after each batch.
public struct IngestProgress: Sendable {
    public var inputIndex: Int
    public var inputCount: Int
    public var path: String
    /// Bytes of the input read so far (compressed bytes for gzip) and its size.
    public var bytesRead: Int64
    public var size: Int64
    public var lines: Int

    package init(inputIndex: Int, inputCount: Int, path: String, bytesRead: Int64, size: Int64, lines: Int) {
        self.inputIndex = inputIndex
        self.inputCount = inputCount
        self.path = path
        self.bytesRead = bytesRead
        self.size = size
        self.lines = lines
    }
}

/// What one run did. Invariant: `lines == accepted + duplicates + conflicts + quarantined`.
public struct IngestSummary: Sendable, Hashable {
    public struct Unplanned: Sendable, Hashable {
        public var flow: String
        public var step: String?
        public var event: String
        public var count: Int
    }
    public struct Skipped: Sendable, Hashable {
        public var path: String
        public var sha256: String
        /// The path under which this content was ingested before.
        public var previousPath: String
        public var previousOutcome: LedgerEntry.Outcome

        package init(path: String, sha256: String, previousPath: String, previousOutcome: LedgerEntry.Outcome) {
            self.path = path
            self.sha256 = sha256
            self.previousPath = previousPath
            self.previousOutcome = previousOutcome
        }
    }
    /// An input an earlier ingest committed in part, read on from the line after `afterLine`
    /// (this run's counts are of the lines after it).
    public struct Resumed: Sendable, Hashable {
        public var path: String
        public var afterLine: Int

        package init(path: String, afterLine: Int) {
            self.path = path
            self.afterLine = afterLine
        }
    }
    public struct Failure: Sendable, Hashable {
        public var path: String
        public var kind: InputError.Kind
        /// Byte offset in the input file (compressed bytes) where the fault was found.
        public var offset: Int64
        public var message: String
        /// Lines read and kept before the fault (0 when unreadable).
        public var linesKept: Int
        /// Found before any line was read (the input's content hash, a zip archive's checks):
        /// nothing of the input is stored, nor in the ledger.
        public var beforeReading = false

        package init(path: String, kind: InputError.Kind, offset: Int64, message: String, linesKept: Int) {
            self.path = path
            self.kind = kind
            self.offset = offset
            self.message = message
            self.linesKept = linesKept
        }

        /// An input that could not be read at all.
        package static func unreadable(_ path: String, _ e: InputError) -> Failure {
            var failure = Failure(path: path, kind: e.kind, offset: e.offset, message: e.description, linesKept: 0)
            failure.beforeReading = true
            return failure
        }
    }

    /// Inputs named (after expanding directories), skipped ones included.
    public var files = 0
    public var lines = 0
    public var accepted = 0
    public var duplicates = 0
    public var conflicts = 0
    public var quarantined = 0
    public var unplanned = 0
    public var unplannedBy: [Unplanned] = []
    /// True when unplanned counts were checked against flow definitions.
    public var flowsChecked = false
    public var quarantinedBy: [Rejection.Code: Int] = [:]
    public var skipped: [Skipped] = []
    public var resumed: [Resumed] = []
    /// Partial (truncated/corrupt) and unreadable inputs.
    public var failures: [Failure] = []
    public var elapsedSeconds = 0.0

    public init() {}

    public var eventsPerSecond: Double { elapsedSeconds > 0 ? Double(lines) / elapsedSeconds : 0 }
    public var isBalanced: Bool { lines == accepted + duplicates + conflicts + quarantined }
    /// True when some input is partial or unreadable, including a skipped input that was
    /// recorded as partial before.
    public var hasInputFailures: Bool {
        !failures.isEmpty || skipped.contains { $0.previousOutcome == .partial }
    }

    /// 0 when every line is accounted for, 1 with `strict` when a line was quarantined,
    /// 2 when an input is unreadable or partial.
    public func exitCode(strict: Bool) -> Int32 {
        if hasInputFailures { return 2 }
        if strict && quarantined > 0 { return 1 }
        return 0
    }
}

extension Timestamp {
    /// The current time from the system clock.
    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(micros: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
