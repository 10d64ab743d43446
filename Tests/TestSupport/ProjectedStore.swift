import Foundation
import FunnelModel
import LogFiles
import EventStore
import Flows
import Projections
import StoreCore

/// The repository's root folder.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A new SQLite store's path in a scratch folder.
public func temporaryStorePath() -> String {
    Scratch.directory("funnel-proj").appendingPathComponent("store.sqlite").path
}

/// Opens a store with the projection and ingests `paths` the way the CLI does.
public func ingest(_ paths: [String], into storePath: String, definitions: [FlowDefinition] = Flows.builtIn) throws -> EventStore {
    let store = try EventStore(path: storePath, migrations: ProjectionStore.migrations)
    for path in paths {
        let ingestor = Ingestor(store: store, options: IngestOptions(flows: definitions),
                                observer: ProjectionUpdater(definitions: definitions))
        _ = try ingestor.ingest(try InputSource.discover([path]))
    }
    return store
}
