import XCTest
@testable import Reports

/// The CSV and Markdown forms of untrusted values (docs/security.md).
final class EscapingTests: XCTestCase {
    func testCSVNeutralisesFormulas() {
        XCTAssertEqual(CSV.field(#"=HYPERLINK("http://evil.example","x")"#), #""'=HYPERLINK(""http://evil.example"",""x"")""#)
        XCTAssertEqual(CSV.field("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0")
        XCTAssertEqual(CSV.field("-2+3"), "'-2+3")
        XCTAssertEqual(CSV.field("@SUM(A1)"), "'@SUM(A1)")
        XCTAssertEqual(CSV.field("\t=1"), #"'\x09=1"#)
        XCTAssertEqual(CSV.field("\r=1"), #"'\x0D=1"#)
        // Numbers and ordinary text are left alone; a formula character inside is harmless.
        XCTAssertEqual(CSV.field("-12.5"), "-12.5")
        XCTAssertEqual(CSV.field("+3"), "+3")
        XCTAssertEqual(CSV.field("u-000001"), "u-000001")
        XCTAssertEqual(CSV.field("a=b"), "a=b")
        XCTAssertEqual(CSV.field("a,b"), "\"a,b\"")
        XCTAssertEqual(CSV.field("u-\u{1B}[31m"), #"u-\x1B[31m"#)
        XCTAssertEqual(CSV.row(["=1", "x"]), "'=1,x\n")
    }

    func testRawCSVKeepsValues() {
        XCTAssertEqual(CSV.field(#"=HYPERLINK("a")"#, raw: true), #""=HYPERLINK(""a"")""#)
        XCTAssertEqual(CSV.field("u-\u{1B}[31m", raw: true), "u-\u{1B}[31m")
        XCTAssertEqual(CSV.field("two\nlines", raw: true), "\"two\nlines\"")
        XCTAssertEqual(CSV.row(["-2+3", "@x"], raw: true), "-2+3,@x\n")
    }

    func testMarkdownTextIsNeverMarkup() {
        XCTAssertEqual(Markdown.text("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;")
        XCTAssertEqual(Markdown.text("a|b & c"), "a\\|b &amp; c")
        XCTAssertEqual(Markdown.text("[click](http://evil) *x* _y_ `z`"), #"\[click\](http://evil) \*x\* \_y\_ \`z\`"#)
        XCTAssertEqual(Markdown.text("3.1\u{1B}[2J"), #"3.1\\x1B\[2J"#)
    }

    func testMarkdownCodeSpans() {
        XCTAssertEqual(Markdown.code("<img src=x>"), "`<img src=x>`")
        XCTAssertEqual(Markdown.code("a|b", inTable: true), "`a\\|b`")
        XCTAssertEqual(Markdown.code("a|b"), "`a|b`")
        XCTAssertEqual(Markdown.code("x`y"), "``x`y``")
        XCTAssertEqual(Markdown.code("`x``"), "``` `x`` ```")
        XCTAssertEqual(Markdown.code("u\u{07}"), #"`u\x07`"#)
    }

    /// The report's Markdown with hostile values: no raw HTML, and every table row keeps its cells.
    func testReportMarkdownWithHostileValues() {
        var r = Population(users: 60).report()
        r.steps[0].step = "a|b<img src=x onerror=alert(1)>"
        r.steps[0].lane = "lane|<b>x</b>"
        r.cohort = "<script>c</script>"
        let md = r.markdown()
        // Outside code spans (whose text a renderer shows as it is) no tag at all.
        let prose = md.replacingOccurrences(of: #"`[^`]*`"#, with: "", options: .regularExpression)
        XCTAssertFalse(prose.contains("<img"), prose)
        XCTAssertFalse(prose.contains("<b>"), prose)
        XCTAssertFalse(prose.contains("<script"), prose)
        XCTAssertTrue(md.contains("`a\\|b<img src=x onerror=alert(1)>`"), md)
        XCTAssertTrue(md.contains("cohort &lt;script&gt;c&lt;/script&gt;"), md)
        XCTAssertTrue(md.contains("| lane\\|&lt;b&gt;x&lt;/b&gt; | `a\\|b<img src=x onerror=alert(1)>` |"), md)
        // Each row has its table's cells: the step table's 10, the adjacent pairs' 6.
        var header: [String: Int] = ["| lane": 12, "| from": 8]
        var width = 0
        for row in md.split(separator: "\n") where row.hasPrefix("| ") && !row.hasPrefix("| users") {
            if let w = header.first(where: { row.hasPrefix($0.key + " |") })?.value {
                width = w
                header = header.filter { $0.value != w }
                continue
            }
            guard row.contains("`") else { continue }
            let cells = row.replacingOccurrences(of: "\\|", with: "").split(separator: "|", omittingEmptySubsequences: false)
            XCTAssertEqual(cells.count, width, String(row))
        }
        XCTAssertTrue(header.isEmpty, "both tables: \(md)")
    }
}
