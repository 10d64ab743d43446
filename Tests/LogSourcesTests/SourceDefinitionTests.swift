import XCTest
import LogSources

/// What `ingest --source` collects from a directory for each preset.
final class SourceDefinitionTests: XCTestCase {
    func testInputExtensionsStartWithTheExportsOwn() throws {
        let segment = try XCTUnwrap(SourcePresets.named("segment"))
        XCTAssertEqual(segment.inputExtensions, [".gz", ".json", ".json.gz", ".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".zip"])
        let posthog = try XCTUnwrap(SourcePresets.named("posthog"))
        XCTAssertEqual(posthog.inputExtensions, [".json.gz", ".json", ".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".zip"])
    }
}
