/// A predicate over what a user's journey has shown so far, written as text in flow
/// definitions: `weightGoal != maintain`, `injectionFrequency in [weekly, biweekly]`,
/// `flag:trackingStyleQuestion`, `app_version >= 3.2.0 and not flag:newPaywall`.
///
/// Grammar (keywords are lower case):
/// ```
/// expr       := term ("or" term)*
/// term       := factor ("and" factor)*
/// factor     := "not" factor | "(" expr ")" | comparison
/// comparison := key [op value | ("in" | "not in") "[" value ("," value)* "]"]
/// op         := "==" | "=" | "!=" | "<" | "<=" | ">" | ">="
/// key        := a collected value's name, `flag:NAME`, `app_version`, `platform` or `start_date`
/// ```
/// A bare key is true when its value is truthy (a flag that is on). Values may be quoted
/// with `"`. Evaluation is three-valued: a comparison on a value not known yet is `nil`.
public indirect enum Condition: Sendable, Hashable, CustomStringConvertible {
    case compare(key: String, op: Operator, value: String)
    case member(key: String, values: [String], negated: Bool)
    case truthy(key: String)
    case not(Condition)
    case and([Condition])
    case or([Condition])

    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">="
    }

    /// Every key the condition reads.
    /// The values the condition compares keys with for (in)equality or membership, each with
    /// its key, in order: what a typo in a value would hide behind.
    public var comparedValues: [(key: String, value: String)] {
        switch self {
        case .compare(let k, let op, let v): return op == .eq || op == .ne ? [(k, v)] : []
        case .member(let k, let vs, _): return vs.map { (k, $0) }
        case .truthy: return []
        case .not(let c): return c.comparedValues
        case .and(let cs), .or(let cs): return cs.flatMap(\.comparedValues)
        }
    }

    public var keys: [String] {
        switch self {
        case .compare(let k, _, _), .member(let k, _, _), .truthy(let k): return [k]
        case .not(let c): return c.keys
        case .and(let cs), .or(let cs): return cs.flatMap(\.keys)
        }
    }

    public var description: String {
        func q(_ v: String) -> String {
            v.allSatisfy({ $0.isLetter || $0.isNumber || "_-.:".contains($0) }) && !v.isEmpty ? v : JSONValue.quoted(v)
        }
        switch self {
        case .compare(let k, let op, let v): return "\(k) \(op.rawValue) \(q(v))"
        case .member(let k, let vs, let neg):
            return "\(k) \(neg ? "not in" : "in") [\(vs.map(q).joined(separator: ", "))]"
        case .truthy(let k): return k
        case .not(let c): return "not \(c.descriptionAsOperand)"
        case .and(let cs): return cs.map(\.descriptionAsOperand).joined(separator: " and ")
        case .or(let cs): return cs.map(\.descriptionAsOperand).joined(separator: " or ")
        }
    }

    private var descriptionAsOperand: String {
        switch self {
        case .and, .or: return "(\(description))"
        default: return description
        }
    }
}

/// What a condition is evaluated against.
public struct ConditionContext: Sendable, Hashable {
    /// Values collected by `step_completed` events, by name.
    public var values: [String: JSONValue]
    public var flags: [String: JSONValue]
    public var appVersion: String?
    public var platform: String?
    /// The UTC day the user started, `YYYY-MM-DD`.
    public var startDate: String?
    /// Flags that are off unless an event says otherwise (a definition's defaults).
    public var flagDefaults: [String: Bool]

    public init(values: [String: JSONValue] = [:], flags: [String: JSONValue] = [:],
                appVersion: String? = nil, platform: String? = nil, startDate: String? = nil,
                flagDefaults: [String: Bool] = [:]) {
        self.values = values
        self.flags = flags
        self.appVersion = appVersion
        self.platform = platform
        self.startDate = startDate
        self.flagDefaults = flagDefaults
    }

    /// The value a key names, or nil when it is not known.
    public func lookup(_ key: String) -> JSONValue? {
        if key.hasPrefix("flag:") {
            let name = String(key.dropFirst(5))
            if let v = flags[name] { return v }
            // A flag no event mentions is off (or its definition's default).
            return .bool(flagDefaults[name] ?? false)
        }
        switch key {
        case "app_version": return appVersion.map(JSONValue.string)
        case "platform": return platform.map(JSONValue.string)
        case "start_date": return startDate.map(JSONValue.string)
        default: return values[key]
        }
    }

