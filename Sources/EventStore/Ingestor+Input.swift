import FunnelModel
import LogFiles
import LineParsing
import StoreCore
import GRDB
import Foundation

extension Ingestor {
    /// An input an earlier ingest committed in part (its ledger row has a `resume_line`).
    struct Resume {
        var inputID: Int64
        /// What its ledger row counts: its lines up to `counts.lines`, after which it goes on.
        var counts: InputCounts
        /// New shapes it may still add.
        var shapeBudget: Int
    }

    /// The filter of every stored id hash for the next input, with room for `room` more:
    /// the one kept from the input before while no other connection wrote the store since
    /// (`PRAGMA data_version` tells) and it has room, else loaded (or made) anew.
    func takeIDFilter(room: Int, maxBlocks: Int, in db: Database) throws -> IDFilter {
        let dataVersion = try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
        if dataVersion != idFilterVersion || (idFilter.map { !$0.hasRoom(for: room, maxBlocks: maxBlocks) } ?? true) {
            idFilter = nil
            idFilter = try IDFilter.load(more: room, maxBlocks: maxBlocks, in: db)
        }
        idFilterVersion = dataVersion
        defer { idFilter = nil }
        return idFilter ?? IDFilter(capacity: room, maxBlocks: maxBlocks)
    }
}

extension Ingestor: IngestBackend {
    package func makeEventSink() -> (any ParsedEventSink)? { observer?.makeEventSink() }

    package func finish(_ summary: IngestSummary) throws { try observer?.finish(summary, store: store) }

