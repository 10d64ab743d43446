import FunnelModel
import Journeys

/// Times to read a store as of, chosen from its journeys.
public enum AsOfChoice {
    /// Journeys with events on both sides of `t`: an as-of read folds them again from the log.
    public static func spanning(_ journeys: [Journey], _ t: Timestamp) -> Int {
        var n = 0
        for j in journeys where j.firstEventAt <= t && j.lastEventAt > t { n += 1 }
        return n
    }

    /// The middle of the journey whose middle the most journeys are in progress at (nil
    /// without journeys): as of it, many are cut and many have not begun.
    public static func busiest(_ journeys: [Journey]) -> Timestamp? {
        journeys.map { Timestamp(micros: ($0.firstEventAt.micros + $0.lastEventAt.micros) / 2) }
            .map { ($0, spanning(journeys, $0)) }
            .max { $0.1 < $1.1 }?.0
    }
}