    public func isFlagOn(_ name: String) -> Bool {
        lookup("flag:" + name)?.boolValue ?? false
    }
}

extension Condition {
    /// true, false, or nil when a value it needs is not known yet.
    public func evaluate(_ ctx: ConditionContext) -> Bool? {
        switch self {
        case .truthy(let k):
            guard let v = ctx.lookup(k) else { return nil }
            if let b = v.boolValue { return b }
            if case .null = v { return false }
            return true
        case .compare(let k, let op, let rhs):
            guard let v = ctx.lookup(k) else { return nil }
            let lhs = v.textValue
            switch op {
            case .eq: return Condition.equal(v, rhs)
            case .ne: return !Condition.equal(v, rhs)
            default:
                let c = Condition.order(lhs, rhs, versionLike: k == "app_version")
                switch op {
                case .lt: return c < 0
                case .le: return c <= 0
                case .gt: return c > 0
                case .ge: return c >= 0
                default: return nil
                }
            }
        case .member(let k, let vs, let negated):
            guard let v = ctx.lookup(k) else { return nil }
            let hit = vs.contains { Condition.equal(v, $0) }
            return negated ? !hit : hit
        case .not(let c):
            return c.evaluate(ctx).map { !$0 }
        case .and(let cs):
            var unknown = false
            for c in cs {
                switch c.evaluate(ctx) {
                case .some(false): return false
                case .none: unknown = true
                case .some(true): break
                }
            }
            return unknown ? nil : true
        case .or(let cs):
            var unknown = false
            for c in cs {
                switch c.evaluate(ctx) {
                case .some(true): return true
                case .none: unknown = true
                case .some(false): break
                }
            }
            return unknown ? nil : false
        }
    }

    static func equal(_ v: JSONValue, _ rhs: String) -> Bool {
        if let b = v.boolValue, case .bool = v {
            return rhs == (b ? "true" : "false") || rhs == (b ? "on" : "off")
        }
        if case .number(let n) = v, let a = Double(n), let b = Double(rhs) { return a == b }
        return v.textValue == rhs
    }

    /// -1, 0, 1. Numbers numerically; versions (`3.10.0` > `3.9.1`) part by part; else text.
    static func order(_ a: String, _ b: String, versionLike: Bool) -> Int {
        if !versionLike, let x = Double(a), let y = Double(b) { return x < y ? -1 : (x > y ? 1 : 0) }
        if versionLike || (a.contains(".") && b.contains(".") && a.first?.isNumber == true && b.first?.isNumber == true) {
            let pa = a.split(separator: "."), pb = b.split(separator: ".")
            if pa.allSatisfy({ Int($0) != nil }) && pb.allSatisfy({ Int($0) != nil }) {
                for i in 0..<max(pa.count, pb.count) {
                    let x = i < pa.count ? Int(pa[i]) ?? 0 : 0
                    let y = i < pb.count ? Int(pb[i]) ?? 0 : 0
                    if x != y { return x < y ? -1 : 1 }
                }
                return 0
            }
        }
        return a < b ? -1 : (a > b ? 1 : 0)
    }
}

/// Why a condition's text could not be read.
public struct ConditionParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public var offset: Int
    public var reason: String
    public var description: String { "cannot read condition \"\(text)\" at character \(offset + 1): \(reason)" }
}

extension Condition {
    public init(parsing text: String) throws(ConditionParseError) {
        let parsed = ConditionCache.shared.value(for: text) {
            var p = ConditionParser(text: text)
            return Result { () throws(ConditionParseError) in try p.parseAll() }
        }
        self = try parsed.get()
    }
}

/// Parsed conditions by text: a flow's few conditions are read for every journey folded.
enum ConditionCache {
    static let shared = BoundedCache<String, Result<Condition, ConditionParseError>>(limit: Tuning.cachedConditions)
}

struct ConditionParser {
    enum Token: Equatable { case word(String), quoted(String), op(String), lparen, rparen, lbracket, rbracket, comma }
    let text: String
    var tokens: [(Token, Int)] = []
    var pos = 0

    init(text: String) { self.text = text }

    func fail(_ reason: String, at: Int? = nil) -> ConditionParseError {
        ConditionParseError(text: text, offset: at ?? (pos < tokens.count ? tokens[pos].1 : text.count), reason: reason)
    }

