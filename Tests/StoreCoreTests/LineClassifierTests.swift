import XCTest
import LogFiles
import LineParsing
@testable import StoreCore

/// The driver's verdict on each line, whatever the store's chunk size and whether its lookups
/// see the last chunk written, on sample-data's duplicates file (lines 4, 5 and 9 are copies of
/// lines 1, 2 and 3, line 5 with other spacing and key order; line 6 has line 2's id with
/// another user).
final class LineClassifierTests: XCTestCase {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("sample-data/edge/duplicates.ndjson").path
    let expected: [LineVerdict] = [.event, .event, .event, .duplicate, .duplicate, .conflict, .event, .event, .duplicate]

    /// Reads the file in batches of `batchLines` into `writer` as the driver does.
    func classify(_ writer: VisibilityWriter, batchLines: Int) throws -> LineClassifier {
        var classifier = LineClassifier(flowSteps: [:])
        _ = try LineParser.run(path: path, batchLines: batchLines, batchBytes: 1 << 20) { batch in
            try classifier.add(batch, label: "duplicates.ndjson")
            if classifier.isDue(for: writer) { try classifier.decide(into: writer) }
            return true
        }
        try classifier.decide(into: writer)
        return classifier
    }

    func testEveryChunkingGivesTheSameVerdicts() throws {
        for batchLines in [1, 2, 4, 16] {
            for lookupLines in [1, 3, 8, 100] {
                for seesWrites in [true, false] {
                    let writer = VisibilityWriter(lookupLines: lookupLines, seesWrites: seesWrites)
                    let classifier = try classify(writer, batchLines: batchLines)
                    let shape = "batches of \(batchLines), lookups of \(lookupLines), sees writes \(seesWrites)"
                    XCTAssertEqual(writer.verdicts, expected, shape)
                    let c = classifier.result.counts
                    XCTAssertEqual([c.lines, c.accepted, c.duplicates, c.conflicts, c.quarantined], [9, 5, 3, 1, 0], shape)
                }
            }
        }
    }

    func testTheTallyCountsKeysAndFlows() throws {
        var classifier = try classify(VisibilityWriter(lookupLines: 1, seesWrites: true), batchLines: 4)
        // Five keys: started, step_viewed and sign_in_succeeded on signIn, step_completed on
        // journeyStatus, debug_tapped on signIn.
        XCTAssertEqual(classifier.keys.map(\.rawName), ["onboarding.started", "onboarding.step_viewed", "sign_in_succeeded",
                                                         "onboarding.step_completed", "onboarding.debug_tapped"])
        let flows = classifier.takeFlowTotals()
        XCTAssertEqual(flows["glp1"]?.events, 5)
        XCTAssertEqual(classifier.takeFlowTotals(), [:], "the totals start again once taken")
        // An unknown event name is unplanned even without flow definitions.
        XCTAssertEqual(classifier.result.counts.unplanned, 1)
        XCTAssertEqual(classifier.result.unplanned, [UnplannedKey(flow: "glp1", step: "signIn", event: "onboarding.debug_tapped"): 1])
    }
}

/// A store in the test whose lookups see what was written up to the chunk before the last one
/// (`seesWrites` false: as ClickHouse, whose last inserts may still be under way) or all of it.
final class VisibilityWriter: InputWriting {
    var eventSink: (any ParsedEventSink)?
    let lookupLines: Int
    var lookupBytes: Int { .max }
    let lookupSeesWrites: Bool
    private var visible: [[UInt8]: [UInt8]] = [:]
    private var lastChunk: [[UInt8]: [UInt8]] = [:]
    private(set) var verdicts: [LineVerdict] = []

    init(lookupLines: Int, seesWrites: Bool) {
        self.lookupLines = lookupLines
        lookupSeesWrites = seesWrites
    }

    func storedCopies(of ids: EventIDQuery) throws -> StoredCopies {
        var copies = StoredCopies()
        ids.forEach { id, _ in
            guard let line = visible[Array(id)] else { return }
            line.withUnsafeBufferPointer { copies.add(id: id, line: $0) }
        }
        return copies
    }

    func write(_ chunk: DecidedChunk) throws {
        visible.merge(lastChunk) { first, _ in first }
        lastChunk = [:]
        chunk.forEachLine { line, b, verdict in
            verdicts.append(verdict)
            guard verdict == .event, let env = line.envelope else { return }
            let id = Array(UnsafeBufferPointer(rebasing: b[Int(env.eventID.start)..<Int(env.eventID.end)]))
            lastChunk[id] = Array(UnsafeBufferPointer(rebasing: b[line.start..<(line.start + line.count)]))
        }
        if lookupSeesWrites {
            visible.merge(lastChunk) { first, _ in first }
            lastChunk = [:]
        }
    }

    func idle() throws {}

    func endSegment(_ segment: SegmentEnd, totals: SegmentTotals) throws {}
}
