import FunnelModel

/// Folds the journeys of one flow, with what folding needs of its definition worked out once
/// (vocabulary, expected paths, facts' slots and cohort conditions): for callers that fold
/// many users' events one user at a time, as `FoldedJourneys` and a store's own facts do.
public struct FlowFolder: Sendable {
    package let context: FlowContext

    public init(_ definition: FlowDefinition?) {
        context = FlowContext(definition)
    }

    /// A folder of the flow `context` was worked out for.
    package init(_ context: FlowContext) {
        self.context = context
    }

    /// The definition's fingerprint: facts folded with another definition are not these.
    public var fingerprint: String { context.fingerprint }

    /// The journey of one user's events in one flow (any order) up to `until`; nil when the
    /// user has no event by then.
    public func journey(of events: [RecordedEvent], until: Timestamp? = nil) -> Journey? {
        coded(events, until: until)?.journey
    }

    /// The report facts of that journey; nil without a definition or without an event by `until`.
    public func facts(of events: [RecordedEvent], until: Timestamp? = nil) -> JourneyFacts? {
        guard let (journey, codes) = coded(events, until: until) else { return nil }
        return facts(of: journey, codes: codes)
    }

    /// A fold's journey so far and what it needs to go on, as the SQLite store keeps them.
    package func encode(_ fold: JourneyFold) -> [UInt8] {
        let (journey, codes) = fold.finishCoded(paths: context.paths)
        return journey.binary(resume: fold.resume, names: context.names, codes: codes)
    }

    /// The journey `encode` kept, finished, and its fold's resume state; nil when the bytes
    /// are not one.
    package func decode(_ binary: [UInt8]) -> (journey: Journey, resume: JourneyFold.Resume?)? {
        try? binary.withUnsafeBytes { try Journey.decode(binary: $0, names: context.names) }
    }

    /// The fold `encode` kept, going on; nil when the bytes are not one.
    package func resume(_ binary: [UInt8]) -> JourneyFold? {
        guard let (journey, state) = decode(binary), let state else { return nil }
        return JourneyFold(resuming: journey, state, rules: context.rules)
    }

    /// That journey and its steps' codes.
    private func coded(_ events: [RecordedEvent], until: Timestamp?) -> (journey: Journey, codes: JourneyCodes)? {
        JourneyFold.fold(events, rules: context.rules, until: until)?
            .finishCoded(paths: context.paths)
    }

    /// The report facts of a journey folded with this definition (`codes`: its steps' codes,
    /// when this folder's fold finished it); nil without a definition.
    package func facts(of journey: Journey, codes: JourneyCodes? = nil) -> JourneyFacts? {
        guard let definition = context.definition, let prepared = context.facts else { return nil }
        return JourneyFacts(journey, definition: definition, slots: context.slots, prepared: prepared, codes: codes)
    }
}
