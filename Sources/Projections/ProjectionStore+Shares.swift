import Foundation
import EventStore
import GRDB
import Workers
import StoreCore
import Journeys

extension ProjectionStore {
    /// Reads `count` shares at once, each on a thread of its own in a read transaction of its
    /// own, added by `read(part, db, &accumulator)` into a copy of `blank`, and merges the later
    /// shares into the first, in share order. Each transaction first reads the store's state (`state`: the log's last
    /// seq and the journeys' watermark); when the shares saw different states (an ingest
    /// committed between their transactions), what they read is dropped and `whole` reads
    /// everything into `blank` in one transaction. The first error met is thrown once all
    /// shares are done.
    static func readShares<A: JourneyAccumulator>(_ count: Int, into blank: A, store: EventStore, doing: String,
                                                  state: @Sendable (Int, Database) throws -> [Int64] = { _, db in try storeState(in: db) },
                                                  _ read: @Sendable (Int, Database, inout A) throws -> Void,
                                                  whole: (Database, inout A) throws -> Void) throws -> A {
        let shares = try Array(0..<count).parallelMap(workers: count) { part throws(StoreError) -> (state: [Int64], read: A) in
            do {
                return try store.writer.read { db in
                    let state = try state(part, db)
                    var accumulator = blank
                    try read(part, db, &accumulator)
                    return (state, accumulator)
                }
            } catch let e as StoreError {
                throw e
            } catch {
                throw StoreError(doing: doing, reason: "\(error)", kind: StoreError.Kind(sqlite: error))
            }
        }
        guard Set(shares.map(\.state)).count <= 1, var accumulator = shares.first?.read else {
            var accumulator = blank
            try store.writer.read { db in try whole(db, &accumulator) }
            return accumulator
        }
        for share in shares.dropFirst() { accumulator.merge(share.read) }
        return accumulator
    }

    /// What changes with every commit that adds events or journeys: the log's last seq and
    /// the journeys' watermark.
    static func storeState(in db: Database) throws -> [Int64] {
        [try EventStore.lastSeq(in: db), try watermark(in: db)]
    }
}
