import Foundation
import FunnelModel
import Journeys

/// A request that cannot be answered as asked, with what exists instead.
public struct RequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Parses the human inputs of the report commands.
public enum Inputs {
    /// The units a duration may be written in, by every name it is written with.
    static let durationUnits: [String: Double] = {
        var table: [String: Double] = [:]
        let units: [(names: [String], seconds: Double)] = [
            (["s", "sec", "secs", "second", "seconds"], 1),
            (["m", "min", "mins", "minute", "minutes"], 60),
            (["h", "hr", "hrs", "hour", "hours"], 3600),
            (["d", "day", "days"], 86_400),
            (["w", "week", "weeks"], 604_800),
        ]
        for unit in units { for name in unit.names { table[name] = unit.seconds } }
        return table
    }()

    /// What a duration looks like, for messages.
    public static let durationHelp = "units: s, m, h, d, w or words (3d, 72h, 90m, 1h30m, \"3 days\")"

    /// `90s`, `30m`, `24h`, `3d`, `1h30m`, `1w`, `3 days`, `3days`, `1 hour 30 minutes`. A
    /// number needs its unit: a bare `3` is an error, never silently 3 seconds.
    public static func duration(_ text: String, option: String = "--idle") throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if Double(trimmed) != nil {
            throw RequestError("\(option) \"\(text)\": a duration needs a unit; \(durationHelp)")
        }
        let malformed = RequestError("\(option) \"\(text)\" is not a duration; \(durationHelp)")
        var total = 0.0
        var terms = 0
        var rest = Substring(trimmed.lowercased())
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number) else { throw malformed }
            rest = rest.dropFirst(number.count).drop { $0 == " " }
            let name = rest.prefix { $0.isLetter }
            guard let unit = durationUnits[String(name)] else { throw malformed }
            rest = rest.dropFirst(name.count).drop { $0 == " " || $0 == "," }
            total += value * unit
            terms += 1
        }
        guard terms > 0 else { throw malformed }
        return total
    }

    /// `--since` and `--until`, each RFC 3339 or a date; an `--until` not after `--since`
    /// selects nothing, so it is an error.
    public static func window(since: String?, until: String?) throws -> (since: Timestamp?, until: Timestamp?) {
        let start = try since.map { try time($0, option: "--since") }
        let end = try until.map { try time($0, option: "--until") }
        if let start, let end, end <= start {
            throw RequestError("--until (\(end)) is not after --since (\(start)): the window holds no time")
        }
        return (start, end)
    }

    /// RFC 3339 or a date (`2026-10-03`, midnight UTC).
    public static func time(_ text: String, option: String) throws -> Timestamp {
        guard let t = Timestamp.parse(text) else {
            throw RequestError("\(option): \"\(text)\" is not a time: use RFC 3339 (2026-10-03T14:00:00Z) or a date (2026-10-03)")
        }
        return t
    }
}

/// Everything `funnel report` needs, resolved against the store and the flow catalog:
/// which flow, cohort, filters, window, as-of and breakdown.
public struct ReportRequest: Sendable {
    public var flow: String?
    public var cohort: String?
    public var filters: [String] = []
    public var by: String?
    /// Every `--by` after the first: one more breaks down by pairs of values; two more is an error.
    public var alsoBy: [String] = []
    public var since: String?
    public var until: String?
    public var idle: String?
    public var asOf: String?
    /// `--compare previous` or `--compare SINCE..UNTIL`: the period to set beside the report's.
    public var compare: String?

    public init(flow: String? = nil, cohort: String? = nil, filters: [String] = [], by: String? = nil, alsoBy: [String] = [],
                since: String? = nil, until: String? = nil, idle: String? = nil, asOf: String? = nil, compare: String? = nil) {
        self.flow = flow
        self.cohort = cohort
        self.filters = filters
        self.by = by
        self.alsoBy = alsoBy
        self.since = since
        self.until = until
        self.idle = idle
        self.asOf = asOf
        self.compare = compare
    }

