import Foundation
import XCTest

/// Definitions compiled into the binary by scripts/gen-builtin-flows hold the texts of the
/// files in `folder`, every one, by name: the generated file is not stale.
public func assertGenerated(_ files: [(name: String, json: String)], match folder: URL,
                            file: StaticString = #filePath, line: UInt = #line) throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
    XCTAssertEqual(files.map(\.name), names, "run scripts/gen-builtin-flows", file: file, line: line)
    for generated in files {
        var text = try String(contentsOf: folder.appendingPathComponent(generated.name), encoding: .utf8)
        if text.hasSuffix("\n") { text.removeLast() }
        XCTAssertEqual(generated.json, text, "\(generated.name) changed: run scripts/gen-builtin-flows", file: file, line: line)
    }
}
