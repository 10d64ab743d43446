/// The shape of a definition file (a flow, a source) checked on its parsed tree: required
/// and optional fields, their types, no unknown field. Every fault is kept with the JSON
/// path of the value at fault, so one pass reports them all.
public struct JSONShape: Sendable {
    /// `any`: a field whose type its reader checks itself (one of several forms).
    public enum FieldType: Sendable { case string, integer, boolean, array, object, any }

    /// One fault: the JSON path (`$.lanes[1].steps[4]`) and what is wrong there.
    public struct Fault: Sendable, Hashable {
        public var path: String
        public var message: String
    }

    public private(set) var faults: [Fault] = []

    public init() {}

    public mutating func fault(_ path: String, _ message: String) {
        faults.append(Fault(path: path, message: message))
    }

    /// Checks that `v` is an object with the required fields, every field of the right type
    /// and no field outside `required` and `optional`; returns the object when it is one.
    public mutating func object(_ v: JSONValue, _ path: String, required: [String: FieldType],
                                optional: [String: FieldType]) -> [String: JSONValue]? {
        guard case .object(let o) = v else {
            fault(path, "expected an object, found \(Self.name(of: v))")
            return nil
        }
        for key in required.keys.sorted() where o[key] == nil {
            fault(path + "." + key, "missing field")
        }
        for key in o.keys.sorted() {
            guard let type = required[key] ?? optional[key] else {
                let known = (Array(required.keys) + Array(optional.keys)).sorted().joined(separator: ", ")
                fault(path + "." + key, "unknown field \"\(key)\"; known: \(known)")
                continue
            }
            guard let value = o[key] else { continue }
            if !Self.matches(value, type) {
                fault(path + "." + key, "expected \(Self.name(of: type)), found \(Self.name(of: value))")
            }
        }
        return o
    }

    /// A string field that is present must not be empty.
    public mutating func nonEmpty(_ o: [String: JSONValue], _ key: String, _ path: String) {
        if case .string(let s)? = o[key], s.isEmpty {
            fault(path + "." + key, "must not be empty")
        }
    }

    public static func matches(_ v: JSONValue, _ t: FieldType) -> Bool {
        switch (v, t) {
        case (.string, .string), (.bool, .boolean), (.array, .array), (.object, .object): return true
        case (.number(let n), .integer): return Int(n) != nil
        case (_, .any): return true
        default: return false
        }
    }

    public static func name(of t: FieldType) -> String {
        switch t {
        case .string: return "a string"
        case .integer: return "an integer"
        case .boolean: return "true or false"
        case .array: return "an array"
        case .object: return "an object"
        case .any: return "a value"
        }
    }

    public static func name(of v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number(let n): return "the number \(n)"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
