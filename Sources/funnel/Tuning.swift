/// The CLI's tuning constants, in one place.
enum Tuning {
    /// Names of files a directory held besides logs that a note lists before "and N more".
    static let skippedFilesShown = 5
    /// Events written between looks at the progress bar (which redraws at most every 0.1 s).
    static let progressEvery = 4_096
}
