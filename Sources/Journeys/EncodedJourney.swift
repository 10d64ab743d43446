import Foundation

/// A journey's row, encoded.
package struct EncodedJourney: Sendable {
    package var flow: String
    package var userID: String
    package var startedUs: Int64?
    package var completedUs: Int64?
    package var lastUs: Int64
    package var currentStep: String?
    package var lane: String?
    package var data: Data
    package var facts: Data?

    package init(flow: String, userID: String, startedUs: Int64?, completedUs: Int64?, lastUs: Int64, currentStep: String?,
                 lane: String?, data: Data, facts: Data?) {
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
