/// Journeys' tuning constants, in one place: each bounds memory while journeys are folded.
/// Figures behind them are in docs/performance.md.
package enum Tuning {
    /// Journeys an ingest into a store without folds of its own (ClickHouse) holds in memory
    /// across its inputs (`HeldJourneys`); the journeys past it are folded from the log.
    package static let heldJourneys = 100_000
    /// Events such an ingest holds for folding (`HeldJourneys`); past it, a user's events are
    /// dropped and the user is folded from the log.
    package static let heldJourneyEvents = 250_000
    /// Expected paths kept per flow definition before the cache starts over; the facts'
    /// cohort and flag bits (`JourneyFacts.Prepared`) are kept by the same bound.
    package static let cachedPaths = 4_096
    /// Strings and objects a journey decoding cache keeps before it starts over.
    package static let cachedDecodedValues = 65_536
    /// The shortest silence a journey keeps (`Journey.silences`, microseconds): `funnel paths`
    /// reads returns from the facts with an idle window at least this long, and from the log
    /// with a shorter one.
    package static let keptSilenceMicros: Int64 = 600_000_000
    /// The most room a new user's list of held events starts with (`ParsedGroups`): the
    /// input's events per user so far, at most this many, so that a list is not grown one
    /// doubling at a time from one event.
    package static let heldListStart = 64
    /// Room a journey's stored bytes start with (`Journey.binary`): most journeys of the
    /// GLP-1 flow take 500–1,000 bytes, and the writer would otherwise grow and copy them.
    package static let journeyBytesReserved = 1_024
    /// Room a journey's facts start with (`JourneyFacts.binary`): a GLP-1 journey's take
    /// 240 bytes on average, at most about 440.
    package static let factsBytesReserved = 512
    /// Most visits and view runs a fold makes room for at a journey's first view (at most the
    /// definition's steps).
    package static let foldStepsReserved = 32
    /// Steps a journey's prompt outcomes make room for at the first (`PromptOutcome.add`):
    /// a GLP-1 journey has them on one to three steps, and the table would grow twice.
    package static let promptStepsReserved = 4
}
