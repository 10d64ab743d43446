import FunnelModel

/// A flow definition with what saving journeys needs of it, computed once (a class: shared by
/// every journey folded, not copied field by field).
package final class FlowContext: Sendable {
    package let definition: FlowDefinition?
    package let fingerprint: String
    package let slots: [String: Int]
    /// What the definition says the logs may contain (built once, not once per journey folded).
    package let vocabulary: FlowVocabulary?
    /// The names the definition gives: stored journeys write them as indexes into these.
    package let names: JourneyNames
    /// Expected paths worked out so far (nil without a definition).
    package let paths: ExpectedPaths?
    /// What facts need of the definition (nil without one).
    package let facts: JourneyFacts.Prepared?
    /// What every fold of the definition reads of it (one for all its folds).
    package let rules: JourneyFold.Rules

    package init(_ definition: FlowDefinition?) {
        self.definition = definition
        let vocabulary = definition.map(FlowVocabulary.init)
        self.vocabulary = vocabulary
        paths = definition.flatMap { d in vocabulary.map { ExpectedPaths(d, vocabulary: $0) } }
        let slots = definition.map(JourneyFacts.slotIndex) ?? [:]
        self.slots = slots
        facts = definition.flatMap { d in vocabulary.map { JourneyFacts.Prepared(d, vocabulary: $0, slots: slots) } }
        names = JourneyNames(definition)
        rules = JourneyFold.Rules(definition, vocabulary: vocabulary)
        fingerprint = JourneyFold.fingerprint(definition)
    }

    /// The drift keys of the unlisted answers of each of `table`'s properties for this
    /// context's flow (`EventTable.unlistedAnswers`; empty without a definition).
    package func unlistedAnswers(of table: EventTable) -> [[String]] {
        guard let definition, let vocabulary else { return [] }
        return table.unlistedAnswers(flow: definition.id, listed: vocabulary.listedValues)
    }

    /// The step code of each of `table`'s names in this context's flow (`EventTable.stepCodes`;
    /// empty without a definition, when each event's step is looked up).
    package func stepCodes(of table: EventTable) -> [Int32] {
        guard let definition, let vocabulary else { return [] }
        return table.stepCodes(flow: definition.id, vocabulary.stepCodes)
    }
}
