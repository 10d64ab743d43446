import Foundation
import FunnelModel
import LogFiles
import LineParsing
import StoreCore
import Workers

/// The third backend, in memory: it implements the core's write protocol (`IngestBackend`,
/// driven by the one `IngestDriver`) and its read protocol (`EventLogReading`) and nothing
/// else, so that tests can show a store needs no more than that to ingest, report, list
/// users, explain, replay, export and rebuild with the same outputs as SQLite
/// (`MemoryBackendTests`). Plain arrays, no indexes: for test data.
public final class MemoryStore: Sendable {
    /// The log and its side tables (in `log`: reports read from several threads).
    struct Log {
        var events: [RecordedEvent] = []
        /// Index in `events` by event id (the first arrival wins).
        var byID: [String: Int] = [:]
        var ledger: [LedgerEntry] = []
        var quarantine: [QuarantineEntry] = []
        var duplicates: [String: [DuplicateCopy]] = [:]
        var conflicts: [ConflictCopy] = []
        /// What each input's plan said of the inputs after it (`InputPlan.linesAfter`), in order.
        var linesAfter: [Int64] = []
    }

    private let log = Locked(Log())
    let options: IngestOptions

    public init(options: IngestOptions) { self.options = options }

    /// Ingests `inputs` through the one ingest driver, as every store does.
    public func ingest(_ inputs: [InputSource]) throws -> IngestSummary {
        try IngestDriver(backend: self, options: options).run(inputs, progress: nil)
    }

    /// Every conflicting copy, in arrival order.
    public var conflicts: [ConflictCopy] { log.withLock { $0.conflicts } }

    /// The lines each input's plan said the inputs after it hold at most, in order (skipped
    /// ones too).
    public var plannedLinesAfter: [Int64] { log.withLock { $0.linesAfter } }

    func read<T>(_ body: (Log) throws -> T) rethrows -> T {
        try log.withLock { try body($0) }
    }
}

// MARK: writing

extension MemoryStore: IngestBackend {
    package func makeEventSink() -> (any ParsedEventSink)? { nil }

    package func finish(_ summary: IngestSummary) throws {}
    /// Nothing held: each input is in the log once `ingest` returns.
    package func flush() throws {}

    /// An input whose content the ledger holds is skipped; else its decided lines are written
    /// into a copy of the log, which replaces the log once the input is read: the commit.
    package func ingest(_ input: InputPlan, drive: (_ skipLines: Int, _ writer: InputSession) throws -> InputRead) throws -> InputOutcome {
        log.withLock { $0.linesAfter.append(input.linesAfter) }
        if let known = read({ $0.ledger.first { $0.sha256 == input.content.sha256 } }) {
            return .skipped(.init(path: input.label, sha256: input.content.sha256, previousPath: known.path,
                                  previousOutcome: known.outcome))
        }
        let startedAt = options.now()
        let session = InputSession(log: read { $0 }, label: input.label, arrived: startedAt)
        let read = try drive(0, session)
        var committed = session.log
        let c = read.result.counts
        committed.ledger.append(LedgerEntry(id: Int64(committed.ledger.count + 1), path: input.label, sha256: input.content.sha256,
                                            size: input.content.size, lines: c.lines, accepted: c.accepted,
                                            duplicates: c.duplicates, conflicts: c.conflicts, quarantined: c.quarantined,
                                            unplanned: c.unplanned, outcome: read.error == nil ? .complete : .partial, error: read.error,
                                            startedAt: startedAt, finishedAt: options.now()))
        log.withLock { $0 = committed }
        return .read(read.result)
    }

    /// One input's writes into a copy of the log: each line as the driver decided it.
    package final class InputSession: InputWriting {
        var log: Log
        package var eventSink: (any ParsedEventSink)?
        let label: String
        let arrived: Timestamp

        init(log: Log, label: String, arrived: Timestamp) {
            self.log = log
            self.label = label
            self.arrived = arrived
        }

        package var lookupLines: Int { 1 }
        package var lookupBytes: Int { 1 }
        package var lookupSeesWrites: Bool { true }

        package func storedCopies(of ids: EventIDQuery) throws -> StoredCopies {
            var copies = StoredCopies()
            ids.forEach { id, _ in
                guard let stored = log.byID[String(decoding: id, as: UTF8.self)] else { return }
                Array(log.events[stored].line.utf8).withUnsafeBufferPointer { copies.add(id: id, line: $0) }
            }
            return copies
        }

        package func write(_ chunk: DecidedChunk) throws {
            try chunk.forEachLine { line, b, verdict, batch in
                let bytes = UnsafeBufferPointer(rebasing: b[line.start..<(line.start + line.count)])
                guard line.envelope != nil else {
                    let rejection = line.quarantineReason(in: batch.rejections)
                    log.quarantine.append(QuarantineEntry(inputPath: label, line: line.number, byteOffset: line.offset,
                                                          code: rejection.code, reason: rejection.text, raw: Array(bytes)))
                    return
                }
                guard case .success(let event) = EventDecoder.decode(bytes: Array(bytes)) else {
                    throw StoreError(doing: "writing \(label) line \(line.number) to memory", reason: "a parsed line does not decode")
                }
                let text = String(decoding: bytes, as: UTF8.self)
                switch verdict {
                case .event:
                    log.byID[event.id] = log.events.count
                    log.events.append(RecordedEvent(seq: Int64(log.events.count + 1), event: event, line: text))
                case .duplicate:
                    log.duplicates[event.id, default: []].append(DuplicateCopy(eventID: event.id, inputPath: label, line: line.number,
                                                                               arrivedAt: arrived))
                case .conflict:
                    log.conflicts.append(ConflictCopy(eventID: event.id, inputPath: label, line: line.number, arrivedAt: arrived,
                                                      text: text))
                case .quarantined:
                    throw StoreError(doing: "writing \(label) line \(line.number) to memory", reason: "a line with an event is decided quarantined")
                }
            }
        }

        package func idle() throws {}

        package func endSegment(_ segment: SegmentEnd, totals: SegmentTotals) throws {
            throw StoreError(doing: "writing \(label) to memory", reason: "an input is committed whole, not in segments")
        }
    }
}
