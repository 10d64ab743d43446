import LogFiles
import Workers

/// The batches a parse makes of a file's first member while that member is checked on the
/// checking thread (`ByteStream.onDeferredCheck`), held until the check's verdict comes.
struct HeldBatches {
    /// Line bytes held before the parse waits for the verdict.
    let limit: Int
    private var verdict: BoundedQueue<Bool>?
    private var held: [LineBatch] = []
    private var bytes = 0

    init(limit: Int) { self.limit = limit }

    /// True while a verdict is to come: batches are held, not handed on.
    var isWaiting: Bool { verdict != nil }

    /// Runs `check` on the checking thread; its verdict is due from now on.
    mutating func start(_ check: DeferredMemberCheck) {
        let answer = BoundedQueue<Bool>(capacity: 1)
        WorkerThread.checking.run { _ = answer.push(check.passes(), waitForRoom: false) }
        verdict = answer
    }

    /// Holds `batch`; true once the held bytes reach the limit (the parse settles then).
    mutating func hold(_ batch: LineBatch) -> Bool {
        held.append(batch)
        bytes += batch.bytes.count
        return bytes >= limit
    }

    /// Waits for the verdict: the held batches, in order, when the member passed; nil when
    /// it did not. Nothing is held or due after it.
    mutating func settle() -> [LineBatch]? {
        guard let pending = verdict else { return [] }
        var passed: Bool?
        while passed == nil { passed = pending.pop(timeout: nil) }
        verdict = nil
        let ready = held
        held = []
        bytes = 0
        return passed == true ? ready : nil
    }
}