    /// Picks the flow: `--flow`, else the only flow in the store, else the only flow with a
    /// cohort of that name; otherwise a message listing the candidates.
    public static func resolveFlow(_ id: String?, cohort: String?, definitions: [FlowDefinition],
                                   storeFlows: [String]) throws -> FlowDefinition {
        let known = definitions.map(\.id)
        if let id {
            guard let d = definitions.first(where: { $0.id == id }) else {
                throw RequestError("unknown flow \"\(id)\"; known flows: \(known.joined(separator: ", "))"
                                   + " (a team's own definitions: --flows DIR)")
            }
            return d
        }
        let inStore = definitions.filter { storeFlows.contains($0.id) }
        if let cohort {
            let having = (inStore.isEmpty ? definitions : inStore).filter { $0.cohort(cohort) != nil }
            if having.count == 1, let only = having.first { return only }
            if having.count > 1 {
                throw RequestError("cohort \"\(cohort)\" exists in several flows: \(having.map(\.id).joined(separator: ", ")); add --flow")
            }
            let all = definitions.flatMap { d in d.cohorts.map { "\(d.id)/\($0.id)" } }
            throw RequestError("no flow has a cohort \"\(cohort)\"; cohorts: \(all.joined(separator: ", "))")
        }
        if inStore.count == 1, let only = inStore.first { return only }
        let undefined = storeFlows.filter { !known.contains($0) }
        if inStore.isEmpty && !undefined.isEmpty {
            throw RequestError("the store holds events of flows with no definition: \(undefined.joined(separator: ", "))"
                               + "; give their definitions with --flows DIR (known flows: \(known.joined(separator: ", ")))")
        }
        if inStore.isEmpty {
            throw RequestError("the store holds no events of a known flow; add --flow (known flows: \(known.joined(separator: ", "))) or give log files to ingest")
        }
        throw RequestError("the store holds several flows: \(inStore.map(\.id).joined(separator: ", ")); add --flow")
    }

    /// The query for a flow, every option checked, with what exists when one is wrong.
    public func query(for definition: FlowDefinition, defaultAsOf: Timestamp?) throws -> ReportQuery {
        var cohortDef: FlowDefinition.Cohort?
        if let cohort {
            guard let c = definition.cohort(cohort) else {
                let names = definition.cohorts.map(\.id)
                throw RequestError("flow \(definition.id) has no cohort \"\(cohort)\"; cohorts: " +
                                   (names.isEmpty ? "none" : names.joined(separator: ", ")))
            }
            cohortDef = c
        }
        let keys = definition.collectedKeys
        let flagNames = Set(definition.flags.map(\.id))
        var parsedFilters: [(text: String, condition: Condition)] = []
        for f in filters {
            let cond: Condition
            do { cond = try Condition(parsing: f) } catch {
                throw RequestError("--where \"\(f)\": \(error); write KEY=VALUE")
            }
            for key in cond.keys {
                let ok = keys.contains(key) || ["app_version", "platform", "start_date"].contains(key)
                    || (key.hasPrefix("flag:") && flagNames.contains(String(key.dropFirst(5))))
                if !ok {
                    let options = keys.sorted() + ["app_version", "platform", "start_date"] + flagNames.sorted().map { "flag:\($0)" }
                    throw RequestError("--where \"\(f)\": unknown key \"\(key)\" in flow \(definition.id); keys: \(options.joined(separator: ", "))")
                }
            }
            parsedFilters.append((f, cond))
        }
        let dimensions = try self.dimensions(flow: definition)
        let idleSeconds = try idle.map { try Inputs.duration($0) } ?? Journey.defaultIdleSeconds
        let asOfTime: Timestamp
        if let asOf {
            asOfTime = try Inputs.time(asOf, option: "--as-of")
        } else if let d = defaultAsOf {
            asOfTime = d
        } else {
            throw RequestError("the store holds no events yet: ingest some logs first (funnel ingest FILE…)")
        }
        let window = try Inputs.window(since: since, until: until)
        let query = ReportQuery(cohort: cohortDef, filters: parsedFilters, since: window.since, until: window.until,
                           asOf: asOfTime, idleSeconds: idleSeconds, by: dimensions.first,
                           alsoBy: dimensions.dropFirst().first)
        _ = try comparedQuery(query)
        return query
    }

    /// Checks everything that can be checked without the store (flow, cohort, filters,
    /// breakdown, times, idle window), so that `funnel report --flow typo LOGS` fails before
    /// it ingests anything.
    public func validate(definitions: [FlowDefinition]) throws {
        let placeholderAsOf = Timestamp(micros: 0)
        if flow != nil {
            let definition = try ReportRequest.resolveFlow(flow, cohort: cohort, definitions: definitions, storeFlows: [])
            _ = try query(for: definition, defaultAsOf: placeholderAsOf)
            return
        }
        if let cohort {
            // Which flow is the store's to say; only a cohort no flow has is wrong already.
            let having = definitions.filter { $0.cohort(cohort) != nil }
            if having.isEmpty {
                _ = try ReportRequest.resolveFlow(nil, cohort: cohort, definitions: definitions, storeFlows: [])
            }
            if having.count == 1, let only = having.first {
                _ = try query(for: only, defaultAsOf: placeholderAsOf)
                return
            }
        }
        _ = try idle.map { try Inputs.duration($0) }
        let window = try Inputs.window(since: since, until: until)
        _ = try comparedQuery(ReportQuery(since: window.since, until: window.until, asOf: placeholderAsOf))
        _ = try asOf.map { try Inputs.time($0, option: "--as-of") }
        for f in filters {
            do { _ = try Condition(parsing: f) } catch {
                throw RequestError("--where \"\(f)\": \(error); write KEY=VALUE")
            }
        }
        _ = try dimensions(flow: nil)
    }

