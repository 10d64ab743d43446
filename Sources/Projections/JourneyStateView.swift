import EventStore
import Journeys

/// The `journey_state` view: one row per user and flow of the journeys projection, as text
/// (see docs/store.md).
enum JourneyStateView {
    /// `state` follows `Journey.state(asOf:idleSeconds:)` with `funnel report`'s defaults: as of
    /// the latest event time in the store (the latest of any journey, found through the
    /// `journeys_last` index), the default idle window; NULL for a user who never started.
    static let sql = """
        CREATE VIEW journey_state AS
        SELECT j.flow AS flow,
               j.user_id AS user_id,
               j.lane AS lane,
               j.current_step AS current_step,
               CASE
                 WHEN j.started_us IS NULL THEN NULL
                 WHEN j.completed_us IS NOT NULL AND j.completed_us <= a.as_of_us THEN 'completed'
                 WHEN j.last_us >= a.as_of_us - \(Int64(Journey.defaultIdleSeconds * 1_000_000)) THEN 'in_progress'
                 ELSE 'abandoned'
               END AS state,
               \(ReadableSQL.utcText("j.started_us")) AS started_at,
               \(ReadableSQL.utcText("j.completed_us")) AS completed_at,
               \(ReadableSQL.utcText("j.last_us")) AS last_event_at,
               CASE WHEN j.completed_us IS NOT NULL AND j.started_us IS NOT NULL
                    THEN (j.completed_us - j.started_us) / 1e6 END AS seconds_to_complete
        FROM journeys j, (SELECT max(last_us) AS as_of_us FROM journeys) a
        """}
