import Foundation
import XCTest
import TestSupport

/// The HTML report of the bundled sample data, laid out by headless Chromium.
final class HTMLReportLayoutTests: XCTestCase {
    /// Skips without Chromium (fails on CI, where it must be installed).
    func requireChromium() throws {
        guard Chromium.path == nil else { return }
        let message = "chromium is not on PATH: install it with `apt-get install -y chromium` (Debian) to run the browser test"
        if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(message) }
        throw XCTSkip(message)
    }

    /// `--by week` adds a table and a trend chart: in a 1280-pixel window the page is no
    /// wider than the window and each table (what explains the drop-offs, "The numbers")
    /// fits its box.
    func testTheNumbersFitA1280PixelWindowByWeek() throws {
        try requireChromium()
        let dir = Scratch.directory("html-layout")
        let page = dir.appendingPathComponent("glp1-by-week.html")
        let r = try runFunnel(["report", "--store", dir.appendingPathComponent("s.sqlite").path, "--flow", "glp1",
                               "--by", "week", "--format", "html", "--output", page.path,
                               sampleData.appendingPathComponent("glp1").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let html = try String(contentsOf: page, encoding: .utf8)
        XCTAssertTrue(html.contains("<h3>By week</h3>"), "no week table")
        let layout = try Chromium.layout(of: page, width: 1280)
        // The time to the next step, what explains the top three drop-offs, then the numbers.
        XCTAssertEqual(layout.boxes.map(\.label), [
            "Time to the next step table.",
            "#1 signIn · 29 of 389 users compared dropped there (7.5%) table.drivers",
            "#2 healthKitBenefits lane explorers · 8 of 157 users compared dropped there (5.1%) table.drivers",
            "#3 notificationsPermission lane explorers · 8 of 165 users compared dropped there (4.8%) table.drivers",
            "By week table.", "Every step, all users table.steps",
        ])
        XCTAssertLessThanOrEqual(layout.documentWidth, layout.viewport, "\(layout)")
        for box in layout.boxes {
            XCTAssertLessThanOrEqual(box.scrollWidth, box.clientWidth, "\(box.label): \(layout)")
            XCTAssertLessThanOrEqual(box.right, layout.viewport, "\(box.label): \(layout)")
        }
    }

    /// Two breakdowns at once and period against period: each page no wider than a
    /// 1280-pixel window, each table fitting its box.
    func testPairsAndComparisonFitA1280PixelWindow() throws {
        try requireChromium()
        let dir = Scratch.directory("html-layout-pairs")
        let store = dir.appendingPathComponent("s.sqlite").path
        XCTAssertEqual(try runFunnel(["ingest", "--store", store, sampleData.appendingPathComponent("glp1").path]).status, 0)
        let pages: [(String, [String], String)] = [
            ("pairs", ["--by", "app_version", "--by", "flag:trackingStyleQuestion"], "By app_version and flag:trackingStyleQuestion table."),
            ("compare", ["--since", "2026-10-04", "--until", "2026-10-08", "--compare", "previous"],
             "This period 2026-10-04–2026-10-08~ against 2026-09-30–2026-10-04 table."),
        ]
        for (name, args, table) in pages {
            let page = dir.appendingPathComponent("\(name).html")
            let r = try runFunnel(["report", "--store", store, "--flow", "glp1", "--format", "html", "--output", page.path] + args)
            XCTAssertEqual(r.status, 0, r.stderr)
            let layout = try Chromium.layout(of: page, width: 1280)
            XCTAssertTrue(layout.boxes.map(\.label).contains(table), "\(name): \(layout.boxes.map(\.label))")
            XCTAssertLessThanOrEqual(layout.documentWidth, layout.viewport, "\(name): \(layout)")
            for box in layout.boxes {
                XCTAssertLessThanOrEqual(box.scrollWidth, box.clientWidth, "\(name) \(box.label): \(layout)")
                XCTAssertLessThanOrEqual(box.right, layout.viewport, "\(name) \(box.label): \(layout)")
            }
        }
    }
}
