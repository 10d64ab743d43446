import XCTest
import Foundation
import CZlib
import FunnelModel
import Projections
import Journeys
@testable import Reports
import TestSupport

final class HTMLRendererTests: XCTestCase {
    static let command = "funnel report --flow mini --format html --output report.html"

    // MARK: helpers

    /// Every capture of the first group of `pattern` in `text`.
    func captures(_ pattern: String, in text: String) throws -> [String] {
        let regex = try Regex(pattern)
        return text.matches(of: regex).compactMap { m in m.output[1].substring.map(String.init) }
    }

    /// The HTML of one funnel row: from its opening tag to the next row.
    func rowHTML(_ html: String, step: String, lane: String?) throws -> String {
        let marker = "data-step=\"\(step)\" data-lane=\"\(lane ?? "")\""
        let start = try XCTUnwrap(html.range(of: marker), "no row for \(step) \(lane ?? "shared")")
        let rest = html[start.upperBound...]
        let end = rest.range(of: "data-step=")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }

    // MARK: structure

    func testPageIsSelfContained() throws {
        let html = Population().report().html(command: Self.command, generatedAt: "2026-10-10T09:00:00Z")
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(html.hasSuffix("</html>\n"))
        let lower = html.lowercased()
        for banned in ["<script", "http://", "https://", "url(", "@import", "<link", "<img", "<iframe", "src=", "href=", "@font-face"] {
            XCTAssertFalse(lower.contains(banned), "page contains \(banned)")
        }
        // Inline style and SVG only; numbers are all finite.
        XCTAssertEqual(html.components(separatedBy: "<style>").count, 2)
        XCTAssertFalse(html.contains("NaN"))
        XCTAssertFalse(html.contains("inf%"))
    }

