import LogFiles
import LineParsing
import Workers

extension InputContent {
    /// The content of an input read ahead, hashed on the parsing thread just before its parse
    /// (the thread runs its jobs in order), so that the writing thread does not read the file
    /// a second time itself.
    package final class Ahead: Sendable {
        private let result = BoundedQueue<Hash?>(capacity: 1)

        /// Queues the hash of `input`, a file (not standard input), on the parsing thread.
        package init(_ input: InputSource) {
            let result = result
            WorkerThread.parsing.run {
                result.push(try? InputContent.of(input).0, waitForRoom: false)
            }
        }

        /// The hash, once the parsing thread has it (waiting for it); nil when the file could
        /// not be read then (whoever asks reads it again, and reports why).
        package func value() -> Hash? {
            guard let hash = result.pop(timeout: nil) else { return nil }
            result.push(hash, waitForRoom: false)
            return hash
        }
    }
}