    /// Commits the inputs of the open group, if any.
    package func flush() throws {
        try store.writer.writeWithoutTransaction { db in
            do {
                try group.commit(db, observer: observer, store: store)
            } catch {
                rollbackGroup(db)
                throw error
            }
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
    }

    /// Ingests one input: in one transaction, shared with the small inputs before and after
    /// it until they reach `Limits.groupBytes` (`InputGroup`), or (when its events outgrow
    /// what the observer holds) in one per segment, its ledger row saying after which line an
    /// ingest that stopped in between goes on. An input already in the ledger is skipped, or
    /// resumed when it was left unfinished. A store error rolls back the open group.
    package func ingest(_ input: InputPlan, drive: (_ skipLines: Int, _ writer: InputSession) throws -> InputRead) throws -> InputOutcome {
        let startedAt = options.now()
        let label = input.label, content = input.content
        let observer = self.observer
        let logger = self.logger
        let now = options.now
        let group = self.group

        let cachePages = -limits.cacheMiB * 1024
        let heldIDs = max(1, limits.heldIDs)
        let filterBlocks = limits.idFilterBytes / 64
        return try store.writer.writeWithoutTransaction { db -> InputOutcome in
            if !db.isInsideTransaction {
                // The page cache: the writer mostly appends, so a small one serves.
                try db.execute(sql: "PRAGMA cache_size = \(cachePages)")
                // No foreign key checks while the log is written: this writer interns every atom
                // and its input row before any line names them, and the checks cost three lookups
                // a row and make each multi-row INSERT keep a statement journal (as does the other
                // cause, removed by `OR FAIL`); any error still rolls the whole group back. Set
                // outside the transaction: SQLite ignores it inside one.
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                try db.beginTransaction(.immediate)
            }
            // Back on once the transaction is over (ignored while the group stays open).
            defer { if !db.isInsideTransaction { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
            do {
                var resume: Resume?
                if let row = try Row.fetchOne(db, sql: """
                    SELECT id, path, outcome, resume_line, resume_shapes, accepted, duplicates, conflicts, quarantined, unplanned,
                        source, source_flow
                    FROM inputs WHERE sha256 = ?
                    """, arguments: [content.sha256]) {
                    guard let line: Int = row[3] else {
                        // The group goes on with the next input; alone, the transaction ends.
                        if group.isEmpty { try db.rollback() }
                        return .skipped(.init(path: label, sha256: content.sha256, previousPath: row[1],
                                              previousOutcome: LedgerEntry.Outcome(rawValue: row[2]) ?? .partial))
                    }
                    // An unfinished input goes on only as it was begun: through the same source.
                    let begun = (row[10] as String?).map { InputSourceRecord(definitionJSON: $0, defaultFlow: row[11]) }
                    if begun != input.source {
                        // The inputs before it in the group are whole: they stay.
                        try group.commit(db, observer: observer, store: store)
                        throw StoreError(doing: "resuming \(label) after line \(line)",
                                         reason: Self.sourceMismatch(begun: begun, now: input.source))
                    }
                    resume = Resume(inputID: row[0], counts: InputCounts(lines: line, accepted: row[5], duplicates: row[6], conflicts: row[7],
                                                                    quarantined: row[8], unplanned: row[9]),
                                    shapeBudget: row[4] ?? 0)
                    logger.debug("resuming input", metadata: ["path": "\(label)", "after line": "\(line)"])
                } else {
                    try db.execute(sql: """
                        INSERT INTO inputs (path, sha256, size, lines, accepted, duplicates, conflicts, quarantined,
                            unplanned, outcome, error, started_us, finished_us, source, source_flow)
                        VALUES (?, ?, ?, 0, 0, 0, 0, 0, 0, 'partial', NULL, ?, ?, ?, ?)
                        """, arguments: [label, content.sha256, content.size, startedAt.micros, startedAt.micros,
                                         input.source?.definitionJSON, input.source?.defaultFlow])
                }
                let inputID = resume?.inputID ?? db.lastInsertedRowID
                // The writer goes straight into the session: no second copy of it holds the id
                // filter, which is then filled in place rather than copied.
                let session = InputSession(
                    try InputWriter(db, label: label, inputID: inputID, arrived: startedAt.micros,
                                    filter: try takeIDFilter(room: max(Tuning.filterRoomIDs, Int(content.size / Tuning.filterRoomBytesPerID + input.linesAfter)),
                                                             maxBlocks: filterBlocks, in: db),
                                    heldIDs: heldIDs, observed: observer != nil, buffers: spareBuffers.take(), resume: resume),
                    db: db, store: store, observer: observer, group: group, now: now)
                let read = try drive(resume?.counts.lines ?? 0, session)
                try session.writer.finish(read, isLast: input.isLast, finishedAt: now(), logger: logger)
                idFilter = session.writer.handOnFilter()
                // Whether this input's commit is the transaction's: if not, the observer does
                // its work in the transaction (now, or beside the next input, which writes it),
                // rather than after a commit that is not yet.
                let commits = input.isLast || group.closes(adding: content.size, limit: limits.groupBytes)
                let committed = session.eventSink.map {
                    CommittedInput(seqs: session.writer.rows.seqs, accepted: session.writer.accepted, newUsers: session.writer.newUsers,
                                   events: $0, more: commits && !input.isLast, sharesTransaction: !commits)
                }
                // After the observer's copy of which lines were accepted, which it keeps.
                spareBuffers = session.writer.handOnBuffers()
                if let observer, let committed { try observer.willCommit(committed, in: db) }
                group.add(content.size, committed: committed)
                if commits { try group.commit(db, observer: observer, store: store) }
                return .read(read.result)
            } catch {
                rollbackGroup(db)
                throw error
            }
        }
    }

    /// Rolls back the open group; the id filter kept from its inputs may hold their ids, and
    /// is loaded anew.
    func rollbackGroup(_ db: Database) {
        group.rollback(db)
        idFilter = nil
        idFilterVersion = -1
    }
}

extension Ingestor {
    /// Why an unfinished input is not resumed with another source than the one it began with.
    static func sourceMismatch(begun: InputSourceRecord?, now: InputSourceRecord?) -> String {
        func named(_ r: InputSourceRecord?) -> String {
            guard let r else { return "as funnel's own lines (no --source)" }
            let name = r.mapping?.definition.name ?? "?"
            return "with --source \(name)" + (r.defaultFlow.map { " --flow \($0)" } ?? "")
        }
        return "it was begun \(named(begun)), and this run reads it \(named(now)); run again as it was begun"
    }
}
