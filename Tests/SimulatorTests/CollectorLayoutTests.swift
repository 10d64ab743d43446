import LogFiles
import Flows
import Foundation
import FunnelModel
import XCTest
@testable import Simulator
import TestSupport

/// The shapes of real logs the bench needs beyond the daily files: a day split over several
/// files, one single-member file, UUID event ids. Each holds the same lines as the daily files.
final class CollectorLayoutTests: XCTestCase {
    func write(_ layout: CollectorWriter.Layout, ids: SimulationOptions.EventIDStyle = .hex, into sub: String) throws
        -> (CollectorSummary, [(file: String, line: String)]) {
        let glp1 = try FlowCatalog().flow("glp1")
        let result = try Simulation(flow: glp1, options: SimulationOptions(users: 200, seed: 5, days: 3, eventIDs: ids)).run()
        var writer = CollectorWriter(seed: 5)
        writer.layout = layout
        let out = Scratch.directory("layouts").appendingPathComponent(sub).path
        let summary = try writer.write(result.events, to: out)
        return (summary, try readLines(out))
    }

    func testEveryLayoutHoldsTheSameLines() throws {
        let (daily, dailyLines) = try write(.daily, into: "daily")
        let (split, splitLines) = try write(.split(3), into: "split")
        let (single, singleLines) = try write(.single, into: "single")
        XCTAssertEqual(dailyLines.map(\.line).sorted(), splitLines.map(\.line).sorted())
        XCTAssertEqual(dailyLines.map(\.line).sorted(), singleLines.map(\.line).sorted())
        XCTAssertEqual([daily.lines, split.lines, single.lines], [dailyLines.count, dailyLines.count, dailyLines.count])
        XCTAssertEqual(daily.files.count, 4, "three days and the late events of the fourth")
        XCTAssertEqual(single.files.map { ($0 as NSString).lastPathComponent }, ["events.ndjson.gz"])
        XCTAssertEqual(single.members, 1)
        // Each split file is a part of one day, and each user's day is in one part.
        XCTAssertGreaterThan(split.files.count, daily.files.count * 2)
        var fileOf: [String: String] = [:]
        for (file, line) in splitLines {
            let o = try XCTUnwrap(SimulatorTests.object(line))
            let user = try XCTUnwrap(o["user_id"] as? String)
            let day = String(file.dropFirst("events-".count).prefix(10))
            if let seen = fileOf[user + day] { XCTAssertEqual(seen, file, "\(user) on \(day)") }
            fileOf[user + day] = file
        }
    }

    /// The streamed writer (lines spooled to a file, read back batch by batch, the single
    /// file's member in parts) writes the same bytes as the in-memory one, in every layout, and
    /// leaves nothing but its files.
    func testSpooledLinesWriteTheSameFilesAsInMemory() throws {
        let glp1 = try FlowCatalog().flow("glp1")
        let cases: [(CollectorWriter.Layout, SimulationOptions.EventIDStyle, String)] = [
            (.daily, .hex, "daily"), (.split(3), .hex, "split"), (.single, .hex, "single"), (.daily, .uuid, "uuid"),
        ]
        for (layout, ids, name) in cases {
            let simulation = try Simulation(flow: glp1, options: SimulationOptions(users: 1_000, seed: 12, days: 3, eventIDs: ids))
            var writer = CollectorWriter(seed: 12)
            writer.layout = layout
            let memoryFolder = Scratch.directory("streamed").appendingPathComponent(name + "-memory").path
            let memory = try writer.write(simulation.run().events, to: memoryFolder)
            let spoolFolder = Scratch.directory("streamed").appendingPathComponent(name + "-spool").path
            try FileManager.default.createDirectory(atPath: spoolFolder, withIntermediateDirectories: true)
            var reported: [(Int, Int)] = []
            let streamed = try writer.write(simulation.spool(in: spoolFolder).lines, to: spoolFolder) { reported.append(($0, $1)) }
            XCTAssertEqual(streamed.lines, memory.lines, name)
            XCTAssertEqual(streamed.members, memory.members, name)
            XCTAssertEqual([streamed.duplicates, streamed.late], [memory.duplicates, memory.late], name)
            let names = try FileManager.default.contentsOfDirectory(atPath: memoryFolder).sorted()
            XCTAssertEqual(names, memory.files.map { ($0 as NSString).lastPathComponent }.sorted(), name)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spoolFolder).sorted(), names, "\(name): no spool or temporary file left")
            var compared = 0
            for file in names {
                let a = try XCTUnwrap(FileManager.default.contents(atPath: memoryFolder + "/" + file))
                let b = try XCTUnwrap(FileManager.default.contents(atPath: spoolFolder + "/" + file))
                XCTAssertTrue(a == b, "\(name) \(file): \(a.count) and \(b.count) bytes differ")
                compared += a.count
            }
            XCTAssertGreaterThan(compared, 500_000, name)
            // Progress counts every line written, up to all of them.
            XCTAssertEqual(reported.last.map { [$0.0, $0.1] }, [memory.lines, memory.lines], name)
            XCTAssertEqual(reported.map(\.0), reported.map(\.0).sorted(), name)
        }
    }

    func testUUIDEventIDsAreUniqueVersion4() throws {
        let (_, lines) = try write(.daily, ids: .uuid, into: "uuid")
        let pattern = try NSRegularExpression(pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        var ids = Set<String>()
        var resent = 0
        for (_, line) in lines {
            let id = try XCTUnwrap(SimulatorTests.object(line)?["event_id"] as? String)
            XCTAssertEqual(pattern.numberOfMatches(in: id, range: NSRange(id.startIndex..., in: id)), 1, id)
            if !ids.insert(id).inserted { resent += 1 }
        }
        // Only the re-sent copies repeat an id.
        let (hex, hexLines) = try write(.daily, into: "hex")
        XCTAssertEqual(resent, hex.duplicates)
        XCTAssertEqual(ids.count, hexLines.count - hex.duplicates)
    }
}
