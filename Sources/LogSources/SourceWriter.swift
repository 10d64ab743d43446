import FunnelModel

/// Writes a native event as a vendor's line, by its source definition turned around: each
/// envelope value at the first path of its list, the name mapped back, the time in the
/// vendor's format, a step view as the vendor's step-view event. `SourceMapping` of the line
/// gives the event back (for UTC formats, its time with offset 0). No per-vendor code.
public struct SourceWriter: Sendable {
    public let definition: SourceDefinition
    private let vendorNames: [String: String]

    /// Why an event cannot be written in a source's format.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public init(_ definition: SourceDefinition) {
        self.definition = definition
        var names: [String: String] = [:]
        for native in Set(definition.events.values) { names[native] = definition.vendorName(for: native) }
        vendorNames = names
    }

    /// The vendor line (compact JSON, keys sorted, no newline).
    public func line(for event: Event) throws(Failure) -> [UInt8] {
        Array(try value(for: event).jsonText.utf8)
    }

    public func value(for event: Event) throws(Failure) -> JSONValue {
        var line = JSONValue.object([:])
        // Properties first: an envelope value put later on one of their keys is a clash.
        if let at = definition.paths(.properties).first, !event.properties.isEmpty {
            try put(.object(event.properties), at, &line, "properties")
        } else if !event.properties.isEmpty {
            throw Failure(message: "\(definition.name) has no properties path for the event's properties")
        }
        try put(.string(event.id), .eventID, &line)
        try put(.string(event.userID), .userID, &line)
        try put(definition.timeFormat.value(event.time), .ts, &line)
        try putName(event, &line)
        try put(.string(event.flow), .flow, &line)
        if let v = event.context.appVersion { try put(.string(v), .appVersion, &line) }
        if let p = event.context.platform { try put(.string(p), .platform, &line) }
        try putFlags(event.context.flags, &line)
        guard event.context.other.isEmpty else {
            throw Failure(message: "\(definition.name) has no place for context fields \(event.context.other.keys.sorted().joined(separator: ", "))")
        }
        return line
    }

    private func putName(_ event: Event, _ line: inout JSONValue) throws(Failure) {
        if let view = definition.stepView, event.rawName == EventName.stepViewed.rawValue, let step = event.step,
           let at = view.step.first {
            try put(.string(view.equals), view.match, &line, "the step view")
            try put(.string(step), at, &line, "the step")
            return
        }
        if let view = definition.stepView, event.rawName == view.equals {
            throw Failure(message: "an event named \(JSONValue.quoted(event.rawName)) would read back as \(definition.name)'s step view")
        }
        if let types = definition.eventTypes, let carrying = types.carryEvent.first {
            try put(.string(carrying), types.path, &line, "the event type")
        }
        try put(.string(vendorNames[event.rawName] ?? event.rawName), .event, &line)
        if let step = event.step { try put(.string(step), .step, &line) }
    }

    private func putFlags(_ flags: [String: JSONValue], _ line: inout JSONValue) throws(Failure) {
        guard !flags.isEmpty else { return }
        switch definition.flags {
        case nil:
            throw Failure(message: "\(definition.name) has no place for flags")
        case .object(let paths)?:
            if let at = paths.first { try put(.object(flags), at, &line, "context.flags") }
        case .prefix(let container, let prefix)?:
            for (name, value) in flags {
                try put(value, SourcePath(keys: container.keys + [prefix + name]), &line, "flag \(name)")
            }
        }
    }

    private func put(_ value: JSONValue, _ field: SourceDefinition.Field, _ line: inout JSONValue) throws(Failure) {
        guard let at = definition.paths(field).first else {
            throw Failure(message: "\(definition.name) has no path for \(field.rawValue)")
        }
        try put(value, at, &line, field.rawValue)
    }

    private func put(_ value: JSONValue, _ at: SourcePath, _ line: inout JSONValue, _ what: String) throws(Failure) {
        guard at.put(value, into: &line) else {
            throw Failure(message: "\(definition.name): \(what) cannot go at \(at): a value is there already")
        }
    }
}
