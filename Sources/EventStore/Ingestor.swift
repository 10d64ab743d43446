import FunnelModel
import LogFiles
import LineParsing
import StoreCore
import GRDB
import Logging

/// Reads inputs into an `EventStore`. Each input commits in one write transaction (small
/// consecutive ones in one together, `InputGroup`): its events, duplicates, conflicts,
/// quarantined lines and its ledger row, or nothing. An input whose content (SHA-256) is
/// already in the ledger is skipped.
public final class Ingestor {
    public let store: EventStore
    public let options: IngestOptions
    public let observer: (any IngestObserver<Database, EventStore>)?
    public let limits: Limits
    let logger: Logger
    /// A filter of every stored event id hash, kept from input to input while no other
    /// connection writes the store (`PRAGMA data_version` tells).
    var idFilter: IDFilter?
    var idFilterVersion: Int64 = -1
    /// The new-id and run buffers of the input before, emptied: the next input fills the
    /// same pages.
    var spareBuffers: InputWriter.Written?
    /// The inputs written into the transaction still open.
    let group = InputGroup()

    public init(store: EventStore, options: IngestOptions = IngestOptions(), observer: (any IngestObserver<Database, EventStore>)? = nil,
                limits: Limits = Limits()) {
        self.store = store
        self.options = options
        self.observer = observer
        self.limits = limits
        self.logger = store.logger
    }

    /// Ingests `inputs` in order (`IngestDriver`). Input faults (unreadable, truncated or
    /// corrupt gzip) are reported in the summary and the run goes on; store failures throw.
    public func ingest(_ inputs: [InputSource], progress: ((IngestProgress) -> Void)? = nil) throws -> IngestSummary {
        try Ingestor.refuseOwnFiles(inputs, store: store.path)
        // The WAL and the store's file head for the disk while they are written; the store's
        // only through SQLite's own descriptor, whose locks a close of another would drop.
        let writeBehind = WriteBehind(paths: [store.path + "-wal"], held: [store.path])
        defer { writeBehind.stop() }
        return try IngestDriver(backend: self, options: options).run(inputs, progress: progress)
    }
}
