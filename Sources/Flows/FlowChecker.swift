import Foundation
import FunnelModel

/// Validates flow definitions: the JSON shape of schemas/flow.schema.json first, then the
/// meaning (step references, reachability, cycles, conditions, flags, terminals, duplicate
/// ids, lane conditions). Every issue comes with the JSON path of the value at fault.
public enum FlowChecker {
    /// Checks a definition file's bytes. An empty result means the definition is sound.
    public static func check(data: Data) -> [FlowIssue] {
        load(data: data).issues
    }

    /// Checks a definition file.
    public static func check(path: String) -> [FlowIssue] {
        checkFile(path).issues
    }

    /// Checks an already decoded definition (meaning only; the shape is given by the type).
    public static func check(_ flow: FlowDefinition) -> [FlowIssue] {
        var c = MeaningChecker(flow: flow)
        c.run()
        return c.issues
    }

    /// Reads and checks a definition; `definition` is nil when the shape is wrong.
    public static func load(data: Data) -> (definition: FlowDefinition?, issues: [FlowIssue]) {
        let reading = read(data: data)
        return (reading.definition, reading.issues)
    }

    /// A definition read and checked: the definition when its shape is right, the flow id
    /// when one can be read, and every issue. With shape faults, the meaning checks run on
    /// what can be read, so one pass reports every error.
    static func read(data: Data) -> (definition: FlowDefinition?, flowID: String?, issues: [FlowIssue]) {
        let bytes = Array(data)
        let tree: JSONValue
        do throws(JSONSyntaxError) {
            tree = try JSONScanner.parseDocument(bytes)
        } catch {
            return (nil, nil, [FlowIssue(.syntax, "$", "not JSON: \(error.located(in: bytes))")])
        }
        let flowID = tree.objectValue?["id"]?.stringValue
        var shape = ShapeChecker()
        shape.flow(tree)
        guard shape.issues.isEmpty else {
            guard let salvaged = FlowSalvage.read(tree) else { return (nil, flowID, shape.issues) }
            var meaning = MeaningChecker(flow: salvaged.flow, gaps: salvaged.gaps)
            meaning.run()
            return (nil, flowID, shape.issues + meaning.issues)
        }
        let flow: FlowDefinition
        do {
            flow = try JSONDecoder().decode(FlowDefinition.self, from: data)
        } catch let DecodingError.keyNotFound(key, ctx) {
            return (nil, flowID, [FlowIssue(.shape, jsonPath(ctx.codingPath + [key]), "missing field")])
        } catch let DecodingError.typeMismatch(_, ctx) {
            return (nil, flowID, [FlowIssue(.shape, jsonPath(ctx.codingPath), ctx.debugDescription)])
        } catch let DecodingError.valueNotFound(_, ctx) {
            return (nil, flowID, [FlowIssue(.shape, jsonPath(ctx.codingPath), ctx.debugDescription)])
        } catch let DecodingError.dataCorrupted(ctx) {
            return (nil, flowID, [FlowIssue(.shape, jsonPath(ctx.codingPath), ctx.debugDescription)])
        } catch {
            return (nil, flowID, [FlowIssue(.shape, "$", "\(error)")])
        }
        return (flow, flow.id, check(flow))
    }

    /// `$.lanes[1].steps[4]` for a decoder's coding path.
    static func jsonPath(_ keys: [any CodingKey]) -> String {
        var out = "$"
        for k in keys {
            if let i = k.intValue { out += "[\(i)]" } else { out += "." + k.stringValue }
        }
        return out
    }
}

/// The JSON shape of schemas/flow.schema.json, checked on the parsed tree so that every
/// misplaced, missing or unknown field is reported, not only the first.
struct ShapeChecker {
    var issues: [FlowIssue] = []

    typealias FieldType = JSONShape.FieldType

