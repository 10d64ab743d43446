import Foundation
import Workers

/// Emptied parsed batches kept for the parsing thread to fill again, shared by every input of
/// one ingest: a batch's buffers go round warm, instead of new ones (and their pages) for each
/// input's first batches and whenever more came back than one input kept.
package final class BatchPool: Sendable {
    private let spares = Locked([LineBatch]())
    private let limit: Int

    /// At most `limit` batches are kept: by default as many as wait for the writer, and
    /// `Tuning.spareBatches` more.
    package init(limit: Int = Tuning.waitingBatches + Tuning.spareBatches) {
        self.limit = limit
    }

    /// Keeps `batch`'s buffers, emptied, unless the pool is full.
    func give(_ batch: consuming LineBatch) {
        var b = batch
        b.bytes.removeAll(keepingCapacity: true)
        b.lines.removeAll(keepingCapacity: true)
        b.cuts.removeAll(keepingCapacity: true)
        b.rejections.removeAll(keepingCapacity: true)
        b.bytesRead = 0
        b.segmentEnd = nil
        spares.withLock { spares in
            if spares.count < limit { spares.append(b) }
        }
    }

    /// A batch to fill again, when one is kept.
    func take() -> LineBatch? {
        spares.withLock { $0.popLast() }
    }
}
