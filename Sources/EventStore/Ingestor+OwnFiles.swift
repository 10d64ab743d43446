import LogFiles
import StoreCore

extension Ingestor {
    /// Throws, before anything is read, when an input is one of the store's own files (its
    /// database, WAL, …): its bytes would be stored as quarantined lines, and the descriptor
    /// read and closed would drop SQLite's locks on it, which the ingest holds.
    static func refuseOwnFiles(_ inputs: [InputSource], store: String) throws {
        let own = StoreFile.all(ofStore: store).map { (file: $0, identity: FileIdentity($0.path)) }.filter { $0.identity.exists }
        for input in inputs where !input.isStandardInput && input.zip == nil && input.fault == nil {
            let identity = FileIdentity(input.path)
            guard identity.exists, let match = own.first(where: { $0.identity == identity }) else { continue }
            throw StoreError(doing: "ingesting \(input.path) into \(store)",
                             reason: "it is \(match.file), not a log; nothing was ingested")
        }
    }
}
