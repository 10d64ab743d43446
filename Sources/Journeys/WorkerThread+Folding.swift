import Workers

extension WorkerThread {
    /// Folds journeys beside the writing thread, for either store.
    package static let folding = WorkerThread(name: "funnel-fold")
}
