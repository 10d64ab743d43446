/// Simulator's tuning constants, in one place: the spool's buffer sizes.
enum Tuning {
    /// Lines gathered in memory before the spool writes them to its file.
    static let spoolWriteBytes = 1 << 20
}
