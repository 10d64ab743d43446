import XCTest
import FunnelModel

final class TerminalTextTests: XCTestCase {
    func testControlCharactersAreWrittenOut() {
        XCTAssertEqual(TerminalText.escape("u-\u{1B}]0;pwned\u{07}\u{1B}[31m"), #"u-\x1B]0;pwned\x07\x1B[31m"#)
        XCTAssertEqual(TerminalText.escape("a\nb\tc\rd\u{7F}e\u{0}"), #"a\x0Ab\x09c\x0Dd\x7Fe\x00"#)
        XCTAssertEqual(TerminalText.escape("csi\u{9B}31m nel\u{85}"), #"csi\u009B31m nel\u0085"#)
        XCTAssertEqual(TerminalText.escape("abc\u{202E}fed\u{2066}"), #"abc\u202Efed\u2066"#)
        // Printable text, accents and emoji are themselves; escaping twice changes nothing.
        XCTAssertEqual(TerminalText.escape("café ✓ 🍩 \\x1B"), "café ✓ 🍩 \\x1B")
        let once = TerminalText.escape("x\u{1B}y\u{9B}")
        XCTAssertEqual(TerminalText.escape(once), once)
    }

    /// Every ASCII character, alone and amid printable text, comes out as the rule for its
    /// scalar says: printable ASCII is told apart by its bytes, and the bounds hold.
    func testEveryASCIICharacterFollowsTheScalarRule() throws {
        for v in UInt32(0)..<0x80 {
            let scalar = try XCTUnwrap(Unicode.Scalar(v))
            let text = String(Character(scalar))
            let expected = TerminalText.escaped(scalar) ?? text
            XCTAssertEqual(TerminalText.escape(text), expected, "\(v)")
            XCTAssertEqual(TerminalText.escape("u-" + text + "-1"), "u-" + expected + "-1", "\(v)")
            XCTAssertEqual(TerminalText.escapeLines("a\n" + text), "a\n" + (v == 0x0A ? text : expected), "\(v)")
        }
        XCTAssertEqual(TerminalText.escape(" ~"), " ~")
        XCTAssertEqual(TerminalText.escape("\u{1F}\u{7F}"), #"\x1F\x7F"#)
    }

    func testLinesKeepTheirNewlines() {
        XCTAssertEqual(TerminalText.escapeLines("one \u{1B}[2J\ntwo\u{07}\n"), "one \\x1B[2J\ntwo\\x07\n")
    }

    /// A value cut to fit never ends inside an escape: the cut falls before it.
    func testFitNeverSplitsAnEscape() {
        let value = "3.1\u{1B}[2J-beta"
        XCTAssertEqual(TerminalText.escape(value), #"3.1\x1B[2J-beta"#)
        XCTAssertEqual(TerminalText.fit(value, width: 20), #"3.1\x1B[2J-beta"#)
        XCTAssertEqual(TerminalText.fit(value, width: 12), #"3.1\x1B[2J-…"#)
        for width in 1...16 {
            let cut = TerminalText.fit(value, width: width)
            XCTAssertLessThanOrEqual(cut.count, width, cut)
            XCTAssertTrue(cut == TerminalText.escape(value) || cut.hasSuffix("…"), cut)
            // What is kept is a whole prefix of the escaped value.
            XCTAssertTrue(TerminalText.escape(value).hasPrefix(String(cut.dropLast())), "\(width): \(cut)")
            XCTAssertNil(cut.range(of: #"\\x[0-9A-F]?…"#, options: .regularExpression), "\(width): \(cut)")
        }
        XCTAssertEqual(TerminalText.fit("3.1\u{1B}", width: 6), #"3.1…"#)
        XCTAssertEqual(TerminalText.fit("3f2b8c1e-9a4d-4e7b-b1c2-5d6e7f8a9b0c", width: 12), "3f2b8c1e-9a…")
    }
}
