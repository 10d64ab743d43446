import ArgumentParser
import Reports

/// Which users a command counts, the same for report, users and explain: the flow, a cohort,
/// `--where` filters, the start window, and the as-of and idle window of their states.
struct SelectionOptions: ParsableArguments {
    @Option(help: "The flow id.") var flow: String?
    @Option(help: "A named cohort of the flow.") var cohort: String?
    @Option(name: .customLong("where"), help: "Only users with KEY=VALUE (a collected value, flag:NAME, app_version, platform). Repeatable.")
    var filters: [String] = []
    @Option(help: "Only users who started at or after this time (RFC 3339 or YYYY-MM-DD).") var since: String?
    @Option(help: "Only users who started before this time.") var until: String?
    @OptionGroup var time: TimeOptions

    /// The selection as a report request, broken down by each `--by` given.
    func request(by: [String] = []) -> ReportRequest {
        ReportRequest(flow: flow, cohort: cohort, filters: filters, by: by.first, alsoBy: Array(by.dropFirst()), since: since, until: until,
                      idle: time.idle, asOf: time.asOf)
    }
}
