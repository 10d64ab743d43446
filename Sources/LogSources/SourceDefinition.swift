import FunnelModel

/// Where a vendor's export line keeps each value of funnel's envelope (schemas/event.schema.json),
/// how it writes time, which of its events are step views and what its event names mean:
/// data, like a flow (schemas/source.schema.json; the presets in schemas/sources/).
public struct SourceDefinition: Sendable, Hashable {
    /// The envelope values a source finds by path. For each, the paths are tried in order and
    /// the first present (not absent, not null) wins.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case eventID = "event_id"
        case userID = "user_id"
        case ts
        case event
        case flow
        case step
        case properties
        case appVersion = "context.app_version"
        case platform = "context.platform"

        /// The fields every source must say where to find.
        public static let required: [Field] = [.eventID, .userID, .ts, .event]
    }

    /// How the vendor writes an event's time.
    public enum TimeFormat: String, Sendable, Hashable, CaseIterable {
        /// RFC 3339 with an offset or `Z` (`2026-10-01T10:00:00.123+02:00`), the offset kept.
        case iso8601
        /// `2026-10-01 10:00:00.123456` in UTC (Amplitude's `event_time`).
        case sqlUTC = "sql_utc"
        /// A Unix time: seconds, or milliseconds when the number is over 10^12 (Mixpanel's `time`).
        case unix
    }

    /// Where the feature flags are: one object, or every key of an object that starts with a
    /// prefix (`properties.$feature/NAME`: the flag `NAME`).
    public enum Flags: Sendable, Hashable {
        case object([SourcePath])
        case prefix(container: SourcePath, key: String)
    }

    /// A vendor event that means a step view: the line whose `match` value is `equals`,
    /// with its step at the first present of `step`.
    public struct StepView: Sendable, Hashable {
        public var match: SourcePath
        public var equals: String
        public var step: [SourcePath]
    }

    /// Vendors with a message type (Segment's `type`): only types in `carryEvent` have their
    /// name at the `event` paths; any other line is named by its type (`identify`, `page`).
    public struct EventTypes: Sendable, Hashable {
        public var path: SourcePath
        public var carryEvent: [String]
    }

    /// How `funnel sample --as` packs the lines in files: one per UTC day or hour, named
    /// `events-YYYY-MM-DD[-HH].EXTENSION`.
    public struct ExportFiles: Sendable, Hashable {
        public enum Per: String, Sendable, Hashable, CaseIterable { case day, hour }
        public var per: Per
        public var fileExtension: String

        public init(per: Per, fileExtension: String) {
            self.per = per
            self.fileExtension = fileExtension
        }
    }

    public var name: String
    public var title: String?
    public var description: String?
    public var timeFormat: TimeFormat
    public var paths: [Field: [SourcePath]]
    public var flags: Flags?
    public var stepView: StepView?
    public var eventTypes: EventTypes?
    /// Vendor event name → native name (`Onboarding Started` → `onboarding.started`). A name
    /// not in the table passes through as it is: a native name stays itself, any other is
    /// stored as the vendor wrote it (an unplanned event).
    public var events: [String: String]
    public var exportFiles: ExportFiles

    public init(name: String, title: String? = nil, description: String? = nil, timeFormat: TimeFormat,
                paths: [Field: [SourcePath]], flags: Flags? = nil, stepView: StepView? = nil,
                eventTypes: EventTypes? = nil, events: [String: String] = [:],
                exportFiles: ExportFiles = ExportFiles(per: .day, fileExtension: "json.gz")) {
        self.name = name
        self.title = title
        self.description = description
        self.timeFormat = timeFormat
        self.paths = paths
        self.flags = flags
        self.stepView = stepView
        self.eventTypes = eventTypes
        self.events = events
        self.exportFiles = exportFiles
    }

    /// The paths of a field, first to try first (none when the source does not have it).
    public func paths(_ field: Field) -> [SourcePath] { paths[field] ?? [] }

    /// The vendor name written for a native name: the first table entry (by name order) that
    /// maps to it, else the name itself.
    public func vendorName(for native: String) -> String {
        events.filter { $0.value == native }.keys.min() ?? native
    }
}

extension SourceDefinition {
    /// The file name endings `ingest --source` collects from a directory: the export's own
    /// (`export_files`), JSON lines, plain or gzip, and zip archives of them (Amplitude's
    /// export as downloaded).
    public var inputExtensions: [String] {
        var out = ["." + exportFiles.fileExtension]
        for e in [".json", ".json.gz", ".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".zip"] where !out.contains(e) { out.append(e) }
        return out
    }
}
