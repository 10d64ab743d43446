import FunnelModel
import Journeys

/// What `funnel paths` reads of one user: their step views in fold order, each run of views
/// of one step counted once, with their moves, returns and last event. The expected path is
/// the fold's (`Journey.path`); this only walks the events the fold was given, in its order.
struct UserPath {
    /// A view that starts a run of views of one step.
    struct View {
        var step: String
        var micros: Int64
    }

    struct Move: Hashable {
        var from: String
        var to: String
        var kind: PathsReport.MoveKind
    }

    struct Return {
        /// The step the user was on when the gap began.
        var left: String
        var kind: PathsReport.ReturnKind
    }

    var views: [View] = []
    var moves: [Move] = []
    var returns: [Return] = []
    /// The last event in fold order.
    var lastEvent: Event?

    /// Reads `events` (a user's, any order) up to `asOf` against `journey`, their fold.
    init(_ journey: Journey, events: [RecordedEvent], asOf: Timestamp, idleSeconds: Double) {
        // The place of each step on the path; steps the path passes over have none.
        var place: [String: Int] = [:]
        for entry in journey.path where entry.status != .skipped { place[entry.step] = place.count }
        let idleMicros = Int64(idleSeconds * 1_000_000)
        var previousMicros: Int64?
        var gapFrom: String?
        var last: Int?
        // Each event read in place (an event is costly to copy), the last one copied at the end.
        defer { lastEvent = last.map { events[$0].event } }
        for i in events.foldOrderIndices {
            let micros = events[i].time.micros
            guard micros <= asOf.micros else { break }
            last = i
            // A gap longer than the idle window: the user left from the step they were on.
            if let previousMicros, micros - previousMicros > idleMicros, gapFrom == nil {
                gapFrom = views.last?.step
            }
            previousMicros = micros
            guard events[i].known == .stepViewed, let step = events[i].step else { continue }
            if let left = gapFrom {
                returns.append(Return(left: left, kind: Self.returnKind(left: left, to: step, first: views.first?.step, place: place)))
                gapFrom = nil
            }
            guard let last = views.last else {
                views.append(View(step: step, micros: micros))
                continue
            }
            guard last.step != step else { continue }
            moves.append(Move(from: last.step, to: step, kind: Self.moveKind(from: last.step, to: step, place: place)))
            views.append(View(step: step, micros: micros))
        }
    }

    static func moveKind(from: String, to: String, place: [String: Int]) -> PathsReport.MoveKind {
        guard let a = place[from], let b = place[to] else { return .offPath }
        return b == a + 1 ? .forward : b > a ? .skip : .back
    }

    static func returnKind(left: String, to: String, first: String?, place: [String: Int]) -> PathsReport.ReturnKind {
        if to == left { return .same }
        if to == first { return .first }
        guard let a = place[left], let b = place[to] else { return .offPath }
        return b < a ? .earlier : .later
    }

    /// Microseconds from the first view of `from` to the first view of `to` after it; nil
    /// when the user did not view both in that order.
    func micros(from: String, to: String) -> Int64? {
        AdjacentPairs.micros(runs: views.count, step: { views[$0].step }, micros: { views[$0].micros }, from: from, to: to)
    }
}
