import FunnelModel
import EventLog
import LineParsing
import StoreCore
import GRDB
import Logging
import Foundation
#if os(Linux)
import CMalloc
#endif

/// Reads inputs into an `EventStore`. Each input commits in one write transaction: its
/// events, duplicates, conflicts, quarantined lines and its ledger row, or nothing. An input
/// whose content (SHA-256) is already in the ledger is skipped.
public final class Ingestor {
    public let store: EventStore
    public let options: IngestOptions
    public let observer: (any IngestObserver)?
    let logger: Logger
    /// A filter of every stored event id hash, kept from input to input while no other
    /// connection writes the store (`PRAGMA data_version` tells).
    var idFilter: IDFilter?
    var idFilterVersion: Int64 = -1

    public init(store: EventStore, options: IngestOptions = IngestOptions(), observer: (any IngestObserver)? = nil) {
        self.store = store
        self.options = options
        self.observer = observer
        self.logger = store.logger
    }

    /// Ingests `inputs` in order. Input faults (unreadable, truncated or corrupt gzip) are
    /// reported in the summary and the run goes on; store failures throw.
    public func ingest(_ inputs: [InputSource], progress: ((IngestProgress) -> Void)? = nil) throws -> IngestSummary {
        let clockStart = DispatchTime.now().uptimeNanoseconds
        Ingestor.returnLargeBlocks()
        var summary = IngestSummary()
        summary.files = inputs.count
        summary.flowsChecked = !options.flows.isEmpty
        var unplanned: [UnplannedKey: Int] = [:]
        // The next input's parse, started while this one is written and committed.
        var ahead: (index: Int, content: InputContent.Hash, run: ParseRun)?
        defer { ahead?.run.cancel() }
        for (index, input) in inputs.enumerated() {
            var spooled: String?
            defer { if let spooled { unlink(spooled) } }
            let content: InputContent.Hash
            var prefetched: ParseRun?
            defer { prefetched?.cancel() }
            do {
                if let a = ahead, a.index == index {
                    content = a.content
                    prefetched = a.run
                    ahead = nil
                } else {
                    let read = try InputContent.of(input)
                    content = read.0
                    spooled = read.spooled
                }
            } catch let e as InputError {
                summary.failures.append(.unreadable(input.path, e))
                continue
            }
            let readPath = spooled ?? input.path
            let outcome = try ingestOne(path: readPath, label: input.path, content: content, index: index,
                                        count: inputs.count, prefetched: prefetched, readAhead: {
                // Only a file can be read ahead (standard input is spooled first); one that
                // cannot be hashed now is reported when its turn comes.
                let next = index + 1
                guard options.parallel, next < inputs.count, !inputs[next].isStandardInput,
                      let hash = try? InputContent.of(inputs[next]).0 else { return }
                ahead = (next, hash, startParse(path: inputs[next].path))
            }, progress: progress)
            Ingestor.releaseFreeMemory()
            switch outcome {
            case .skipped(let s): summary.skipped.append(s)
            case .read(let r): summary.add(r, unplanned: &unplanned)
            }
        }
        try observer?.finish(store: store)
        summary.unplannedBy = IngestSummary.sortedUnplanned(unplanned)
        summary.elapsedSeconds = Double(DispatchTime.now().uptimeNanoseconds - clockStart) / 1e9
        return summary
    }

    /// Gives the memory freed by the input just read back to the system. Each input is
    /// parsed on a thread of its own, whose malloc arena would otherwise keep its freed
    /// pages for a thread that never comes back.
    static func releaseFreeMemory() {
        #if os(Linux)
        _ = malloc_trim(0)
        #endif
    }

    /// Has every block of `Tuning.mmapThreshold` or more mapped on its own and unmapped when
    /// freed. glibc otherwise raises that threshold each time such a block is freed (up to
    /// 32 MiB), after which the large arrays of one input stay in the heap and the peak grows
    /// with the input. Batches are reused (`BatchQueue.recycle`), so few blocks are mapped
    /// again and again. Process-wide, once; elsewhere than Linux the allocator is left as is.
    static func returnLargeBlocks() {
        _ = fixedMapThreshold
    }

    private static let fixedMapThreshold: Bool = {
        #if os(Linux)
        return mallopt(M_MMAP_THRESHOLD, Tuning.mmapThreshold) == 1
        #else
        return false
        #endif
    }()
}