    mutating func flow(_ v: JSONValue) {
        guard let o = object(v, "$", required: ["id": .string, "title": .string, "lanes": .array, "steps": .array],
                             optional: ["$schema": .string, "version": .integer, "description": .string,
                                        "laneKey": .string, "flags": .array, "cohorts": .array]) else { return }
        nonEmpty(o, "id", "$")
        if case .array(let lanes)? = o["lanes"] {
            if lanes.isEmpty { issues.append(FlowIssue(.shape, "$.lanes", "a flow needs at least one lane")) }
            for (i, lane) in lanes.enumerated() { self.lane(lane, "$.lanes[\(i)]") }
        }
        if case .array(let steps)? = o["steps"] {
            if steps.isEmpty { issues.append(FlowIssue(.shape, "$.steps", "a flow needs at least one step")) }
            for (i, step) in steps.enumerated() { self.step(step, "$.steps[\(i)]") }
        }
        if case .array(let flags)? = o["flags"] {
            for (i, f) in flags.enumerated() {
                let p = "$.flags[\(i)]"
                if let fo = object(f, p, required: ["id": .string], optional: ["description": .string, "default": .boolean]) {
                    nonEmpty(fo, "id", p)
                }
            }
        }
        if case .array(let cohorts)? = o["cohorts"] {
            for (i, c) in cohorts.enumerated() {
                let p = "$.cohorts[\(i)]"
                if let co = object(c, p, required: ["id": .string, "where": .string], optional: ["title": .string]) {
                    nonEmpty(co, "id", p)
                }
            }
        }
    }

    mutating func lane(_ v: JSONValue, _ path: String) {
        guard let o = object(v, path, required: ["id": .string, "steps": .array],
                             optional: ["title": .string, "when": .string]) else { return }
        nonEmpty(o, "id", path)
        guard case .array(let steps)? = o["steps"] else { return }
        if steps.isEmpty { issues.append(FlowIssue(.shape, path + ".steps", "a lane needs at least one step")) }
        for (j, s) in steps.enumerated() {
            let p = "\(path).steps[\(j)]"
            switch s {
            case .string(let id):
                if id.isEmpty { issues.append(FlowIssue(.shape, p, "empty step id")) }
            case .object:
                if let so = object(s, p, required: ["id": .string], optional: ["when": .string, "flag": .string]) {
                    nonEmpty(so, "id", p)
                }
            default:
                issues.append(FlowIssue(.shape, p, "expected a step id or an object {id, when, flag}, found \(Self.name(of: s))"))
            }
        }
    }

    mutating func step(_ v: JSONValue, _ path: String) {
        guard let o = object(v, path, required: ["id": .string, "kind": .string],
                             optional: ["title": .string, "note": .string, "collects": .array, "when": .string,
                                        "flag": .string, "optional": .boolean]) else { return }
        nonEmpty(o, "id", path)
        if case .string(let kind)? = o["kind"], FlowDefinition.StepKind(rawValue: kind) == nil {
            let kinds = FlowDefinition.StepKind.allCases.map(\.rawValue).joined(separator: ", ")
            issues.append(FlowIssue(.shape, path + ".kind", "unknown kind \"\(kind)\"; expected one of \(kinds)"))
        }
        if case .array(let collects)? = o["collects"] {
            for (k, c) in collects.enumerated() {
                let p = "\(path).collects[\(k)]"
                guard let co = object(c, p, required: ["key": .string], optional: ["values": .array]) else { continue }
                nonEmpty(co, "key", p)
                if case .array(let values)? = co["values"] {
                    if values.isEmpty { issues.append(FlowIssue(.shape, p + ".values", "an empty value list; leave it out when the values are not known")) }
                    for (n, value) in values.enumerated() where value.stringValue == nil {
                        issues.append(FlowIssue(.shape, "\(p).values[\(n)]", "expected a string, found \(Self.name(of: value))"))
                    }
                }
            }
        }
    }

    /// `JSONShape.object`, its faults kept as shape issues.
    mutating func object(_ v: JSONValue, _ path: String, required: [String: FieldType],
                         optional: [String: FieldType]) -> [String: JSONValue]? {
        var shape = JSONShape()
        let o = shape.object(v, path, required: required, optional: optional)
        issues += shape.faults.map { FlowIssue(.shape, $0.path, $0.message) }
        return o
    }

    mutating func nonEmpty(_ o: [String: JSONValue], _ key: String, _ path: String) {
        var shape = JSONShape()
        shape.nonEmpty(o, key, path)
        issues += shape.faults.map { FlowIssue(.shape, $0.path, $0.message) }
    }

