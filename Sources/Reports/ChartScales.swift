import Foundation

/// The scales a funnel chart and a histogram are drawn on. Small multiples share one.
struct ChartScales {
    /// Users that a full-width bar stands for.
    var users: Int
    /// Time axis of the histogram, seconds.
    var timeFrom: Double
    var timeTo: Double
    /// Users that a full-height histogram bar stands for.
    var binUsers: Int

    static func covering(_ reports: [FunnelReport]) -> ChartScales {
        var users = 1, binUsers = 1
        var from = Double.infinity, to = -Double.infinity
        for r in reports {
            users = max(users, r.users.started)
            for s in r.steps { users = max(users, s.reached + s.skipped, s.eligible) }
            for b in r.timeToCompleteHistogram {
                from = min(from, b.fromSeconds)
                to = max(to, b.toSeconds)
                binUsers = max(binUsers, b.users)
            }
        }
        if !from.isFinite || !to.isFinite || to <= from { from = 0; to = 60 }
        return ChartScales(users: users, timeFrom: from, timeTo: to, binUsers: binUsers)
    }
}
