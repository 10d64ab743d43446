/// What a journeys source adds every journey's facts or glance into (`JourneySource`): a
/// source that reads its journeys in shares adds each share into a copy of the blank
/// accumulator it was given and merges them in share order, so what comes back is the same
/// however many shares it read, and whether it read some again.
public protocol JourneyAccumulator<Element>: Sendable {
    associatedtype Element
    /// Adds one journey's facts or glance.
    mutating func add(_ element: Element)
    /// Adds what `later` (a later share's accumulator, started from the same blank) holds.
    mutating func merge(_ later: Self)
}
