import FunnelModel

/// Reads a source definition file (schemas/source.schema.json) with `JSONScanner.parseDocument`
/// and reports every fault with its JSON path in one pass: the shape first, then each path,
/// time format and event name.
public enum SourceChecker {
    /// The definition when the file is sound, and every issue.
    public static func read(_ bytes: [UInt8]) -> (definition: SourceDefinition?, issues: [SourceIssue]) {
        let tree: JSONValue
        do throws(JSONSyntaxError) {
            tree = try JSONScanner.parseDocument(bytes)
        } catch {
            return (nil, [SourceIssue(.syntax, "$", "not JSON: \(error.located(in: bytes))")])
        }
        var reader = SourceReader()
        let definition = reader.definition(tree)
        let issues = reader.shape.faults.map { SourceIssue(.shape, $0.path, $0.message) } + reader.issues
        return (issues.isEmpty ? definition : nil, issues)
    }
}

/// The reading behind `SourceChecker`: shape faults go to `shape`, the rest to `issues`.
struct SourceReader {
    var shape = JSONShape()
    var issues: [SourceIssue] = []

    mutating func definition(_ tree: JSONValue) -> SourceDefinition? {
        guard let o = shape.object(tree, "$", required: ["name": .string, "time_format": .string, "fields": .object],
                                   optional: ["$schema": .string, "title": .string, "description": .string,
                                              "step_view": .object, "event_types": .object, "events": .object,
                                              "export_files": .object]) else { return nil }
        shape.nonEmpty(o, "name", "$")
        let format = o["time_format"]?.stringValue.flatMap(SourceDefinition.TimeFormat.init(rawValue:))
        if case .string(let text)? = o["time_format"], format == nil {
            let known = SourceDefinition.TimeFormat.allCases.map(\.rawValue).joined(separator: ", ")
            shape.fault("$.time_format", "unknown time format \"\(text)\"; expected one of \(known)")
        }
        let (paths, flags) = fields(o["fields"])
        let stepView = o["step_view"].flatMap { self.stepView($0) }
        let eventTypes = o["event_types"].flatMap { self.eventTypes($0) }
        let events = o["events"].map { self.events($0) } ?? [:]
        let files = o["export_files"].flatMap { self.exportFiles($0) }
        guard let name = o["name"]?.stringValue, let format, let paths else { return nil }
        return SourceDefinition(name: name, title: o["title"]?.stringValue, description: o["description"]?.stringValue,
                                timeFormat: format, paths: paths, flags: flags, stepView: stepView,
                                eventTypes: eventTypes, events: events,
                                exportFiles: files ?? SourceDefinition.ExportFiles(per: .day, fileExtension: "json.gz"))
    }

    mutating func fields(_ v: JSONValue?) -> ([SourceDefinition.Field: [SourcePath]]?, SourceDefinition.Flags?) {
        guard let v else { return (nil, nil) }
        var required: [String: JSONShape.FieldType] = [:]
        var optional: [String: JSONShape.FieldType] = ["context.flags": .any]
        for field in SourceDefinition.Field.allCases {
            if SourceDefinition.Field.required.contains(field) { required[field.rawValue] = .array } else { optional[field.rawValue] = .array }
        }
        guard let o = shape.object(v, "$.fields", required: required, optional: optional) else { return (nil, nil) }
        var paths: [SourceDefinition.Field: [SourcePath]] = [:]
        var whole = true
        for field in SourceDefinition.Field.allCases {
            guard case .array? = o[field.rawValue] else { if o[field.rawValue] != nil { whole = false }; continue }
            guard let list = pathList(o[field.rawValue], "$.fields.\(field.rawValue)") else { whole = false; continue }
            paths[field] = list
        }
        return (whole ? paths : nil, flags(o["context.flags"]))
    }

    /// `context.flags`: a list of object paths, or `{"prefix": "properties.$feature/"}`.
    mutating func flags(_ v: JSONValue?) -> SourceDefinition.Flags? {
        let at = "$.fields.context.flags"
        switch v {
        case nil: return nil
        case .array?: return pathList(v, at).map { .object($0) }
        case .object?:
            guard let o = shape.object(v ?? .null, at, required: ["prefix": .string], optional: [:]),
                  let text = o["prefix"]?.stringValue else { return nil }
            let keys = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard keys.count >= 2, let key = keys.last, !key.isEmpty,
                  let container = SourcePath(keys.dropLast().joined(separator: ".")) else {
                issues.append(SourceIssue(.badPath, at + ".prefix", "expected OBJECT.PREFIX (properties.$feature/), found \"\(text)\""))
                return nil
            }
            return .prefix(container: container, key: key)
        case let other?:
            shape.fault(at, "expected a list of paths or {\"prefix\": …}, found \(JSONShape.name(of: other))")
            return nil
        }
    }

