import Workers

extension WorkerThread {
    /// Parses inputs (one at a time) beside the writing thread.
    package static let parsing = WorkerThread(name: "funnel-parse")
}
