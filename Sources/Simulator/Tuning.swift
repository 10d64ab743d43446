/// Simulator's tuning constants, in one place: the spool's buffer sizes, how often users stray.
enum Tuning {
    /// Lines gathered in memory before the spool writes them to its file.
    static let spoolWriteBytes = 1 << 20
    /// With `--wander`, per step a user views (not the last): the chance of a jump two
    /// steps ahead, of a view of a step off their path, of days away before resuming earlier.
    static let wanderSkip = 0.02
    static let wanderOffPath = 0.02
    static let wanderAway = 0.015
}
