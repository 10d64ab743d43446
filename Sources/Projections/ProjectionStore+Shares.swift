import Foundation
import EventStore
import GRDB
import StoreCore
import Journeys

extension ProjectionStore {
    /// Reads `count` shares at once, each on a thread of its own in a read transaction of its
    /// own: `start(part)` and then `read(part, db)`. Each transaction first reads the store's
    /// state (`state`: the log's last seq and the journeys' watermark); when the shares saw
    /// different states (an ingest committed between their transactions), every share is
    /// started again and `whole` reads everything in one transaction, as share 0. The first
    /// error met is thrown once all shares are done.
    static func readShares(_ count: Int, store: EventStore, doing: String,
                           state: @escaping @Sendable (Int, Database) throws -> [Int64] = { _, db in try storeState(in: db) },
                           start: @escaping @Sendable (Int) -> Void,
                           _ read: @escaping @Sendable (Int, Database) throws -> Void,
                           whole: (Database) throws -> Void) throws {
        let states = DisjointResults<Result<[Int64], StoreError>>(count: count)
        defer { states.release() }
        DispatchQueue.concurrentPerform(iterations: count) { part in
            do {
                let state = try store.writer.read { db -> [Int64] in
                    let state = try state(part, db)
                    start(part)
                    try read(part, db)
                    return state
                }
                states.set(part, .success(state))
            } catch let e as StoreError {
                states.set(part, .failure(e))
            } catch {
                states.set(part, .failure(StoreError(doing: doing, reason: "\(error)", kind: StoreError.Kind(sqlite: error))))
            }
        }
        var seen: Set<[Int64]> = []
        for part in 0..<count {
            guard let result = states.take(part) else { continue }
            seen.insert(try result.get())
        }
        guard seen.count > 1 else { return }
        for part in 0..<count { start(part) }
        try store.writer.read { db in try whole(db) }
    }

    /// What changes with every commit that adds events or journeys: the log's last seq and
    /// the journeys' watermark.
    static func storeState(in db: Database) throws -> [Int64] {
        [try EventStore.lastSeq(in: db), try watermark(in: db)]
    }
}
