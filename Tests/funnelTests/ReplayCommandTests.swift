import Foundation
import XCTest
import TestSupport

/// `funnel replay` as text on the bundled sample data.
final class ReplayCommandTests: XCTestCase {
    /// Every time is in UTC with its date, the header says so and names the offset the
    /// events were written with; each matches the event's own `ts` read in UTC.
    func testReplayTimesAreUTCWithDateAndSayWhich() throws {
        let store = tempDir().appendingPathComponent("s.sqlite").path
        let ingest = try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path])
        XCTAssertEqual(ingest.status, 0, ingest.stderr)
        let text = try runFunnel(["replay", "--store", store, "--user", "u-000006"])
        XCTAssertEqual(text.status, 0, text.stderr)
        let json = try jsonObject(try runFunnel(["replay", "--store", store, "--user", "u-000006", "--format", "json"]).stdout)
        XCTAssertEqual(json["as_of"] as? String, "2026-10-08T11:31:42.721Z")

        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(Array(lines.prefix(7)), [
            "u-000006 · Onboarding Tonic (GLP-1) (glp1)",
            "as of 2026-10-08 11:31:42 UTC · idle window 24 h",
            "lane  explorers — journeyStatus = about_to_start",
            "times in UTC; the events were written at UTC+05:30",
            "",
            "since    time (UTC)          event                 step",
            "+0s      2026-10-03 05:53:35 started               signIn",
        ])
        for line in lines { XCTAssertLessThanOrEqual(line.count, 80, line) }

        // The event lines' times, in order, are the events' ts in UTC to the second.
        let read = ISO8601DateFormatter()
        read.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let write = DateFormatter()
        write.locale = Locale(identifier: "en_US_POSIX")
        write.timeZone = TimeZone(identifier: "UTC")
        write.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let events = try XCTUnwrap(json["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 35)
        let expected = try events.map { e -> String in
            let ts = try XCTUnwrap(e["ts"] as? String)
            XCTAssertTrue(ts.hasSuffix("+05:30"), ts)
            return write.string(from: try XCTUnwrap(read.date(from: ts), ts))
        }
        let shown = lines.compactMap { line -> String? in
            let time = line.dropFirst(9).prefix(19)
            return time.wholeMatch(of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/) != nil ? String(time) : nil
        }
        XCTAssertEqual(shown, expected)
        // Back after 12 hours: 23:33 on the device (+05:30), 18:03 UTC.
        XCTAssertTrue(text.stdout.contains("+12h09m  2026-10-03 18:03:02 step_viewed           healthKitBenefits\n"), text.stdout)
    }
}
