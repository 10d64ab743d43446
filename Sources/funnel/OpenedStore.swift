import ClickHouseProjections
import ClickHouseStore
import LogFiles
import EventStore
import Foundation
import FunnelModel
import Projections
import StoreCore
import Journeys

/// The store a command works on: the embedded SQLite file, or a ClickHouse server or
/// cluster. Commands read it through the log and journeys seams and never ask which.
enum OpenedStore {
    case sqlite(EventStore)
    case clickhouse(ClickHouseStore)

    /// What the ClickHouse store keeps beside the log.
    static let clickHouseMigrations = ClickHouseFacts.migrations

    var log: any EventLogReading {
        switch self {
        case .sqlite(let s): return s
        case .clickhouse(let s): return s
        }
    }

    /// The journeys, with `bar` (when there is one: on a terminal) showing how many of them a
    /// read folds again from the log for an as-of before their last events.
    func journeys(showingRefoldsOn bar: ProgressBar?) -> any JourneySource {
        let refolds = bar.map { b in RefoldProgress { done, total in b.update(done: done, of: total, "journeys refolded for as-of") } }
        switch self {
        case .sqlite(let s): return StoreJourneys(store: s, refolds: refolds)
        case .clickhouse(let s): return ClickHouseJourneys(store: s, refolds: refolds)
        }
    }

    /// Ingests `sources` with the flow definitions (unplanned events are counted): on SQLite
    /// journeys commit with their events; on ClickHouse they are folded as the inputs come
    /// in and written once they are all in, so that the next report reads them.
    func ingest(_ sources: [InputSource], options: IngestOptions, progress: ((IngestProgress) -> Void)?) throws -> IngestSummary {
        switch self {
        case .sqlite(let s):
            let ingestor = Ingestor(store: s, options: options, observer: ProjectionUpdater(definitions: options.flows))
            return try ingestor.ingest(sources, progress: progress)
        case .clickhouse(let s):
            let ingestor = ClickHouseIngestor(store: s, options: options, observer: ClickHouseFactsUpdater(definitions: options.flows))
            return try ingestor.ingest(sources, progress: progress)
        }
    }

    /// Drops the journeys kept for reports and folds them again from the log; how many.
    /// `progress` (users' runs of a flow folded, of all) is told on SQLite only.
    func rebuild(definitions: [FlowDefinition], progress: ((Int, Int) -> Void)?) throws -> Int {
        switch self {
        case .sqlite(let s): return try ProjectionStore.rebuild(store: s, definitions: definitions, progress: progress)
        case .clickhouse(let s): return try ClickHouseFacts.rebuild(store: s, definitions: definitions)
        }
    }
}
