import XCTest
import Foundation
import FunnelModel
import LogFiles
@testable import LineParsing

/// The template match against the full parser (`EventDecoder`): a matched line must be one the
/// parser accepts, with the same envelope and shape; a line the parser rejects never matches.
final class ShapeTemplatesTests: XCTestCase {
    private let sampleData = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("sample-data")

    /// Every line of a file, as the ingest splits it.
    private func lines(of path: String) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        let reader = LineReader(stream: try ByteStream(path: path))
        do { try reader.forEachLine { _, bytes in out.append(Array(bytes)) } } catch is InputError {}
        return out
    }

    /// What the parser makes of one line: its envelope, or why it is rejected.
    private func parsed(_ line: [UInt8]) -> Result<Envelope, Rejection> {
        var decoder = EventDecoder()
        return line.withUnsafeBufferPointer { decoder.envelope($0) }
    }

    /// The skeleton of a line's shape, from the parser's envelope.
    private func skeleton(_ line: [UInt8], _ env: Envelope) -> [UInt8] {
        var shape = LineShape()
        line.withUnsafeBufferPointer { shape.shape(env, lineStart: 0, lineEnd: $0.count, in: $0) }
        return shape.skeleton
    }

    /// Every line of every sample-data file (five flows, edge cases, bad input), one input a
    /// file: the keys with templates equal the keys of the full parse, line for line, and on
    /// the flows' logs almost every line is matched.
    func testEveryLineOfTheSampleDataKeysAsTheFullParse() throws {
        let files = try InputSource.discover([sampleData.path]).map(\.path)
        XCTAssertGreaterThan(files.count, 40)
        var matchedLines = 0, validLines = 0, flowLines = 0, matchedFlowLines = 0
        for path in files {
            var fast = LineKeyer(), full = LineKeyer()
            for line in try lines(of: path) {
                let expected = parsed(line)
                let match = line.withUnsafeBufferPointer { fast.match($0) }
                let isFlowLog = !path.contains("/bad/") && !path.contains("/edge/")
                if isFlowLog { flowLines += 1 }
                guard case .success(let env) = expected else {
                    XCTAssertNil(match, "\(path): a rejected line matched: \(String(decoding: line, as: UTF8.self))")
                    continue
                }
                validLines += 1
                if let match {
                    matchedLines += 1
                    if isFlowLog { matchedFlowLines += 1 }
                    XCTAssertEqual(match.envelope, env, "\(path): \(String(decoding: line, as: UTF8.self))")
                }
                let keys = line.withUnsafeBufferPointer { b in
                    (fast.keys(env, start: 0, end: b.count, in: b, shape: match?.shape),
                     full.keys(env, start: 0, end: b.count, in: b))
                }
                XCTAssertEqual([keys.0.idHash, Int64(keys.0.key), Int64(keys.0.user), Int64(keys.0.shape)],
                               [keys.1.idHash, Int64(keys.1.key), Int64(keys.1.user), Int64(keys.1.shape)], path)
            }
        }
        XCTAssertGreaterThan(validLines, 10_000)
        XCTAssertGreaterThan(matchedLines, 0)
        // Each input parses the first line of each shape in full, and matches the rest.
        XCTAssertGreaterThan(Double(matchedFlowLines) / Double(flowLines), 0.9, "\(matchedFlowLines) of \(flowLines)")
    }

    /// Lines near the learnt ones: each byte of each line replaced by a byte that matters to
    /// JSON, deleted, or doubled. A mutated line matches only when the parser accepts it with
    /// the same envelope and the template's shape.
    func testNearMissesMatchOnlyWhenTheParserAgrees() throws {
        // One line of each shape of the first glp1 file, and a few with escapes and UTF-8.
        var templates = ShapeTemplates()
        var shapes = ByteInterner()
        var skeletons: [[UInt8]] = []
        var learnt: [[UInt8]] = []
        let glp1 = try InputSource.discover([sampleData.appendingPathComponent("glp1").path]).map(\.path)
        let extra = [
            #"{"event_id":"x1","event":"onboarding.step_viewed","user_id":"u-é","ts":"2026-10-01T10:00:00Z","flow":"glp1","step":"goal","properties":{"a":[1,2.5e3,{"b":null}],"c":"\u00e9"},"context":{"platform":"ios","flags":{"f":true}},"extra":"v"}"#,
            #"{ "event_id" : "x2" , "event" : "onboarding.started" , "user_id" : "u-2" , "ts" : "2026-10-01T10:00:00+02:00" , "flow" : "glp1" }"#,
            #"{"event":"onboarding.started","event":"onboarding.step_viewed","event_id":"x3","user_id":"u-3","ts":"2026-10-01T10:00:00Z","flow":"glp1","step":"a"}"#,
        ].map { Array($0.utf8) }
        for line in try lines(of: glp1[0]) + extra {
            guard case .success(let env) = parsed(line) else { continue }
            let skel = skeleton(line, env)
            let (id, isNew) = skel.withUnsafeBufferPointer { shapes.intern($0) }
            guard isNew else { continue }
            skeletons.append(skel)
            var shape = LineShape()
            line.withUnsafeBufferPointer { b in
                shape.pickCuts(env, lineStart: 0, lineEnd: b.count)
                templates.learn(shape: Int32(id), cuts: shape.cuts, env: env, line: 0..<b.count, in: b)
            }
            learnt.append(line)
        }
        XCTAssertGreaterThan(templates.count, 5)
        let replacements: [UInt8] = [0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x20, 0x01, 0x7F, 0xC3, 0xFF, 0x61, 0x30, 0x2D, 0x2E]
        var matched = 0, missed = 0
        func check(_ line: [UInt8]) {
            let match = line.withUnsafeBufferPointer { templates.match($0) }
            guard let match else { missed += 1; return }
            matched += 1
            guard case .success(let env) = parsed(line) else {
                return XCTFail("matched a line the parser rejects: \(String(decoding: line, as: UTF8.self))")
            }
            XCTAssertEqual(match.envelope, env, String(decoding: line, as: UTF8.self))
            XCTAssertEqual(skeletons[Int(match.shape)], skeleton(line, env), String(decoding: line, as: UTF8.self))
        }
        for line in learnt {
            check(line)
            for i in line.indices {
                for r in replacements where r != line[i] {
                    var m = line
                    m[i] = r
                    check(m)
                }
                var deleted = line
                deleted.remove(at: i)
                check(deleted)
                var doubled = line
                doubled.insert(line[i], at: i)
                check(doubled)
            }
        }
        // Both ways are taken: values changed inside strings still match, the rest does not.
        XCTAssertGreaterThan(matched, 1_000)
        XCTAssertGreaterThan(missed, 10_000)
    }

    /// Shapes that differ before their first cut branch at the trie's root: past
    /// `shapeTemplateBranches` of them, lines of further shapes are parsed in full, and every
    /// line still keys as the full parse.
    func testBranchesAfterACutAreBounded() throws {
        let shapes = Tuning.shapeTemplateBranches + 4
        func line(_ shape: Int, _ n: Int) -> [UInt8] {
            Array(#"{"x\#(shape)":1,"event_id":"e\#(shape)-\#(n)","event":"onboarding.started","user_id":"u\#(n)","ts":"2026-10-01T10:00:00Z","flow":"f"}"#.utf8)
        }
        var fast = LineKeyer(), full = LineKeyer()
        var matched = [Bool](repeating: false, count: shapes)
        for n in 0..<3 {
            for shape in 0..<shapes {
                let l = line(shape, n)
                guard case .success(let env) = parsed(l) else { return XCTFail("line \(shape) \(n) is valid") }
                let match = l.withUnsafeBufferPointer { fast.match($0) }
                if let match {
                    matched[shape] = true
                    XCTAssertEqual(match.envelope, env)
                }
                let keys = l.withUnsafeBufferPointer { b in
                    (fast.keys(env, start: 0, end: b.count, in: b, shape: match?.shape), full.keys(env, start: 0, end: b.count, in: b))
                }
                XCTAssertEqual(keys.0.shape, keys.1.shape)
                XCTAssertEqual(keys.0.shape, Int32(shape))
            }
        }
        XCTAssertEqual(matched, (0..<shapes).map { $0 < Tuning.shapeTemplateBranches })
    }

    /// JSONTestSuite-style cases on the values a template cuts: the parser decides each, and
    /// the template agrees or leaves the line to it.
    func testCutValuesAreValidatedAsTheParserDoes() throws {
        let known = #"{"event_id":"a","event":"onboarding.step_viewed","user_id":"u","ts":"2026-10-01T10:00:00Z","flow":"f","step":"s","properties":{"k":1},"context":{"platform":"ios"}}"#
        var templates = ShapeTemplates()
        let line = Array(known.utf8)
        guard case .success(let env) = parsed(line) else { return XCTFail("the known line is valid") }
        var shape = LineShape()
        line.withUnsafeBufferPointer { b in
            shape.pickCuts(env, lineStart: 0, lineEnd: b.count)
            templates.learn(shape: 0, cuts: shape.cuts, env: env, line: 0..<b.count, in: b)
        }
        func variant(id: String = "a", user: String = "u", ts: String = "2026-10-01T10:00:00Z", step: String = "s",
                     properties: String = #"{"k":1}"#) -> [UInt8] {
            Array(#"{"event_id":"\#(id)","event":"onboarding.step_viewed","user_id":"\#(user)","ts":"\#(ts)","flow":"f","step":"\#(step)","properties":\#(properties),"context":{"platform":"ios"}}"#.utf8)
        }
        // (line, whether a template takes it): the rest go to the parser.
        let cases: [([UInt8], Bool)] = [
            (variant(id: "b-2"), true),
            (variant(user: "ü-ß-漢字-😀"), true),
            (variant(step: #"a\"b"#), false),
            (variant(step: #"\u00e9"#), false),
            (variant(id: ""), false),
            (variant(user: ""), false),
            (variant(ts: "2026-10-01"), false),
            (variant(ts: "2026-13-01T10:00:00Z"), false),
            (variant(ts: "2026-10-01T10:00:00.123456+05:30"), true),
            (variant(properties: "{}"), true),
            (variant(properties: #"{"a":[1,2,{"b":[true,false,null]}],"c":-0.5e-3}"#), true),
            (variant(properties: #"{"a":1,}"#), false),
            (variant(properties: #"{"a":01}"#), false),
            (variant(properties: #"{"a":"\x"}"#), false),
            (variant(properties: "[1]"), false),
            (variant(properties: "null"), false),
            (variant(properties: #"{"a":"\ud83d"}"#), true),
            (variant(properties: String(repeating: "[", count: 600) + String(repeating: "]", count: 600)), false),
            (variant(properties: "{" + String(repeating: #""a":{"#, count: 300) + #""a":1"# + String(repeating: "}", count: 301)), true),
            (variant(id: "a\u{1}"), false),
            (variant(step: "é-ü"), true),
            (variant(properties: #"{"é":"ü","k":1}"#), true),
            (variant(properties: #"{"a": [1, "é"]}"#), true),
            (Array(known.utf8) + [0x20], false),
            (Array(known.utf8.dropLast()), false),
        ]
        for (k, (line, takes)) in cases.enumerated() {
            let match = line.withUnsafeBufferPointer { templates.match($0) }
            XCTAssertEqual(match != nil, takes, "case \(k): \(String(decoding: line, as: UTF8.self))")
            if let match {
                XCTAssertEqual(parsed(line), .success(match.envelope), "case \(k)")
            }
        }
        // A user name with invalid UTF-8 is rejected by the parser with its offset.
        var bad = variant(user: "uX")
        let at = bad.firstIndex(of: UInt8(ascii: "X"))!
        bad[at] = 0xC3
        XCTAssertNil(bad.withUnsafeBufferPointer { templates.match($0) })
        XCTAssertEqual(parsed(bad), .failure(.invalidUTF8(offset: at)))
        // The line's UTF-8 is checked in its cut values only (its literals and tail are a
        // learnt line's): a byte that breaks it in any string or in the properties, whether
        // in a flat object or one `skipValue` reads, keeps the line from matching.
        let utf8Cases: [(String, String) -> [UInt8]] = [
            { v, _ in variant(id: v) }, { v, _ in variant(user: "u" + v) }, { v, _ in variant(step: v) },
            { v, k in variant(properties: #"{"\#(k)":"\#(v)"}"#) }, { v, k in variant(properties: #"{"\#(v)\#(k)":1}"#) },
            { v, k in variant(properties: #"{"a":[1,"\#(k)\#(v)"]}"#) },
        ]
        for make in utf8Cases {
            let good = make("xé", "é")
            XCTAssertNotNil(good.withUnsafeBufferPointer { templates.match($0) }, String(decoding: good, as: UTF8.self))
            XCTAssertEqual(parsed(good).map { _ in true }, .success(true))
            for broken: [UInt8] in [[0xC3], [0xFF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80]] {
                var line = make("xX", "é")
                let at = line.firstIndex(of: UInt8(ascii: "X"))!
                line.replaceSubrange(at...at, with: broken)
                XCTAssertNil(line.withUnsafeBufferPointer { templates.match($0) }, String(decoding: line, as: UTF8.self))
                XCTAssertEqual(parsed(line), .failure(.invalidUTF8(offset: at)), String(decoding: line, as: UTF8.self))
            }
        }
    }
}
