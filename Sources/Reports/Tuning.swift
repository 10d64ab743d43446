import Workers

/// Reports' tuning constants, in one place. Figures behind them are in docs/performance.md.
enum Tuning {
    /// Shares of the journeys `funnel explain` (and the HTML report's drivers) read at once,
    /// each on a thread of its own (one a worker): decoding every journey's glance is most of
    /// its time.
    static var glanceShares: Int { WorkerCount.machine }
    /// Shares of a flow's journey facts a report reads at once, each on a thread of its own
    /// (one a worker): decoding and counting the facts is most of a warm report.
    static var factShares: Int { WorkerCount.machine }
}
