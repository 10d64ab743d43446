import FunnelModel

/// The built-in sources: one per vendor, from schemas/sources/*.json, compiled into the binary
/// (BuiltInSources.generated.swift) as the built-in flows are.
public enum SourcePresets {
    /// The presets in file-name order. Each is checked by the test suite.
    public static let all: [SourceDefinition] = BuiltInSourceFiles.files.compactMap {
        SourceChecker.read(Array($0.json.utf8)).definition
    }

    /// The built-in JSON texts by file name (`posthog.json`), as they are in schemas/sources/.
    public static var files: [(name: String, json: String)] { BuiltInSourceFiles.files }

    public static func named(_ name: String) -> SourceDefinition? {
        all.first { $0.name == name }
    }
}
