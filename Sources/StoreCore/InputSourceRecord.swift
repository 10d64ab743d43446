import FunnelModel
import LogSources

/// The source an input was read through, as a store records it with the input (`inputs.source`
/// and `inputs.source_flow` on SQLite): what a reader of its stored lines maps them with again.
public struct InputSourceRecord: Sendable, Hashable {
    /// The source definition as resolved, in its file format (schemas/source.schema.json).
    public var definitionJSON: String
    /// The flow of events whose line carries none (`ingest --flow`).
    public var defaultFlow: String?

    public init(definitionJSON: String, defaultFlow: String?) {
        self.definitionJSON = definitionJSON
        self.defaultFlow = defaultFlow
    }

    public init(_ mapping: SourceMapping) {
        self.init(definitionJSON: mapping.definition.jsonValue.jsonText, defaultFlow: mapping.defaultFlow)
    }

    /// The mapping the input was read with; nil when the recorded definition no longer reads.
    public var mapping: SourceMapping? {
        SourceChecker.read(Array(definitionJSON.utf8)).definition.map { SourceMapping($0, defaultFlow: defaultFlow) }
    }
}

extension InputSourceRecord {
    private static let cutters = BoundedCache<InputSourceRecord, SourceCutter?>(limit: Tuning.cachedSources)

    /// A cutter of `mapping`, its definition read once a process: a reader of stored lines is
    /// made for each read (a fold, a replay, an export), and maps the lines of the inputs it
    /// meets.
    public var cutter: SourceCutter? {
        Self.cutters.value(for: self) { mapping.map(SourceCutter.init) }
    }
}
