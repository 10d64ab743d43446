import Workers

extension WorkerThread {
    /// Folds journeys beside the writing thread.
    static let folding = WorkerThread(name: "funnel-fold")
}
