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
        let names = JourneyNames(definition)
        self.names = names
        paths = definition.flatMap { d in vocabulary.map { ExpectedPaths(d, vocabulary: $0, answerKeys: names.answerKeys) } }
        let slots = definition.map(JourneyFacts.slotIndex) ?? [:]
        self.slots = slots
        facts = definition.flatMap { d in
            vocabulary.map { JourneyFacts.Prepared(d, vocabulary: $0, slots: slots, answerKeys: names.answerKeys) }
        }
        rules = JourneyFold.Rules(definition, vocabulary: vocabulary, names: names)
        fingerprint = JourneyFold.fingerprint(definition)
    }

    /// What a fold of this context's flow reads of `table` once (`TableCodes`: each name's
    /// step code; each properties' unlisted answers and its answers by code; each context's
    /// flags by code); empty without a definition, when each event's are looked up.
    package func codes(of table: EventTable) -> TableCodes {
        guard let definition, let vocabulary else { return .none }
        let answers = table.answers(flow: definition.id, names: names, listed: vocabulary.listedValues)
        return TableCodes(stepCodes: table.stepCodes(flow: definition.id, vocabulary.stepCodes),
                          unlisted: answers.unlisted, answers: answers.coded, flags: answers.flags)
    }
}