    static func name(of v: JSONValue) -> String { JSONShape.name(of: v) }
}

/// The meaning of a definition: of a well-shaped one, or of what can be read of a faulty
/// one, leaving out the checks its gaps would make wrong.
struct MeaningChecker {
    let flow: FlowDefinition
    let gaps: FlowGaps
    var issues: [FlowIssue] = []

    static let contextKeys: Set<String> = ["app_version", "platform", "start_date"]

    init(flow: FlowDefinition, gaps: FlowGaps = FlowGaps()) {
        self.flow = flow
        self.gaps = gaps
    }

    mutating func add(_ kind: FlowIssueKind, _ path: String, _ message: String) {
        issues.append(FlowIssue(kind, path, message))
    }

    mutating func run() {
        duplicates(flow.steps.map(\.id), "$.steps", "step")
        duplicates(flow.lanes.map(\.id), "$.lanes", "lane")
        duplicates(flow.flags.map(\.id), "$.flags", "flag")
        duplicates(flow.cohorts.map(\.id), "$.cohorts", "cohort")

        let stepIDs = Set(flow.steps.map(\.id))
        let collected = flow.collectedKeys

        if let key = flow.laneKey, !collected.contains(key), !gaps.collectsUnknown {
            add(.uncollectedValue, "$.laneKey", "laneKey \"\(key)\" is collected by no step")
        }

        for (i, lane) in flow.lanes.enumerated() {
            let lp = "$.lanes[\(i)]"
            var seen: [String: Int] = [:]
            // A lane holding a step of unknown kind, or an entry that cannot be read, may end.
            var hasTerminal = gaps.unreadableLaneSteps.contains(i)
            for (j, ls) in lane.steps.enumerated() {
                let sp = "\(lp).steps[\(j)]"
                if let first = seen[ls.id] {
                    add(.cycle, sp, "step \"\(ls.id)\" is already on lane \"\(lane.id)\" at \(lp).steps[\(first)]: the lane would loop")
                } else {
                    seen[ls.id] = j
                }
                guard let step = flow.step(ls.id) else {
                    if gaps.stepIDsUnknown || gaps.placeholders.contains(ls.id) {
                        hasTerminal = true
                    } else {
                        add(.unknownStep, sp, "unknown step \"\(ls.id)\": no step in $.steps has this id")
                    }
                    continue
                }
                if step.kind == .terminal || gaps.unknownKinds.contains(step.id) { hasTerminal = true }
                let before = collectedKeys(lane.steps.prefix(j))
                if let text = ls.when { condition(text, sp + ".when", earlier: before, at: "\"\(ls.id)\" on lane \"\(lane.id)\"") }
                if let f = ls.flag { flagDeclared(f, sp + ".flag") }
            }
            if !hasTerminal {
                add(.noTerminal, lp + ".steps", "lane \"\(lane.id)\" has no step of kind terminal: nothing ends it")
            }
            if !gaps.unreadableLaneWhen.contains(i) { laneCondition(lane, lp) }
        }

        for (i, step) in flow.steps.enumerated() {
            let sp = "$.steps[\(i)]"
            let lanes = flow.lanes.filter { $0.steps.contains { $0.id == step.id } }
            if lanes.isEmpty && !gaps.laneStepsUnknown && !gaps.placeholders.contains(step.id) {
                add(.unreachableStep, sp, "step \"\(step.id)\" is on no lane: no user can reach it")
            }
            if let f = step.flag { flagDeclared(f, sp + ".flag") }
            if let text = step.when {
                // The values it reads must be collected before it on every lane it is on.
                var earlier: Set<String>? = nil
                for lane in lanes {
                    guard let idx = lane.steps.firstIndex(where: { $0.id == step.id }) else { continue }
                    let keys = collectedKeys(lane.steps.prefix(idx))
                    earlier = earlier.map { $0.intersection(keys) } ?? keys
                }
                condition(text, sp + ".when", earlier: lanes.isEmpty ? collected : (earlier ?? []), at: "\"\(step.id)\"")
            }
        }

        for (i, cohort) in flow.cohorts.enumerated() where !gaps.unreadableCohortWhere.contains(i) {
            condition(cohort.where, "$.cohorts[\(i)].where", earlier: collected, at: nil)
        }
        _ = stepIDs
    }