    /// The breakdown's dimensions, each `--by` checked (a flag against the flow's, when known):
    /// at most two, not the same twice, at most one of day and week.
    func dimensions(flow definition: FlowDefinition?) throws -> [ReportQuery.Dimension] {
        let texts = (by.map { [$0] } ?? []) + alsoBy
        if texts.count > 2 {
            throw RequestError("--by \(texts.map { "\"\($0)\"" }.joined(separator: ", ")): at most two breakdowns at once; "
                               + "drop --by \"\(texts[2])\"" + (texts.count > 3 ? " and the ones after it" : ""))
        }
        let flagNames = definition.map { $0.flags.map(\.id).sorted() }
        var out: [ReportQuery.Dimension] = []
        for text in texts {
            guard let d = ReportQuery.Dimension(parsing: text) else {
                throw RequestError("--by \"\(text)\": use \(ReportQuery.Dimension.help)"
                                   + (flagNames.map { " (flags: \($0.joined(separator: ", ")))" } ?? ""))
            }
            if case .flag(let name) = d, let definition, let flagNames, !flagNames.contains(name) {
                throw RequestError("--by \"\(text)\": flow \(definition.id) has no flag \(name); flags: \(flagNames.joined(separator: ", "))")
            }
            if out.contains(d) {
                throw RequestError("--by \"\(text)\" is given twice: two breakdowns need two different dimensions")
            }
            if d.bucketSeconds != nil, let time = out.first(where: { $0.bucketSeconds != nil }) {
                throw RequestError("--by \(time) and --by \(d): both break down by time; keep one of them")
            }
            out.append(d)
        }
        return out
    }

    /// The flow and the query, resolved against the source's log (its flows, its as-of).
    func resolve(in source: any JourneySource, definitions: [FlowDefinition],
                 now: Timestamp) throws -> (definition: FlowDefinition, query: ReportQuery) {
        let definition = try ReportRequest.resolveFlow(flow, cohort: cohort, definitions: definitions,
                                                       storeFlows: try source.log.flows())
        let query = try query(for: definition, defaultAsOf: try source.log.defaultAsOf(now: now))
        try checkValues(definition: definition, query: query, source: source)
        return (definition, query)
    }

    /// A `--where` value the definition does not list and no user of the flow has is a typo:
    /// an error naming the values there are. One the logs do have (drift) is kept. Reads the
    /// journeys only when a value is not listed.
    func checkValues(definition: FlowDefinition, query: ReportQuery, source: any JourneySource) throws {
        var unlisted: [(filter: String, key: String, value: String, known: [String])] = []
        for f in query.filters {
            for (key, value) in f.condition.comparedValues {
                if let known = definition.knownValues(of: key), !known.contains(value) { unlisted.append((f.text, key, value, known)) }
            }
        }
        guard !unlisted.isEmpty else { return }
        let keys = Set(unlisted.map(\.key))
        var seen: [String: Set<String>] = [:]
        try source.forEachJourney(flow: definition.id, definition: definition, asOf: query.asOf) { j in
            let ctx = j.conditionContext(flagDefaults: definition.flagDefaults)
            for key in keys {
                if let v = ctx.lookup(key) { seen[key, default: []].insert(v.stringValue ?? v.jsonText) }
            }
        }
        for u in unlisted where !(seen[u.key]?.contains(u.value) ?? false) {
            let extra = (seen[u.key] ?? []).subtracting(u.known).sorted()
            throw RequestError("--where \"\(u.filter)\": flow \(definition.id) has no \(u.key) value \"\(u.value)\"; \(u.key) is one of: "
                               + u.known.joined(separator: ", ")
                               + (extra.isEmpty ? "" : " (and in the logs, outside the definition: \(extra.joined(separator: ", ")))"))
        }
    }

    /// Runs the request on the source's journeys: the report, and with `--compare` the other
    /// period beside it.
    public func run(source: any JourneySource, definitions: [FlowDefinition], now: Timestamp) throws -> FunnelReport {
        let (definition, query) = try resolve(in: source, definitions: definitions, now: now)
        var report = try self.report(definition, query, source: source)
        if let other = try comparedQuery(query) {
            report.periodComparison = PeriodComparison(report, against: try self.report(definition, other, source: source))
        }
        return report
    }

    /// The report of one query on the source's journeys.
    func report(_ definition: FlowDefinition, _ query: ReportQuery, source: any JourneySource) throws -> FunnelReport {
        // Streams the journeys into the counters: memory does not grow with the users.
        var accumulator = ReportAccumulator(builder: ReportBuilder(definition: definition), query: query)
        // The precomputed facts answer most queries (the source may count shares of them
        // apart and add them up); ad hoc filters read whole journeys.
        if accumulator.acceptsFacts,
           let counted = try source.accumulateFacts(flow: definition.id, definition: definition, asOf: query.asOf, into: accumulator) {
            return counted.report()
        }
        try source.forEachJourney(flow: definition.id, definition: definition, asOf: query.asOf) { accumulator.add($0) }
        return accumulator.report()
    }
}
