/// The step codes (`FlowVocabulary.stepCodes`, -1: a step without one) of a finished
/// journey's visits, view runs and path steps, in their order: what saving the journey reads
/// instead of looking each step up by name (a step's code is its index in `JourneyNames`).
package struct JourneyCodes: Sendable {
    package var visits: [Int32]
    package var runs: [Int32]
    package var path: [Int32]
}
