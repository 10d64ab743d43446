import FunnelModel

/// Maps one vendor line to a native event by its source definition, or names why it cannot:
/// a pure function of the line's bytes. Every vendor line that is an object with the
/// envelope's required values maps to an event; lines that are no onboarding event
/// (`identify`, `$pageview`, a name outside the table) keep the vendor's name.
public struct SourceMapping: Sendable {
    public let definition: SourceDefinition
    /// The flow of events whose line carries none; nil: such a line is rejected.
    public let defaultFlow: String?
    /// The keys of the properties object that hold envelope values: not properties.
    private let consumed: Set<String>

    public init(_ definition: SourceDefinition, defaultFlow: String? = nil) {
        self.definition = definition
        self.defaultFlow = defaultFlow
        consumed = Self.consumedKeys(definition)
    }

    public func map(bytes: [UInt8]) -> Result<MappedEvent, SourceRejection> {
        bytes.withUnsafeBufferPointer { map($0) }
    }

    /// Maps one line (without its newline).
    public func map(_ b: UnsafeBufferPointer<UInt8>) -> Result<MappedEvent, SourceRejection> {
        do throws(SourceRejection) {
            let line = try parse(b)
            return .success(try mapped(line, b))
        } catch {
            return .failure(error)
        }
    }

    private var source: String { definition.name }

    private func parse(_ b: UnsafeBufferPointer<UInt8>) throws(SourceRejection) -> JSONValue {
        if let bad = UTF8Check.firstInvalid(b) {
            throw SourceRejection(.invalidUTF8, "\(source): invalid UTF-8 at byte \(bad + 1)", offset: bad)
        }
        var sc = JSONScanner(b)
        let value: JSONValue
        do throws(JSONSyntaxError) {
            sc.skipWhitespace()
            guard sc.peek != nil else { throw JSONSyntaxError(offset: sc.i, message: "empty line") }
            value = try sc.parseValue()
            sc.skipWhitespace()
            if sc.i < b.count { throw JSONSyntaxError(offset: sc.i, message: "unexpected text after the value") }
        } catch {
            throw SourceRejection(.notJSON, "\(source): not JSON at column \(error.offset + 1): \(error.message)", offset: error.offset)
        }
        guard case .object = value else {
            throw SourceRejection(.notObject, "\(source): not an object: the line is a JSON \(Self.kind(value))")
        }
        return value
    }

    private func mapped(_ line: JSONValue, _ b: UnsafeBufferPointer<UInt8>) throws(SourceRejection) -> MappedEvent {
        let id = try string(.eventID, line, b, required: true, nonEmpty: true)
        let (vendorName, name, viewedStep) = try naming(line, b)
        let user = try string(.userID, line, b, required: true, nonEmpty: true)
        let (time, timeText) = try self.time(line, b)
        let flow = try string(.flow, line, b, required: defaultFlow == nil, nonEmpty: false)
        let stepField = try string(.step, line, b, required: false, nonEmpty: false)
        var context = EventContext()
        context.appVersion = try string(.appVersion, line, b, required: false, nonEmpty: false)
        context.platform = try string(.platform, line, b, required: false, nonEmpty: false)
        context.flags = try flags(line, b)
        let event = Event(id: id ?? "", name: name, userID: user ?? "", time: time, flow: flow ?? defaultFlow ?? "", step: viewedStep ?? stepField,
                          properties: try properties(line, b), context: context)
        return MappedEvent(event: event, timeText: timeText, vendorName: vendorName)
    }

    /// The vendor's name for the event, the native name it maps to, and a step view's step.
    private func naming(_ line: JSONValue, _ b: UnsafeBufferPointer<UInt8>) throws(SourceRejection) -> (String, String, String?) {
        if let view = definition.stepView, view.match.value(in: line) == .string(view.equals) {
            var step: String?
            if let (path, value) = first(view.step, line) {
                guard case .string(let s) = value else { throw notAString(path, b) }
                step = s
            }
            return (view.equals, EventName.stepViewed.rawValue, step)
        }
        if let types = definition.eventTypes {
            guard let value = types.path.value(in: line) else {
                throw SourceRejection(.missingField, "\(source): no \(types.path)")
            }
            guard case .string(let type) = value else { throw notAString(types.path, b) }
            if !types.carryEvent.contains(type) { return (type, type, nil) }
        }
        let vendor = try string(.event, line, b, required: true, nonEmpty: false) ?? ""
        return (vendor, definition.events[vendor] ?? vendor, nil)
    }