    /// A non-empty list of dotted paths.
    mutating func pathList(_ v: JSONValue?, _ at: String) -> [SourcePath]? {
        guard case .array(let items)? = v else { return nil }
        if items.isEmpty { shape.fault(at, "an empty list; give at least one vendor path") }
        var out: [SourcePath] = []
        for (i, item) in items.enumerated() {
            if let p = path(item, "\(at)[\(i)]") { out.append(p) }
        }
        return out.count == items.count && !items.isEmpty ? out : nil
    }

    mutating func path(_ v: JSONValue, _ at: String) -> SourcePath? {
        guard case .string(let text) = v else {
            shape.fault(at, "expected a string, found \(JSONShape.name(of: v))")
            return nil
        }
        guard let p = SourcePath(text) else {
            issues.append(SourceIssue(.badPath, at, "\"\(text)\" is not a path: keys joined by dots, none empty"))
            return nil
        }
        return p
    }

    mutating func stepView(_ v: JSONValue) -> SourceDefinition.StepView? {
        guard let o = shape.object(v, "$.step_view", required: ["path": .string, "equals": .string, "step": .array],
                                   optional: [:]),
              let match = o["path"].flatMap({ path($0, "$.step_view.path") }),
              let equals = o["equals"]?.stringValue,
              let step = pathList(o["step"], "$.step_view.step") else { return nil }
        return SourceDefinition.StepView(match: match, equals: equals, step: step)
    }

    mutating func eventTypes(_ v: JSONValue) -> SourceDefinition.EventTypes? {
        guard let o = shape.object(v, "$.event_types", required: ["path": .string, "carry_event": .array], optional: [:]),
              let at = o["path"].flatMap({ path($0, "$.event_types.path") }),
              case .array(let items)? = o["carry_event"] else { return nil }
        if items.isEmpty { shape.fault("$.event_types.carry_event", "an empty list; give the types whose lines carry an event name") }
        for (i, item) in items.enumerated() where item.stringValue == nil {
            shape.fault("$.event_types.carry_event[\(i)]", "expected a string, found \(JSONShape.name(of: item))")
        }
        return SourceDefinition.EventTypes(path: at, carryEvent: items.compactMap(\.stringValue))
    }

    mutating func events(_ v: JSONValue) -> [String: String] {
        guard case .object(let o) = v else { return [:] }
        var out: [String: String] = [:]
        for key in o.keys.sorted() {
            let at = "$.events[\(JSONValue.quoted(key))]"
            guard case .string(let target)? = o[key] else {
                shape.fault(at, "expected a string, found \(JSONShape.name(of: o[key] ?? .null))")
                continue
            }
            if EventName(normalizing: key) != nil {
                issues.append(SourceIssue(.badEventName, at, "\"\(key)\" is a native name: it passes through as it is; leave it out"))
            } else if EventName(rawValue: target) == nil {
                let hint = Self.nearest(target).map { "; did you mean \"\($0)\"?" } ?? ""
                issues.append(SourceIssue(.badEventName, at, "\"\(target)\" is not an event of the native contract (onboarding.…)\(hint)"))
            } else {
                out[key] = target
            }
        }
        return out
    }

    /// The native name a mistyped one most likely meant: its unprefixed spelling's, or the
    /// one sharing the longest start past `onboarding.` (at least three characters).
    static func nearest(_ name: String) -> String? {
        if let known = EventName(normalizing: name) { return known.rawValue }
        let shared = EventName.allCases.map { known in
            (known.rawValue, zip(known.rawValue, name).prefix { $0 == $1 }.count)
        }
        guard let best = shared.max(by: { $0.1 < $1.1 }), best.1 >= EventName.prefix.count + 3 else { return nil }
        return best.0
    }

    mutating func exportFiles(_ v: JSONValue) -> SourceDefinition.ExportFiles? {
        guard let o = shape.object(v, "$.export_files", required: ["per": .string, "extension": .string], optional: [:]) else { return nil }
        shape.nonEmpty(o, "extension", "$.export_files")
        let per = o["per"]?.stringValue.flatMap(SourceDefinition.ExportFiles.Per.init(rawValue:))
        if case .string(let text)? = o["per"], per == nil {
            shape.fault("$.export_files.per", "unknown value \"\(text)\"; expected day or hour")
        }
        guard let per, let ext = o["extension"]?.stringValue, !ext.isEmpty else { return nil }
        return SourceDefinition.ExportFiles(per: per, fileExtension: ext)
    }
}
