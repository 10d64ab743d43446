import Foundation

/// A journey's row, encoded.
struct EncodedJourney: Sendable {
    var flow: String
    var userID: String
    var startedUs: Int64?
    var completedUs: Int64?
    var lastUs: Int64
    var currentStep: String?
    var lane: String?
    var data: Data
    var facts: Data?
}
