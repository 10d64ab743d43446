/// A number of seconds as people read it, in two styles over one split of the rounded
/// seconds into at most two units (seconds; minutes and seconds; whole hours up to two days;
/// hours and minutes; days and hours): `compact` for tables and `spoken` for sentences.
public enum DurationText {
    /// `45s`, `6m 12s`, `1h`, `1h 05m`, `2d 3h`; `—` without a finite value.
    public static func compact(_ seconds: Double?) -> String {
        guard let split = split(seconds) else { return "—" }
        let first = "\(split.count)\(split.unit.compact)"
        guard let rest = split.rest else { return first }
        // Seconds and minutes under a larger unit take two digits; hours under days do not.
        let digits = rest.unit == .hour ? "\(rest.count)" : (rest.count < 10 ? "0" : "") + "\(rest.count)"
        return first + " " + digits + rest.unit.compact
    }

    /// `45 s`, `6 min 12 s`, `6 min`, `1 h`, `5 h 12 min`, `2 d 3 h`: the second unit only
    /// when it is not zero; `—` without a finite value.
    public static func spoken(_ seconds: Double) -> String {
        guard let split = split(seconds) else { return "—" }
        let first = "\(split.count) \(split.unit.spoken)"
        guard let rest = split.rest, rest.count != 0 else { return first }
        return first + " \(rest.count) \(rest.unit.spoken)"
    }

    enum Unit {
        case second, minute, hour, day

        var compact: String {
            switch self {
            case .second: "s"
            case .minute: "m"
            case .hour: "h"
            case .day: "d"
            }
        }

        var spoken: String {
            switch self {
            case .second: "s"
            case .minute: "min"
            case .hour: "h"
            case .day: "d"
            }
        }
    }

    /// The rounded seconds as a count of the largest unit that fits and, but for whole hours
    /// up to two days, the remainder in the next unit down.
    static func split(_ seconds: Double?) -> (count: Int, unit: Unit, rest: (count: Int, unit: Unit)?)? {
        guard let seconds, seconds.isFinite else { return nil }
        let s = Int(seconds.rounded())
        if s < 60 { return (s, .second, nil) }
        if s < 3600 { return (s / 60, .minute, (s % 60, .second)) }
        if s % 3600 == 0 && s <= 172_800 { return (s / 3600, .hour, nil) }
        if s < 86_400 { return (s / 3600, .hour, (s / 60 % 60, .minute)) }
        return (s / 86_400, .day, (s / 3600 % 24, .hour))
    }
}
