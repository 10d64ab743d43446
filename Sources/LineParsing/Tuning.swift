/// LineParsing's tuning constants, in one place: each bounds parse memory or trades it for
/// speed. Figures behind them are in docs/performance.md.
enum Tuning {
    /// Lines in a parsed batch (`LineParser.defaultBatchLines`): many small batches let the
    /// parser and the writer go on through each other's slow stretches.
    static let batchLines = 4_096
    /// Line bytes in a parsed batch, at most (`LineParser.defaultBatchBytes`).
    static let batchBytes = 4 << 20
    /// Line bytes parsed and held while a file's first member is checked beside the parse
    /// (`LineParser.run`): past them, the parser waits for the check. The check inflates
    /// about three times as fast as the parser reads, so this covers most of it for a
    /// member of a few hundred MiB.
    static let bytesAheadOfCheck = 32 << 20
    /// Parsed batches that wait for the writer before the parser waits.
    static let waitingBatches = 12
    /// Emptied batches kept for the parser to fill again, beyond as many as wait for the
    /// writer (`BatchPool`).
    static let spareBatches = 2
    /// Shapes an input learns as templates (`ShapeTemplates`), at most: past them, lines of
    /// new shapes are parsed in full; a template holds its literals once, a few hundred bytes.
    static let shapeTemplates = 4_096
    /// Literal bytes the templates of one input hold, at most (a bound on memory whatever
    /// the lines' length).
    static let shapeTemplateBytes = 4 << 20
    /// Distinct shapes an input numbers (`LineKeyer`), at most, and the bytes they hold:
    /// past either, a line of a shape not yet seen is stored verbatim, so lines that never
    /// repeat their shape (a per-line field left in it) cost bounded memory.
    static let inputShapes = 16_384
    static let inputShapeBytes = 16 << 20
    /// Literals tried after one cut, at most: a line is compared with each in turn, so a
    /// log whose shapes differ early does not make every line try thousands.
    static let shapeTemplateBranches = 16
    /// How long the writer waits for a batch before it does other work (seconds).
    static let batchWait = 0.005
}

extension LineParser {
    /// Lines in a parsed batch unless the caller says otherwise.
    package static let defaultBatchLines = Tuning.batchLines
    /// Line bytes in a parsed batch, at most, unless the caller says otherwise.
    package static let defaultBatchBytes = Tuning.batchBytes
}
