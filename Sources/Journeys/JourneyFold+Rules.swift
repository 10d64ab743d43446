import FunnelModel

extension JourneyFold {
    /// What every fold of one flow definition reads of it, built once and shared by
    /// reference: a journey's fold holds one reference, not a copy of each part.
    package final class Rules: Sendable {
        package let definition: FlowDefinition?
        /// Whether there is a definition (worked out here once: `definition != nil` copies
        /// the whole definition to answer).
        let hasDefinition: Bool
        /// The definition's step codes, flags and listed values (`FlowVocabulary`; empty
        /// without one).
        let stepCodes: [String: Int32]
        let stepCodeCount: Int
        let declaredFlags: Set<String>
        let listedValues: [String: Set<String>]
        /// The keys the definition's steps collect and its flags, by code: a journey's answers
        /// and flags are held by them.
        let answerKeys: DefinedKeys
        let flagKeys: DefinedKeys

        /// `vocabulary` and `names`: the definition's, when the caller has them already.
        package init(_ definition: FlowDefinition?, vocabulary: FlowVocabulary? = nil, names: JourneyNames? = nil) {
            self.definition = definition
            hasDefinition = definition != nil
            let vocabulary = vocabulary ?? definition.map(FlowVocabulary.init)
            stepCodes = vocabulary?.stepCodes ?? [:]
            stepCodeCount = vocabulary?.stepCodeCount ?? 0
            declaredFlags = vocabulary?.declaredFlags ?? []
            listedValues = vocabulary?.listedValues ?? [:]
            let names = names ?? JourneyNames(definition)
            answerKeys = names.answerKeys
            flagKeys = names.flagKeys
        }
    }
}
