import GRDB
import EventStore
import Journeys

/// Writes journeys' rows (`journeys` and `journey_facts`) through two statements found once
/// for many rows: GRDB's cache finds a statement by hashing its SQL, which is longer than
/// most rows. Bound in place through the C API: a journey is written for every user an input
/// touches, on the writing thread.
struct JourneyRowWriter {
    private let journey: RawStatement
    private let facts: RawStatement

    init(_ db: Database) throws {
        journey = try RawStatement(cached: """
            INSERT INTO journeys (flow, user_id, current_step, lane, definition, started_us, completed_us, last_us, data)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(flow, user_id) DO UPDATE SET started_us = excluded.started_us,
              completed_us = excluded.completed_us, last_us = excluded.last_us,
              current_step = excluded.current_step, lane = excluded.lane,
              definition = excluded.definition, data = excluded.data
            """, in: db)
        facts = try RawStatement(cached: """
            INSERT INTO journey_facts (flow, user_id, last_us, facts) VALUES (?, ?, ?, ?)
            ON CONFLICT(flow, user_id) DO UPDATE SET last_us = excluded.last_us, facts = excluded.facts
            """, in: db)
    }

    /// Writes (or replaces) the rows of `e`, folded by `context`'s definition.
    func write(_ e: EncodedJourney, context: FlowContext) throws {
        // Built only for an error message.
        func doing() -> String { "writing the journey of \(e.userID) in \(e.flow)" }
        try journey.withTexts([e.flow, e.userID, e.currentStep, e.lane, context.fingerprint], from: 1) {
            journey.int(6, e.startedUs)
            journey.int(7, e.completedUs)
            journey.int(8, e.lastUs)
            try e.data.withUnsafeBufferPointer { data in
                journey.staticBlob(9, data)
                try journey.step(doing())
            }
        }
        journey.reset()
        try facts.withTexts([e.flow, e.userID], from: 1) {
            facts.int(3, e.lastUs)
            if let bytes = e.facts {
                try bytes.withUnsafeBufferPointer { b in
                    facts.staticBlob(4, b)
                    try facts.step(doing())
                }
            } else {
                facts.null(4)
                try facts.step(doing())
            }
        }
        facts.reset()
    }
}
