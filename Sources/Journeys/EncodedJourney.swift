/// A journey's row, encoded.
package struct EncodedJourney: Sendable {
    package var flow: String
    package var userID: String
    package var startedUs: Int64?
    package var completedUs: Int64?
    package var lastUs: Int64
    package var currentStep: String?
    package var lane: String?
    /// The journey's bytes (`Journey.binary`) and its facts' (`JourneyFacts.binary`), as
    /// encoded: bound in place when written.
    package var data: [UInt8]
    package var facts: [UInt8]?

    package init(flow: String, userID: String, startedUs: Int64?, completedUs: Int64?, lastUs: Int64, currentStep: String?,
                 lane: String?, data: [UInt8], facts: [UInt8]?) {
        self.flow = flow
        self.userID = userID
        self.startedUs = startedUs
        self.completedUs = completedUs
        self.lastUs = lastUs
        self.currentStep = currentStep
        self.lane = lane
        self.data = data
        self.facts = facts
    }
}
