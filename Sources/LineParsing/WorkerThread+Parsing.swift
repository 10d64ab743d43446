import Workers

extension WorkerThread {
    /// Parses inputs (one at a time) beside the writing thread.
    package static let parsing = WorkerThread(name: "funnel-parse")
    /// Checks a file's first member while the parsing thread already reads it
    /// (`LineParser.run`).
    package static let checking = WorkerThread(name: "funnel-check")
}