    private func time(_ line: JSONValue, _ b: UnsafeBufferPointer<UInt8>) throws(SourceRejection) -> (Timestamp, String) {
        guard let (path, value) = first(definition.paths(.ts), line) else { throw missing(.ts) }
        let text: String
        switch value {
        case .string(let s): text = s
        case .number(let n): text = n
        default: text = value.jsonText
        }
        guard let time = definition.timeFormat.time(value) else {
            let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
            let written = value.stringValue != nil ? JSONValue.quoted(shown) : shown
            throw SourceRejection(.badTimestamp, "\(source): \(path) \(written) is not a time (\(Self.formatText(definition.timeFormat)))",
                                  offset: path.offset(in: b))
        }
        return (time, text)
    }

    private func properties(_ line: JSONValue, _ b: UnsafeBufferPointer<UInt8>) throws(SourceRejection) -> [String: JSONValue] {
        guard let (path, value) = first(definition.paths(.properties), line) else { return [:] }
        guard case .object(var o) = value else { throw notAnObject(path, b) }
        for key in consumed { o.removeValue(forKey: key) }
        if case .prefix(let container, let prefix)? = definition.flags, container == path {
            for key in o.keys where key.hasPrefix(prefix) { o.removeValue(forKey: key) }
        }
        return o
    }

    private func flags(_ line: JSONValue, _ b: UnsafeBufferPointer<UInt8>) throws(SourceRejection) -> [String: JSONValue] {
        switch definition.flags {
        case nil: return [:]
        case .object(let paths)?:
            guard let (path, value) = first(paths, line) else { return [:] }
            guard case .object(let o) = value else { throw notAnObject(path, b) }
            return o
        case .prefix(let container, let prefix)?:
            guard case .object(let o)? = container.value(in: line) else { return [:] }
            var out: [String: JSONValue] = [:]
            for (key, value) in o where key.hasPrefix(prefix) && key.count > prefix.count {
                out[String(key.dropFirst(prefix.count))] = value
            }
            return out
        }
    }

    /// The first present string of a field; nil when absent and not required.
    private func string(_ field: SourceDefinition.Field, _ line: JSONValue, _ b: UnsafeBufferPointer<UInt8>,
                        required: Bool, nonEmpty: Bool) throws(SourceRejection) -> String? {
        guard let (path, value) = first(definition.paths(field), line) else {
            if required { throw missing(field) }
            return nil
        }
        guard case .string(let s) = value else { throw notAString(path, b) }
        if nonEmpty && s.isEmpty {
            throw SourceRejection(.emptyField, "\(source): empty \(path)", offset: path.offset(in: b))
        }
        return s
    }

    private func first(_ paths: [SourcePath], _ line: JSONValue) -> (SourcePath, JSONValue)? {
        for path in paths {
            if let v = path.value(in: line) { return (path, v) }
        }
        return nil
    }

    private func missing(_ field: SourceDefinition.Field) -> SourceRejection {
        let names = definition.paths(field).map(\.description)
        let listed = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "") : names.joined()
        let more = field == .flow ? " and no default flow" : ""
        return SourceRejection(.missingField, "\(source): no \(listed.isEmpty ? field.rawValue : listed)\(more)")
    }

    private func notAString(_ path: SourcePath, _ b: UnsafeBufferPointer<UInt8>) -> SourceRejection {
        SourceRejection(.notAString, "\(source): \(path) must be a string", offset: path.offset(in: b))
    }

    private func notAnObject(_ path: SourcePath, _ b: UnsafeBufferPointer<UInt8>) -> SourceRejection {
        SourceRejection(.notAnObject, "\(source): \(path) must be an object", offset: path.offset(in: b))
    }

    private static func kind(_ v: JSONValue) -> String {
        switch v {
        case .array: return "array"
        case .string: return "string"
        case .bool: return "boolean"
        case .null: return "null"
        default: return "number"
        }
    }

    private static func formatText(_ f: SourceDefinition.TimeFormat) -> String {
        switch f {
        case .iso8601: return "expected ISO 8601 with an offset or Z"
        case .sqlUTC: return "expected YYYY-MM-DD HH:MM:SS.ffffff in UTC"
        case .unix: return "expected Unix seconds or milliseconds"
        }
    }

    /// Keys of the properties objects that other fields read: each path one key below a
    /// properties path (`properties.flow` when properties is `properties`).
    static func consumedKeys(_ d: SourceDefinition) -> Set<String> {
        var paths = SourceDefinition.Field.allCases.filter { $0 != .properties }.flatMap(d.paths)
        if let view = d.stepView { paths += view.step + [view.match] }
        if let types = d.eventTypes { paths.append(types.path) }
        if case .object(let flagPaths)? = d.flags { paths += flagPaths }
        var out: Set<String> = []
        for container in d.paths(.properties) {
            for p in paths where container.isParent(of: p) { out.insert(p.keys[p.keys.count - 1]) }
        }
        return out
    }
}
