import Foundation
import FunnelModel
import Projections
import EventStore

/// A request that cannot be answered as asked, with what exists instead.
public struct RequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Parses the human inputs of the report commands.
public enum Inputs {
    /// `90s`, `30m`, `24h`, `2d`, `1h30m`, `1w`; a bare number is seconds.
    public static func duration(_ text: String) throws -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let plain = Double(text), plain >= 0 { return plain }
        var total = 0.0
        var number = ""
        var sawUnit = false
        for c in text.lowercased() {
            if c.isNumber || c == "." {
                number.append(c)
            } else if let unit = units[c], let value = Double(number) {
                total += value * unit
                number = ""
                sawUnit = true
            } else {
                throw RequestError("malformed duration \"\(text)\": use a number with s, m, h, d or w (e.g. 24h, 30m, 1h30m)")
            }
        }
        guard number.isEmpty, sawUnit else {
            throw RequestError("malformed duration \"\(text)\": use a number with s, m, h, d or w (e.g. 24h, 30m, 1h30m)")
        }
        return total
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
    public var since: String?
    public var until: String?
    public var idle: String?
    public var asOf: String?

    public init(flow: String? = nil, cohort: String? = nil, filters: [String] = [], by: String? = nil,
                since: String? = nil, until: String? = nil, idle: String? = nil, asOf: String? = nil) {
        self.flow = flow
        self.cohort = cohort
        self.filters = filters
        self.by = by
        self.since = since
        self.until = until
        self.idle = idle
        self.asOf = asOf
    }

    /// Picks the flow: `--flow`, else the only flow in the store, else the only flow with a
    /// cohort of that name; otherwise a message listing the candidates.
    public static func resolveFlow(_ id: String?, cohort: String?, definitions: [FlowDefinition],
                                   storeFlows: [String]) throws -> FlowDefinition {
        let known = definitions.map(\.id)
        if let id {
            guard let d = definitions.first(where: { $0.id == id }) else {
                throw RequestError("unknown flow \"\(id)\"; known flows: \(known.joined(separator: ", "))")
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
        var dimension: ReportQuery.Dimension?
        if let by {
            guard let d = ReportQuery.Dimension(parsing: by) else {
                throw RequestError("--by \"\(by)\": use cohort, lane, app_version, day, week or flag:NAME (flags: \(flagNames.sorted().joined(separator: ", ")))")
            }
            if case .flag(let name) = d, !flagNames.contains(name) {
                throw RequestError("--by \"\(by)\": flow \(definition.id) has no flag \(name); flags: \(flagNames.sorted().joined(separator: ", "))")
            }
            dimension = d
        }
        let idleSeconds = try idle.map(Inputs.duration) ?? Journey.defaultIdleSeconds
        let asOfTime: Timestamp
        if let asOf {
            asOfTime = try Inputs.time(asOf, option: "--as-of")
        } else if let d = defaultAsOf {
            asOfTime = d
        } else {
            throw RequestError("the store holds no events yet: ingest some logs first (funnel ingest FILE…)")
        }
        return ReportQuery(cohort: cohortDef, filters: parsedFilters,
                           since: try since.map { try Inputs.time($0, option: "--since") },
                           until: try until.map { try Inputs.time($0, option: "--until") },
                           asOf: asOfTime, idleSeconds: idleSeconds, by: dimension)
    }

    /// Runs the request on the store's projections.
    public func run(store: EventStore, definitions: [FlowDefinition], now: Timestamp) throws -> FunnelReport {
        let definition = try ReportRequest.resolveFlow(flow, cohort: cohort, definitions: definitions,
                                                       storeFlows: try store.flows())
        let query = try self.query(for: definition, defaultAsOf: try ProjectionStore.defaultAsOf(store: store, now: now))
        // Streams the journeys into the counters: memory does not grow with the users.
        var accumulator = ReportAccumulator(builder: ReportBuilder(definition: definition), query: query)
        // The precomputed facts answer most queries; ad hoc filters read whole journeys.
        if accumulator.acceptsFacts,
           try ProjectionStore.forEachFacts(flow: definition.id, definition: definition, store: store, asOf: query.asOf, {
               accumulator.add($0)
           }) {
            return accumulator.report()
        }
        try ProjectionStore.forEachJourney(flow: definition.id, definition: definition, store: store, asOf: query.asOf) {
            accumulator.add($0)
        }
        return accumulator.report()
    }
}