    func testPageShowsEveryStepFigureAndDefinition() throws {
        let report = Population().report()
        let html = report.html(command: Self.command, generatedAt: "2026-10-10T09:00:00Z")
        XCTAssertGreaterThan(report.users.started, 300)
        for step in miniFlow.steps.map(\.id) {
            XCTAssertTrue(html.contains("data-step=\"\(step)\""), "funnel lacks \(step)")
            XCTAssertTrue(html.contains("<td><code>\(step)</code></td>"), "table lacks \(step)")
        }
        // Every row of the report is drawn once in the funnel, but those of a block nobody
        // reached (here: the users who stopped before the lane question).
        let empty = Set(report.steps.map(\.lane).filter { lane in
            lane != nil && report.steps.filter { $0.lane == lane }.allSatisfy { $0.reached == 0 && $0.eligible == 0 && $0.skipped == 0 }
        })
        XCTAssertEqual(empty, [FunnelReport.undecidedLane])
        XCTAssertEqual(try captures(#"<div class="row[^"]*" data-step="([^"]+)""#, in: html).count,
                       report.steps.filter { !empty.contains($0.lane) }.count)
        let undecidedUsers = try XCTUnwrap(report.lanes?.first { $0.lane == FunnelReport.undecidedLane }?.users)
        XCTAssertGreaterThan(undecidedUsers, 0)
        XCTAssertTrue(html.contains("\(undecidedUsers) users, none reached a step of this block"))
        // Headline figures.
        XCTAssertTrue(html.contains("<div class=\"label\">Started</div><div class=\"value\">\(HTML.count(report.users.started))</div>"))
        XCTAssertTrue(html.contains("<div class=\"label\">Abandoned</div><div class=\"value\">\(HTML.count(report.users.abandoned))</div>"))
        XCTAssertGreaterThan(report.users.inProgress, 0)
        XCTAssertTrue(html.contains("<div class=\"label\">In progress</div><div class=\"value\">\(report.users.inProgress)</div>"))
        let ci = try XCTUnwrap(report.completionRateCI95)
        XCTAssertTrue(html.contains("<div class=\"value\">\(Format.percent(report.completionRate))</div>"))
        XCTAssertTrue(html.contains("95% CI \(Format.percent(ci.low))–\(Format.percent(ci.high))"))
        // The histogram: one rect per bin, p50 and p90 markers at their values, p50 left of p90.
        XCTAssertEqual(html.components(separatedBy: "<svg class=\"histogram\"").count, 2)
        XCTAssertEqual(html.components(separatedBy: "<rect class=\"bin\"").count - 1, report.timeToCompleteHistogram.count)
        let t = report.timeToCompleteSeconds
        let p50 = try XCTUnwrap(t.p50), p90 = try XCTUnwrap(t.p90)
        XCTAssertTrue(html.contains("<g class=\"marker p50\" data-seconds=\"\(HTML.num(p50))\">"))
        XCTAssertTrue(html.contains("<g class=\"marker p90\" data-seconds=\"\(HTML.num(p90))\">"))
        XCTAssertTrue(html.contains(">p50 \(DurationText.compact(p50))</text>"))
        XCTAssertTrue(html.contains(">p90 \(DurationText.compact(p90))</text>"))
        let markerX = try captures(#"<g class="marker p\d0"[^>]*><line x1="([0-9.]+)""#, in: html).compactMap(Double.init)
        XCTAssertEqual(markerX.count, 2)
        XCTAssertLessThan(markerX[0], markerX[1])
        // Definitions, as-of and the command.
        XCTAssertTrue(html.contains("<h2>Definitions</h2>"))
        for term in ["started", "completed", "time to complete", "state", "reached", "eligible", "drop-off",
                     "percentiles", "95% CI"] {
            XCTAssertTrue(html.contains("<dt>\(term)</dt>"), "definitions lack \(term)")
        }
        XCTAssertTrue(html.contains("linear interpolation between closest ranks"))
        XCTAssertTrue(html.contains("Wilson score interval"))
        XCTAssertTrue(html.contains("<pre class=\"command\"><code>\(Self.command)</code></pre>"))
        XCTAssertTrue(html.contains("As of <b>\(report.asOf)</b>"))
        XCTAssertTrue(html.contains("page generated 2026-10-10T09:00:00Z"))
        XCTAssertFalse(report.html(command: Self.command, generatedAt: nil).contains("page generated"))
    }

    func testFunnelRowsShowSkippedUntrackedAndDropoffs() throws {
        let report = Population().report()
        let html = report.html(command: Self.command, generatedAt: nil)
        // welcome has no telemetry: greyed with a note, no figures.
        let welcome = try rowHTML(html, step: "welcome", lane: nil)
        XCTAssertTrue(html.contains("<div class=\"row untracked\" data-step=\"welcome\""))
        XCTAssertTrue(welcome.contains("no telemetry"))
        // goalWeight on glp1: shown to some, passed over for the maintain users, with the condition.
        let gwRow = try XCTUnwrap(report.steps.first { $0.step == "goalWeight" && $0.lane == "glp1" })
        XCTAssertGreaterThan(gwRow.skipped, 0)
        XCTAssertGreaterThan(gwRow.reached, 0)
        let gw = try rowHTML(html, step: "goalWeight", lane: "glp1")
        XCTAssertTrue(gw.contains("passed over <b>\(gwRow.skipped)</b> users · shown only when <code>weightGoal != maintain</code>"), gw)
        XCTAssertTrue(gw.contains("<span class=\"big\">\(gwRow.reached)</span> reached"))
        XCTAssertTrue(gw.contains("\(gwRow.eligible) eligible"))
        XCTAssertTrue(gw.contains("\(gwRow.dropped) dropped here"))
        // The bar widths are the figures over the page's scale (started users).
        let scale = Double(report.users.started)
        XCTAssertTrue(gw.contains("class=\"skip\" style=\"width:\(HTML.num(100 * Double(gwRow.skipped) / scale))%\""), gw)
        XCTAssertTrue(gw.contains("class=\"drop\" style=\"width:\(HTML.num(100 * Double(gwRow.dropped) / scale))%\""), gw)
        XCTAssertTrue(gw.contains("class=\"elig\" style=\"width:\(HTML.num(100 * Double(gwRow.eligible) / scale))%\""), gw)
        // completion on the explorers lane only under a flag: the condition is shown.
        XCTAssertTrue(try rowHTML(html, step: "completion", lane: "explorers").contains("only when <code>flag:completionScreenForExplorers</code>"))
        // The edge into weightGoal on glp1: conversion from medication; the lane heading gives
        // the share of the fork.
        let wg = try XCTUnwrap(report.steps.first { $0.step == "weightGoal" && $0.lane == "glp1" })
        XCTAssertTrue(html.contains("<b>\(Format.percent(wg.conversionFromPrevious))</b> <span class=\"muted\">of <code>medication</code></span>"))
        let med = try XCTUnwrap(report.steps.first { $0.step == "medication" && $0.lane == "glp1" })
        let status = try XCTUnwrap(report.steps.first { $0.step == "journeyStatus" })
        XCTAssertTrue(html.contains("lane <b>glp1</b> <span class=\"muted\">· \(med.reached) users, "
            + "\(Format.percent(Double(med.reached) / Double(status.reached))) of those at <code>journeyStatus</code>"))
        // Top drop-offs: ranked list in the report's order, badges on the rows.
        XCTAssertGreaterThanOrEqual(report.topDropoffs.count, 3)
        let listed = try captures(#"<li><span class="rank">#\d</span><span class="where"><code>([^<]+)</code>"#, in: html)
        XCTAssertEqual(listed, report.topDropoffs.map(\.step))
        XCTAssertEqual(try captures(#"<li><span class="rank">#(\d)</span>"#, in: html),
                       (1...report.topDropoffs.count).map(String.init))
        for (i, d) in report.topDropoffs.enumerated() {
            let row = try rowHTML(html, step: d.step, lane: d.lane)
            XCTAssertTrue(row.contains("<span class=\"rank\" title=\"drop-off rank\">#\(i + 1)</span>"), "\(d.step) lacks rank \(i + 1)")
            XCTAssertTrue(html.contains("<b>\(d.dropped)</b> users · \(Format.percent(d.shareOfAbandoned)) of abandoned"))
        }
    }

    func testFullySkippedStepIsShownAsSkipped() throws {
        // Nobody has trackingStyleQuestion: the step is passed over for every glp1 user who got there.
        let r = Population(users: 120, trackingFlagShare: 0).report()
        let html = r.html(command: "funnel report", generatedAt: nil)
        let row = try XCTUnwrap(r.steps.first { $0.step == "trackingStyle" && $0.lane == "glp1" })
        XCTAssertEqual(row.reached, 0)
        XCTAssertGreaterThan(row.skipped, 10)
        let marker = "<div class=\"row skipped\" data-step=\"trackingStyle\" data-lane=\"glp1\">"
        XCTAssertTrue(html.contains(marker))
        let text = try rowHTML(html, step: "trackingStyle", lane: "glp1")
        XCTAssertTrue(text.contains("skipped</span> <span class=\"muted\">for all \(row.skipped) users"))
        XCTAssertTrue(text.contains("only when <code>flag:trackingStyleQuestion</code>"))
        // No "0%" edge into a step nobody was meant to see: the row follows the previous row.
        let before = try XCTUnwrap(html.components(separatedBy: marker).first)
        let lastElement = try XCTUnwrap(before.range(of: "<div class=\"", options: .backwards))
        XCTAssertTrue(before[lastElement.upperBound...].hasPrefix("nums"), String(before.suffix(300)))
        // The step after it converts from the last ungated step (weightGoal), never from a
        // step nobody was shown.
        let plan = try XCTUnwrap(r.steps.first { $0.step == "planPreview" && $0.lane == "glp1" })
        let weightGoal = try XCTUnwrap(r.steps.first { $0.step == "weightGoal" && $0.lane == "glp1" })
        XCTAssertEqual(try XCTUnwrap(plan.conversionFromPrevious), Double(plan.reached) / Double(weightGoal.reached), accuracy: 1e-12)
        XCTAssertTrue(html.contains("<b>\(Format.percent(plan.conversionFromEligible))</b> <span class=\"muted\">of eligible"))
    }

    func testDataIsEscaped() throws {
        var r = Population(users: 60).report()
        r.cohort = "<script>alert(\"c\")</script>"
        r.filters = ["note=<b>&amp;"]
        r.flowTitle = "Mini & <i>friends</i>"
        let i = try XCTUnwrap(r.steps.firstIndex { $0.condition != nil })
        r.steps[i].condition = "x == '<img src=y onerror=alert(1)>'"
        r.steps[i].step = "step<svg onload=alert(2)>"
        let html = r.html(command: "funnel report --cohort '<script>x</script>' \"a&b\"", generatedAt: "<now>")
        let lower = html.lowercased()
        XCTAssertFalse(lower.contains("<script"))
        XCTAssertFalse(lower.contains("<img"))
        XCTAssertFalse(lower.contains("<svg onload"))
        XCTAssertFalse(html.contains("<b>&amp;"))
        XCTAssertFalse(html.contains("<i>friends"))
        XCTAssertTrue(html.contains("&lt;script&gt;alert(&quot;c&quot;)&lt;/script&gt;"))
        XCTAssertTrue(html.contains("note=&lt;b&gt;&amp;amp;"))
        XCTAssertTrue(html.contains("Mini &amp; &lt;i&gt;friends&lt;/i&gt;"))
        XCTAssertTrue(html.contains("x == &#39;&lt;img src=y onerror=alert(1)&gt;&#39;"))
        XCTAssertTrue(html.contains("data-step=\"step&lt;svg onload=alert(2)&gt;\""))
        XCTAssertTrue(html.contains("funnel report --cohort &#39;&lt;script&gt;x&lt;/script&gt;&#39; &quot;a&amp;b&quot;"))
        XCTAssertTrue(html.contains("&lt;now&gt;"))
    }

    func testGroupsSideBySideOnTheSameScales() throws {
        let report = Population().report(by: .cohort)
        let groups = try XCTUnwrap(report.groups)
        XCTAssertEqual(groups.map(\.value), ["glp1", "explorers", "(none)"])
        let html = report.html(command: Self.command + " --by cohort", generatedAt: nil)
        let section = try XCTUnwrap(html.components(separatedBy: "<section class=\"card breakdown\"").last)
        XCTAssertTrue(section.contains("<div class=\"multiples\" data-groups=\"3\">"))
        let cards = section.components(separatedBy: "<article class=\"group\"").dropFirst()
        XCTAssertEqual(cards.count, groups.count)
        // One bar scale and one histogram frame for all the groups: the largest figure of any.
        let expected = groups.map { g in
            max(g.report.users.started, g.report.steps.map { max($0.reached + $0.skipped, $0.eligible) }.max() ?? 0)
        }.max() ?? 0
        XCTAssertEqual(expected, groups.map(\.report.users.started).max())
        let scales = try captures(#"<div class="funnel compact" data-scale="(\d+)""#, in: section)
        XCTAssertEqual(scales, Array(repeating: String(expected), count: groups.count))
        let completing = groups.filter { !$0.report.timeToCompleteHistogram.isEmpty }.count
        XCTAssertEqual(completing, 2)
        let yMax = groups.flatMap { $0.report.timeToCompleteHistogram.map(\.users) }.max() ?? 0
        XCTAssertEqual(try captures(#"<svg class="histogram compact"[^>]* data-y-max="(\d+)""#, in: section),
                       Array(repeating: String(yMax), count: completing))
        let xTo = groups.flatMap { $0.report.timeToCompleteHistogram.map(\.toSeconds) }.max() ?? 0
        XCTAssertEqual(try captures(#"<svg class="histogram compact"[^>]* data-x-to="([0-9.]+)""#, in: section),
                       Array(repeating: HTML.num(xTo), count: completing))
        // The same figure gets the same width in every group: signIn's bar is started / scale.
        for (card, g) in zip(cards, groups) {
            XCTAssertTrue(card.hasPrefix(" data-group=\"\(g.value)\""))
            let signIn = try XCTUnwrap(g.report.steps.first { $0.step == "signIn" })
            let width = HTML.num(100 * Double(signIn.reached - signIn.dropped) / Double(expected))
            let row = try rowHTML(card, step: "signIn", lane: nil)
            XCTAssertTrue(row.contains("class=\"reached\" style=\"width:\(width)%\""), "\(g.value): \(row)")
            XCTAssertTrue(card.contains("<b>\(g.report.users.started)</b> started"))
            // A lane nobody in the group took is one line, not a column of zeros.
            let other = g.value == "glp1" ? "explorers" : g.value == "explorers" ? "glp1" : nil
            if let other {
                XCTAssertTrue(card.contains("lane <b>\(other)</b> <span class=\"muted\">· no users on this lane</span>"), g.value)
                XCTAssertFalse(card.contains("data-lane=\"\(other)\""), g.value)
            }
        }
        // The groups' numbers are in the table too.
        for g in groups {
            XCTAssertTrue(html.contains("<tr><th>\(g.value)</th><td class=\"n\">\(g.report.users.started)</td>"))
        }
    }

    func testEmptyReportRenders() throws {
        let r = ReportBuilder(definition: miniFlow).report([], query: ReportQuery(asOf: Population.start))
        let html = r.html(command: "funnel report", generatedAt: nil)
        XCTAssertTrue(html.contains("No user completed yet"))
        XCTAssertTrue(html.contains("nobody dropped off"))
        XCTAssertFalse(html.contains("<svg class=\"histogram"))
        XCTAssertFalse(html.contains("NaN"))
        XCTAssertEqual(try captures(#"<div class="row[^"]*" data-step="([^"]+)""#, in: html).count, r.steps.count)
    }

    // MARK: a real browser

    func testChromiumRendersTheReport() throws {
        let browser = try chromium()
        let dir = Scratch.directory("html-tests")
        let population = Population()
        var explained = population.report()
        explained.explanations = try population.explanations(of: explained)
        let pages: [(String, FunnelReport)] = [
            ("report", population.report()),
            ("report-by-cohort", population.report(by: .cohort)),
            ("report-with-drift", population.report(definition: Self.driftedMiniFlow)),
            ("report-with-explanations", explained),
            ("report-hostile", Self.hostile(population.report(definition: Self.driftedMiniFlow))),
        ]
        XCTAssertEqual(pages[2].1.drift?.map(\.kind), ["unlisted_value", "undeclared_flag"])
        XCTAssertEqual(explained.explanations?.map(\.step), explained.topDropoffs.prefix(3).map(\.step))
        for (name, report) in pages {
            let page = dir.appendingPathComponent("\(name).html")
            let png = dir.appendingPathComponent("\(name).png")
            try report.html(command: Self.command, generatedAt: nil).write(to: page, atomically: true, encoding: .utf8)
            try? FileManager.default.removeItem(at: png)
            try screenshot(browser: browser, page: page, png: png)
            let image = try PNGImage(data: Data(contentsOf: png))
            XCTAssertEqual(image.width, 1200, name)
            XCTAssertGreaterThanOrEqual(image.height, 1500, name)
            let stats = image.stats()
            // Text and charts: many colours (anti-aliased text), a good share of dark ink,
            // the slate of the bars and the accent of the drop-offs and markers.
            XCTAssertGreaterThan(stats.distinctColours, 200, "\(name): \(stats)")
            XCTAssertGreaterThan(stats.inkShare, 0.005, "\(name): \(stats)")
            XCTAssertGreaterThan(stats.barPixels, 5_000, "\(name): \(stats)")
            XCTAssertGreaterThan(stats.accentPixels, 1_000, "\(name): \(stats)")
            XCTAssertLessThan(stats.backgroundShare, 0.97, "\(name): \(stats)")
        }
        // The hostile values are text: no element of theirs, no handler run (it would retitle the page).
        let (_, dom) = try Chromium.run(browser, ["--virtual-time-budget=3000", "--dump-dom",
                                                  dir.appendingPathComponent("report-hostile.html").absoluteString])
        XCTAssertTrue(dom.contains("</main>"), String(dom.suffix(2000)))
        XCTAssertFalse(dom.lowercased().contains("<img"), "an img element from the data")
        XCTAssertFalse(dom.contains("pwned</title>"), "a handler from the data ran")
        XCTAssertTrue(dom.contains("&lt;img src=x onerror=\"document.title='pwned'\"&gt;"), "the payload, as text")
        XCTAssertTrue(dom.contains("a|b"), "the value with a bar")
        // The explanations, below the drop-offs: a window tall enough for the whole page shows
        // them as more accent (their bars and shaded rows) and more ink than the same report without.
        var accent: [String: Int] = [:], ink: [String: Double] = [:]
        for (name, report) in [("whole", pages[0].1), ("whole-explained", explained)] {
            let page = dir.appendingPathComponent("\(name).html")
            let png = dir.appendingPathComponent("\(name).png")
            try report.html(command: Self.command, generatedAt: nil).write(to: page, atomically: true, encoding: .utf8)
            try? FileManager.default.removeItem(at: png)
            try screenshot(browser: browser, page: page, png: png, height: 7000)
            let stats = try PNGImage(data: Data(contentsOf: png)).stats()
            accent[name] = stats.accentPixels
            ink[name] = stats.inkShare
        }
        XCTAssertGreaterThan(accent["whole-explained"] ?? 0, (accent["whole"] ?? 0) + 5_000, "\(accent)")
        XCTAssertGreaterThan(ink["whole-explained"] ?? 0, (ink["whole"] ?? 0) * 1.1, "\(ink)")
        // "The numbers" with the most columns (--by week), in a wide and a narrow window.
        let byWeek = dir.appendingPathComponent("report-by-week.html")
        try population.report(by: .week).html(command: Self.command, generatedAt: nil).write(to: byWeek, atomically: true, encoding: .utf8)
        try assertTablesFit(byWeek, "report-by-week", narrow: true)
        // The example reports of the bundled sample data (reports/, kept current by a test).
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("reports")
        try assertTablesFit(examples.appendingPathComponent("glp1.html"), "reports/glp1.html")
        try assertTablesFit(examples.appendingPathComponent("glp1-cohort-glp1.html"), "reports/glp1-cohort-glp1.html")
        // The tables of what explains the drop-offs.
        try assertTablesFit(dir.appendingPathComponent("report-with-explanations.html"), "report-with-explanations", narrow: true)
        // The same checks tell a blank page apart.
        let blank = dir.appendingPathComponent("blank.html")
        let blankPNG = dir.appendingPathComponent("blank.png")
        try "<!DOCTYPE html><html><head><title>blank</title></head><body></body></html>\n"
            .write(to: blank, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(at: blankPNG)
        try screenshot(browser: browser, page: blank, png: blankPNG)
        let stats = try PNGImage(data: Data(contentsOf: blankPNG)).stats()
        XCTAssertLessThan(stats.distinctColours, 10, "blank: \(stats)")
        XCTAssertEqual(stats.barPixels + stats.accentPixels, 0, "blank: \(stats)")
        XCTAssertGreaterThan(stats.backgroundShare, 0.99, "blank: \(stats)")
    }

    /// "The numbers" in a 1280-pixel window: the page is no wider than the window and every
    /// table fits its box, no column scrolled out of sight. With `narrow`, also in an
    /// 800-pixel window, where a table may scroll inside its own box but the page still fits.
    func assertTablesFit(_ page: URL, _ name: String, narrow: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        let wide = try Chromium.layout(of: page, width: 1280)
        XCTAssertEqual(wide.viewport, 1280, name, file: file, line: line)
        XCTAssertFalse(wide.boxes.isEmpty, "\(name): no table box", file: file, line: line)
        XCTAssertLessThanOrEqual(wide.documentWidth, wide.viewport, "\(name): \(wide)", file: file, line: line)
        for box in wide.boxes {
            XCTAssertLessThanOrEqual(box.scrollWidth, box.clientWidth, "\(name) at 1280 px: \(box.label): \(wide)", file: file, line: line)
            XCTAssertLessThanOrEqual(box.right, wide.viewport, "\(name) at 1280 px: \(box.label): \(wide)", file: file, line: line)
        }
        guard narrow else { return }
        let small = try Chromium.layout(of: page, width: 800)
        XCTAssertLessThanOrEqual(small.documentWidth, small.viewport, "\(name) at 800 px: \(small)", file: file, line: line)
        for box in small.boxes {
            XCTAssertLessThanOrEqual(box.right, small.viewport, "\(name) at 800 px: \(box.label): \(small)", file: file, line: line)
        }
    }

    /// `report` with the hostile values of issue 39 in its names: an `<img>` whose handler
    /// retitles the page, ESC and BEL, a formula, a `|`, a 36-character id.
    static func hostile(_ report: FunnelReport) -> FunnelReport {
        var r = report
        let img = "<img src=x onerror=\"document.title='pwned'\">"
        r.cohort = img
        r.filters = ["appVersion=3.1\u{1B}[2J\u{07}"]
        r.steps[0].step = "a|b" + img
        if var drift = r.drift, !drift.isEmpty {
            drift[0].value = img
            drift[0].summary = "weightGoal = \(img): a value the flow does not list"
            drift[0].appVersions = ["=HYPERLINK(\"http://evil.example\")", "3f2b8c1e-9a4d-4e7b-b1c2-5d6e7f8a9b0c"]
            r.drift = drift
        }
        return r
    }

    /// The mini flow after the app renamed `already_on_glp1` and shipped a flag it does not declare.
    static let driftedMiniFlow: FlowDefinition = {
        var d = miniFlow
        let renamed = { (text: String) in text.replacingOccurrences(of: "already_on_glp1", with: "on_glp1") }
        d.lanes = d.lanes.map { lane in
            var lane = lane
            lane.when = lane.when.map(renamed)
            return lane
        }
        d.steps = d.steps.map { step in
            var step = step
            step.collects = step.collects.map { FlowDefinition.Collected(key: $0.key, values: $0.values?.map(renamed)) }
            return step
        }
        d.lanes = d.lanes.map { lane in
            var lane = lane
            lane.steps = lane.steps.map { FlowDefinition.LaneStep(id: $0.id, when: $0.when, flag: $0.flag == "completionScreenForExplorers" ? nil : $0.flag) }
            return lane
        }
        d.flags = d.flags.filter { $0.id != "completionScreenForExplorers" }
        d.cohorts = d.cohorts.map { FlowDefinition.Cohort(id: $0.id, title: $0.title, where: renamed($0.where)) }
        return d
    }()

    /// The chromium binary on PATH. Without one: a failure telling how to install it on CI,
    /// a skip elsewhere.
    func chromium() throws -> String {
        if let path = Chromium.path { return path }
        let message = "chromium is not on PATH: install it with `apt-get install -y chromium` (Debian) to run the browser test"
        if ProcessInfo.processInfo.environment["CI"] != nil {
            XCTFail(message)
        }
        throw XCTSkip(message)
    }

    func screenshot(browser: String, page: URL, png: URL, height: Int = 2000) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("funnel-chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                             "--user-data-dir=\(profile.path)", "--screenshot=\(png.path)",
                             "--window-size=1200,\(height)", page.absoluteString]
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("funnel-chromium-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        if process.isRunning {
            process.terminate()
            XCTFail("chromium took over 120 s to screenshot \(page.path)")
        }
        process.waitUntilExit()
        try? handle.close()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertTrue(FileManager.default.fileExists(atPath: png.path),
                      "chromium (exit \(process.terminationStatus)) wrote no screenshot of \(page.path):\n\(output)")
    }

    func testPNGDecoderReadsAKnownImage() throws {
        // A 2×1 RGB image, red then white, filter Sub on its one row.
        var raw: [UInt8] = [1, 255, 0, 0, 0, 255, 255]
        var compressed = [UInt8](repeating: 0, count: 64)
        var length = UInt(compressed.count)
        XCTAssertEqual(compress(&compressed, &length, &raw, UInt(raw.count)), Z_OK)
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let n = UInt32(data.count)
            return [UInt8(n >> 24), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + Array(type.utf8) + data + [0, 0, 0, 0]
        }
        var png: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        png += chunk("IHDR", [0, 0, 0, 2, 0, 0, 0, 1, 8, 2, 0, 0, 0])
        png += chunk("IDAT", Array(compressed[..<Int(length)]))
        png += chunk("IEND", [])
        let image = try PNGImage(data: Data(png))
        XCTAssertEqual(image.pixel(0, 0), [255, 0, 0])
        XCTAssertEqual(image.pixel(1, 0), [255, 255, 255])
        XCTAssertEqual(image.stats().distinctColours, 2)
    }
}

/// Just enough of a PNG decoder to look at a screenshot: 8-bit grey, RGB or RGBA, not
/// interlaced; IDAT inflated with the system zlib, scanline filters undone.
struct PNGImage {
    enum Failure: Error, CustomStringConvertible {
        case notPNG, unsupported(String), corrupt(String)
        var description: String {
            switch self {
            case .notPNG: return "not a PNG file"
            case .unsupported(let s): return "unsupported PNG: \(s)"
            case .corrupt(let s): return "corrupt PNG: \(s)"
            }
        }
    }

    let width: Int
    let height: Int
    let channels: Int
    /// Unfiltered samples, row by row.
    let samples: [UInt8]

    init(data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 8, bytes[0..<8] == [137, 80, 78, 71, 13, 10, 26, 10] else { throw Failure.notPNG }
        var offset = 8
        var width = 0, height = 0, channels = 0
        var idat: [UInt8] = []
        func be32(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        while offset + 8 <= bytes.count {
            let length = be32(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let body = offset + 8
            guard body + length + 4 <= bytes.count else { throw Failure.corrupt("chunk \(type) at byte \(offset) runs past the end") }
            if type == "IHDR" {
                width = be32(body)
                height = be32(body + 4)
                let depth = bytes[body + 8], colour = bytes[body + 9], interlace = bytes[body + 12]
                guard depth == 8, interlace == 0 else { throw Failure.unsupported("bit depth \(depth), interlace \(interlace)") }
                switch colour {
                case 0: channels = 1
                case 2: channels = 3
                case 4: channels = 2
                case 6: channels = 4
                default: throw Failure.unsupported("colour type \(colour)")
                }
            } else if type == "IDAT" {
                idat += bytes[body..<body + length]
            } else if type == "IEND" {
                break
            }
            offset = body + length + 4
        }
        guard width > 0, height > 0, channels > 0 else { throw Failure.corrupt("no IHDR") }
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: height * (stride + 1))
        var rawLength = UInt(raw.count)
        let status = uncompress(&raw, &rawLength, &idat, UInt(idat.count))
        guard status == Z_OK, Int(rawLength) == raw.count else {
            throw Failure.corrupt("IDAT inflates to \(rawLength) bytes (zlib status \(status)), expected \(raw.count)")
        }
        var out = [UInt8](repeating: 0, count: height * stride)
        for y in 0..<height {
            let filter = raw[y * (stride + 1)]
            let src = y * (stride + 1) + 1
            let dst = y * stride
            for x in 0..<stride {
                let a = x >= channels ? Int(out[dst + x - channels]) : 0
                let b = y > 0 ? Int(out[dst - stride + x]) : 0
                let c = (x >= channels && y > 0) ? Int(out[dst - stride + x - channels]) : 0
                let v = Int(raw[src + x])
                let predicted: Int
                switch filter {
                case 0: predicted = 0
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predicted = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: throw Failure.corrupt("filter \(filter) on row \(y)")
                }
                out[dst + x] = UInt8((v + predicted) & 255)
            }
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = out
    }

    /// RGB of a pixel.
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let i = (y * width + x) * channels
        if channels < 3 { return [samples[i], samples[i], samples[i]] }
        return [samples[i], samples[i + 1], samples[i + 2]]
    }

    struct Stats: CustomStringConvertible {
        var distinctColours: Int
        /// Share of the most common colour.
        var backgroundShare: Double
        /// Share of dark pixels (text, lines).
        var inkShare: Double
        /// Pixels of the bar slate (#4a5b6d) and of the accent (#d24b1f).
        var barPixels: Int
        var accentPixels: Int
        var description: String {
            "colours \(distinctColours), background \(backgroundShare), ink \(inkShare), bar \(barPixels), accent \(accentPixels)"
        }
    }

    func stats() -> Stats {
        var counts: [UInt32: Int] = [:]
        var ink = 0, bar = 0, accent = 0
        func near(_ p: [UInt8], _ r: Int, _ g: Int, _ b: Int) -> Bool {
            abs(Int(p[0]) - r) <= 12 && abs(Int(p[1]) - g) <= 12 && abs(Int(p[2]) - b) <= 12
        }
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y)
                counts[UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2]), default: 0] += 1
                if Int(p[0]) + Int(p[1]) + Int(p[2]) < 3 * 110 { ink += 1 }
                if near(p, 0x4a, 0x5b, 0x6d) { bar += 1 }
                if near(p, 0xd2, 0x4b, 0x1f) { accent += 1 }
            }
        }
        let total = Double(width * height)
        return Stats(distinctColours: counts.count, backgroundShare: Double(counts.values.max() ?? 0) / total,
                     inkShare: Double(ink) / total, barPixels: bar, accentPixels: accent)
    }
}
