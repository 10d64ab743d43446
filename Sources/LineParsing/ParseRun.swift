import FunnelModel
import LogFiles
import Foundation
import Workers
import LogSources

/// One input parsed by `LineParser` on the parsing thread, so that decompression and parsing
/// use one core while the store writes on another. Making one queues its parse behind the input
/// being parsed (so the next input is read ahead while the one before commits); `forEach`
/// delivers the batches in order on the calling thread; `cancel` drops a run that will not be
/// used.
package final class ParseRun: Sendable {
    let input: InputSource
    /// Where this input's decoded events go (`IngestBackend.makeEventSink`).
    package let eventSink: (any ParsedEventSink)?
    /// Parsed batches on their way to the writer (at most `Tuning.waitingBatches` wait).
    private let queue = BatchQueue(capacity: Tuning.waitingBatches)
    /// Told once the parsing thread is done with the input.
    private let done = BoundedQueue<Bool>(capacity: 1)

    /// Emptied batches for the parser to fill again (shared by the inputs of one ingest).
    private let pool: BatchPool

    /// `skipLines`, `source`: as `LineParser.run` takes them. `pool`: the batches the parser
    /// fills again, and where the writer's go once it is done with them.
    package init(input: InputSource, batchLines: Int, batchBytes: Int = Tuning.batchBytes,
         eventSink: (any ParsedEventSink)? = nil, skipLines: Int = 0, source: SourceMapping? = nil,
         pool: BatchPool = BatchPool()) {
        self.input = input
        self.eventSink = eventSink
        self.pool = pool
        let queue = self.queue, done = self.done
        WorkerThread.parsing.run {
            defer { done.push(true, waitForRoom: false) }
            if queue.isCancelled { return }
            do {
                let end = try LineParser.run(input: input, batchLines: batchLines, batchBytes: batchBytes,
                                             eventSink: eventSink, skipLines: skipLines, source: source,
                                             spare: { pool.take() }) { batch in
                    queue.push(.batch(batch))
                }
                _ = queue.push(.end(end))
            } catch {
                _ = queue.push(.failed(error))
            }
        }
    }

    /// Hands each batch to `body` in order; `idle` runs whenever no batch came for a few
    /// milliseconds (on the calling thread). Returns once the parsing thread is done with
    /// the input.
    package func forEach(idle: () throws -> Void = {}, _ body: (LineBatch) throws -> Void) throws -> ParseEnd {
        defer { _ = done.pop(timeout: nil) }
        do {
            while true {
                guard let item = queue.pop(timeout: Tuning.batchWait) else {
                    try idle()
                    continue
                }
                // Consumed, so that the batch's buffers have one owner again once `body` is
                // done with them (and are kept, not copied, when pooled).
                switch consume item {
                case .batch(let batch):
                    try body(batch)
                    pool.give(consume batch)
                case .end(let end): return end
                case .failed(let error): throw error
                }
            }
        } catch {
            queue.cancel()
            throw error
        }
    }

    /// Stops the parse (or keeps it from starting) and drops what it parsed; does not wait.
    package func cancel() {
        queue.cancel()
    }
}
