import FunnelModel

/// `funnel sources list` as text and JSON.
public enum SourceText {
    /// One row a source: name, time format, step views and export files, then the fields'
    /// first paths in a second line.
    public static func list(_ sources: [SourceDefinition]) -> String {
        var out = ""
        for s in sources {
            let view = s.stepView.map { "\($0.match) = \($0.equals)" } ?? "a mapped name"
            let files = "\(s.exportFiles.per == .hour ? "hourly" : "daily") *.\(s.exportFiles.fileExtension)"
            out += "\(TerminalText.escape(s.name)) (\(TerminalText.escape(s.title ?? s.name))): time \(s.timeFormat.rawValue), "
                + "step views \(TerminalText.escape(view)), \(files)\n"
            let ids = [SourceDefinition.Field.eventID, .userID, .ts, .event].map { field in
                "\(field.rawValue) \(TerminalText.escape(s.paths(field).map(\.description).joined(separator: "|")))"
            }
            out += "  " + ids.joined(separator: ", ") + "\n"
        }
        return out
    }

    public static func json(_ sources: [SourceDefinition]) -> JSONValue {
        .array(sources.map(\.jsonValue))
    }
}

extension SourceDefinition {
    /// The definition in its file format (schemas/source.schema.json): reading it back gives
    /// the same definition.
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [:]
        for (field, list) in paths { fields[field.rawValue] = .array(list.map { .string($0.description) }) }
        switch flags {
        case .object(let list)?: fields["context.flags"] = .array(list.map { .string($0.description) })
        case .prefix(let container, let key)?: fields["context.flags"] = .object(["prefix": .string("\(container).\(key)")])
        case nil: break
        }
        var o: [String: JSONValue] = [
            "name": .string(name), "time_format": .string(timeFormat.rawValue), "fields": .object(fields),
            "events": .object(events.mapValues { .string($0) }),
            "export_files": .object(["per": .string(exportFiles.per.rawValue), "extension": .string(exportFiles.fileExtension)]),
        ]
        if let title { o["title"] = .string(title) }
        if let description { o["description"] = .string(description) }
        if let v = stepView {
            o["step_view"] = .object(["path": .string(v.match.description), "equals": .string(v.equals),
                                      "step": .array(v.step.map { .string($0.description) })])
        }
        if let t = eventTypes {
            o["event_types"] = .object(["path": .string(t.path.description), "carry_event": .array(t.carryEvent.map { .string($0) })])
        }
        return .object(o)
    }
}
