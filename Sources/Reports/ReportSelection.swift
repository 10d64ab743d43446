import FunnelModel

/// Which users a report counts, as of when: the flow, `--cohort`, `--where`, the start window,
/// as-of and the idle window, as a report's JSON gives them at its top level (the keys of
/// docs/report-json.md) and its text shows them.
public struct ReportSelection: Sendable, Hashable, Encodable {
    public var flow: String
    public var flowTitle: String
    public var cohort: String?
    /// `--where` filters, as written.
    public var filters: [String]
    public var since: String?
    public var until: String?
    public var asOf: String
    public var idleSeconds: Double

    init(definition: FlowDefinition, query: ReportQuery) {
        self.init(flow: definition.id, flowTitle: definition.title, cohort: query.cohort?.id, filters: query.filters.map(\.text),
                  since: query.since?.description, until: query.until?.description, asOf: query.asOf.description,
                  idleSeconds: query.idleSeconds)
    }

    init(flow: String, flowTitle: String, cohort: String?, filters: [String], since: String?, until: String?, asOf: String,
         idleSeconds: Double) {
        self.flow = flow
        self.flowTitle = flowTitle
        self.cohort = cohort
        self.filters = filters
        self.since = since
        self.until = until
        self.asOf = asOf
        self.idleSeconds = idleSeconds
    }

    enum CodingKeys: String, CodingKey {
        case flow, flowTitle = "flow_title", cohort, filters, since, until, asOf = "as_of", idleSeconds = "idle_seconds"
    }

    /// The fields, a field with no value as null.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(flow, forKey: .flow)
        try c.encode(flowTitle, forKey: .flowTitle)
        try c.encode(cohort, forKey: .cohort)
        try c.encode(filters, forKey: .filters)
        try c.encode(since, forKey: .since)
        try c.encode(until, forKey: .until)
        try c.encode(asOf, forKey: .asOf)
        try c.encode(idleSeconds, forKey: .idleSeconds)
    }

    /// `Onboarding Tonic (GLP-1) (glp1) · cohort glp1 · where weightGoal=lose`, each name
    /// shown through `shown` (escaped for the output).
    func heading(_ shown: (String) -> String) -> String {
        var parts = ["\(shown(flowTitle)) (\(shown(flow)))"]
        if let cohort { parts.append("cohort \(shown(cohort))") }
        if !filters.isEmpty { parts.append("where " + filters.map(shown).joined(separator: ", ")) }
        return parts.joined(separator: " · ")
    }

    /// `as of 2026-10-08T11:31:42.721Z · idle 24h · since 2026-10-02T00:00:00.000Z`.
    func scope(_ shown: (String) -> String) -> String {
        var parts = ["as of \(shown(asOf))", "idle \(DurationText.compact(idleSeconds))"]
        if let since { parts.append("since \(shown(since))") }
        if let until { parts.append("until \(shown(until))") }
        return parts.joined(separator: " · ")
    }
}
