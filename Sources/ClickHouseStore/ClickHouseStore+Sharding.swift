import Foundation

extension ClickHouseStore {
    /// The shard (index into `servers`) that holds each of `users`' events, as the
    /// `Distributed` table places a row: `cityHash64(user_id)` modulo the number of shards,
    /// each of weight 1. The server computes the hash, so funnel's inserts go straight to the
    /// shard the table would have sent them to. Every user is on shard 0 of one server.
    public func shards(of users: [String], doing: String) throws -> [Int] {
        guard servers.count > 1, !users.isEmpty else { return Array(repeating: 0, count: users.count) }
        var table = ""
        for (i, user) in users.enumerated() { table += "\(i)\t" + ClickHouseSQL.tsv(user) + "\n" }
        var out = Array(repeating: -1, count: users.count)
        try rows(coordinator, "SELECT i, toUInt64(cityHash64(user_id) % \(servers.count)) FROM users", doing: doing,
                 external: ClickHouseClient.ExternalTable(name: "users", structure: "i UInt32, user_id String", rows: Data(table.utf8))) { r in
            let i = Int(try r.uint32())
            let shard = Int(try r.uint64())
            guard i < out.count, shard < servers.count else {
                throw ClickHouseError(server: coordinator.server, doing: doing, reason: "the server placed user \(i) on shard \(shard)", kind: .reply)
            }
            out[i] = shard
        }
        if let missing = out.firstIndex(of: -1) {
            throw ClickHouseError(server: coordinator.server, doing: doing, reason: "the server gave no shard for user \(missing)", kind: .reply)
        }
        return out
    }
}