    mutating func tokenize() throws(ConditionParseError) {
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == " " || c == "\t" { i += 1; continue }
            let start = i
            switch c {
            case "(": tokens.append((.lparen, i)); i += 1
            case ")": tokens.append((.rparen, i)); i += 1
            case "[": tokens.append((.lbracket, i)); i += 1
            case "]": tokens.append((.rbracket, i)); i += 1
            case ",": tokens.append((.comma, i)); i += 1
            case "\"":
                i += 1
                var s = ""
                while i < chars.count && chars[i] != "\"" {
                    if chars[i] == "\\" && i + 1 < chars.count { i += 1 }
                    s.append(chars[i]); i += 1
                }
                guard i < chars.count else { throw fail("unterminated string", at: start) }
                i += 1
                tokens.append((.quoted(s), start))
            case "=", "!", "<", ">", "≠":
                if c == "≠" { tokens.append((.op("!="), i)); i += 1; continue }
                var op = String(c); i += 1
                if i < chars.count && chars[i] == "=" { op.append("="); i += 1 }
                if op == "!" { throw fail("'!' must be followed by '='", at: start) }
                tokens.append((.op(op == "=" ? "==" : op), start))
            default:
                var s = ""
                while i < chars.count && !" \t()[],=!<>\"≠".contains(chars[i]) { s.append(chars[i]); i += 1 }
                tokens.append((.word(s), start))
            }
        }
    }

    mutating func parseAll() throws(ConditionParseError) -> Condition {
        try tokenize()
        guard !tokens.isEmpty else { throw fail("empty condition", at: 0) }
        let c = try parseOr()
        guard pos == tokens.count else { throw fail("unexpected text after the condition") }
        return c
    }

    func peekWord(_ w: String) -> Bool {
        pos < tokens.count && tokens[pos].0 == .word(w)
    }

    mutating func parseOr() throws(ConditionParseError) -> Condition {
        var items = [try parseAnd()]
        while peekWord("or") { pos += 1; items.append(try parseAnd()) }
        return items.count == 1 ? items[0] : .or(items)
    }

    mutating func parseAnd() throws(ConditionParseError) -> Condition {
        var items = [try parseFactor()]
        while peekWord("and") { pos += 1; items.append(try parseFactor()) }
        return items.count == 1 ? items[0] : .and(items)
    }

    mutating func parseFactor() throws(ConditionParseError) -> Condition {
        guard pos < tokens.count else { throw fail("condition ends too early") }
        if peekWord("not") { pos += 1; return .not(try parseFactor()) }
        if tokens[pos].0 == .lparen {
            pos += 1
            let c = try parseOr()
            guard pos < tokens.count, tokens[pos].0 == .rparen else { throw fail("expected ')'") }
            pos += 1
            return c
        }
        guard case .word(let key) = tokens[pos].0, !["and", "or", "in"].contains(key) else {
            throw fail("expected a key such as weightGoal or flag:NAME")
        }
        pos += 1
        if pos < tokens.count, case .op(let o) = tokens[pos].0 {
            pos += 1
            guard let op = Condition.Operator(rawValue: o) else { throw fail("unknown operator \(o)") }
            return .compare(key: key, op: op, value: try parseValue())
        }
        var negated = false
        if peekWord("not"), pos + 1 < tokens.count, tokens[pos + 1].0 == .word("in") { negated = true; pos += 1 }
        if peekWord("in") {
            pos += 1
            guard pos < tokens.count, tokens[pos].0 == .lbracket else { throw fail("expected '[' after 'in'") }
            pos += 1
            var values: [String] = []
            while true {
                values.append(try parseValue())
                guard pos < tokens.count else { throw fail("expected ']'") }
                if tokens[pos].0 == .comma { pos += 1; continue }
                if tokens[pos].0 == .rbracket { pos += 1; break }
                throw fail("expected ',' or ']'")
            }
            return .member(key: key, values: values, negated: negated)
        }
        if negated { throw fail("expected 'in' after 'not'") }
        return .truthy(key: key)
    }

    mutating func parseValue() throws(ConditionParseError) -> String {
        guard pos < tokens.count else { throw fail("expected a value") }
        switch tokens[pos].0 {
        case .word(let w), .quoted(let w): pos += 1; return w
        default: throw fail("expected a value")
        }
    }
}

extension Condition {
    /// Orders version strings part by part (`3.10.0` after `3.9.1`); -1, 0 or 1.
    public static func compareVersions(_ a: String, _ b: String) -> Int {
        order(a, b, versionLike: true)
    }
}