    func collectedKeys(_ laneSteps: ArraySlice<FlowDefinition.LaneStep>) -> Set<String> {
        var keys = Set<String>()
        for ls in laneSteps { for c in flow.step(ls.id)?.collects ?? [] { keys.insert(c.key) } }
        return keys
    }

    mutating func duplicates(_ ids: [String], _ path: String, _ what: String) {
        var first: [String: Int] = [:]
        for (i, id) in ids.enumerated() {
            if let f = first[id] {
                add(.duplicateID, "\(path)[\(i)].id", "duplicate \(what) id \"\(id)\" (first at \(path)[\(f)])")
            } else {
                first[id] = i
            }
        }
    }

    mutating func flagDeclared(_ name: String, _ path: String) {
        if !gaps.flagsUnknown, !flow.flags.contains(where: { $0.id == name }) {
            let known = flow.flags.map(\.id)
            add(.undeclaredFlag, path, "flag \"\(name)\" is not declared in $.flags" + (known.isEmpty ? "" : " (declared: \(known.joined(separator: ", ")))"))
        }
    }

    /// Parses a condition and checks the keys it reads; returns it when it parses.
    @discardableResult
    mutating func condition(_ text: String, _ path: String, earlier: Set<String>, at: String?) -> Condition? {
        let cond: Condition
        do {
            cond = try Condition(parsing: text)
        } catch {
            add(.badCondition, path, error.description)
            return nil
        }
        var reported = Set<String>()
        for key in cond.keys where reported.insert(key).inserted {
            if key.hasPrefix("flag:") {
                flagDeclared(String(key.dropFirst(5)), path)
            } else if MeaningChecker.contextKeys.contains(key) {
                continue
            } else if gaps.collectsUnknown {
                continue
            } else if !flow.collectedKeys.contains(key) {
                add(.uncollectedValue, path, "\"\(text)\" reads \"\(key)\", which no step collects")
            } else if let at, !earlier.contains(key) {
                add(.uncollectedValue, path, "\"\(text)\" reads \"\(key)\", which is not collected before \(at)")
            }
        }
        values(cond, text, path)
        return cond
    }

    /// Compared values must be among those the collecting steps list (where they list any).
    mutating func values(_ cond: Condition, _ text: String, _ path: String) {
        func known(_ key: String) -> Set<String>? {
            let lists = flow.steps.flatMap(\.collects).filter { $0.key == key }.map(\.values)
            if lists.isEmpty || lists.contains(where: { $0 == nil }) { return nil }
            return Set(lists.compactMap { $0 }.flatMap { $0 })
        }
        switch cond {
        case .compare(let key, let op, let value) where op == .eq || op == .ne:
            if let vs = known(key), !vs.contains(value) {
                add(.unknownValue, path, "\"\(text)\": \(key) is never \"\(value)\" (values: \(vs.sorted().joined(separator: ", ")))")
            }
        case .member(let key, let list, _):
            if let vs = known(key) {
                for value in list where !vs.contains(value) {
                    add(.unknownValue, path, "\"\(text)\": \(key) is never \"\(value)\" (values: \(vs.sorted().joined(separator: ", ")))")
                }
            }
        case .not(let c): values(c, text, path)
        case .and(let cs), .or(let cs): for c in cs { values(c, text, path) }
        default: break
        }
    }

    mutating func laneCondition(_ lane: FlowDefinition.Lane, _ path: String) {
        guard let text = lane.when else {
            if flow.lanes.count > 1 {
                add(.laneCondition, path, "lane \"\(lane.id)\" has no when: with several lanes each must say which users run it")
            }
            return
        }
        // The lane's own condition reads values collected before the lanes part.
        let shared = collectedKeys(ArraySlice(flow.sharedPrefix.map { FlowDefinition.LaneStep(id: $0) }))
        guard let cond = condition(text, path + ".when", earlier: shared, at: "lane \"\(lane.id)\" parts from the others") else { return }
        if let key = flow.laneKey, !cond.keys.contains(key) {
            add(.laneCondition, path + ".when", "\"\(text)\" does not read the flow's laneKey \"\(key)\"")
        }
    }
}
