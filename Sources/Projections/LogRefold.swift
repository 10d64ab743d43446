import FunnelModel
import EventStore
import GRDB
import Journeys

/// Journeys of one flow folded again from the log up to a time (a read as of the past): the
/// flow's fold rules and expected paths come from its context, built once, and what reading
/// the log looks up (atoms, shapes, inputs' sources) is kept from user to user. One per read
/// of `db`; it opens its reader at the first journey folded.
struct LogRefold {
    let flow: String
    let context: FlowContext
    let until: Timestamp?
    private let db: Database
    private var lines: UsersLines?

    init(flow: String, context: FlowContext, until: Timestamp?, in db: Database) {
        self.flow = flow
        self.context = context
        self.until = until
        self.db = db
    }

    /// A user's journey folded from the log, up to `until` when given; nil when it had not
    /// begun by then.
    mutating func journey(user: String) throws -> Journey? {
        let reader = try lines ?? UsersLines(db)
        lines = reader
        let events = try reader.lines(user: user, flow: flow).events()
        return JourneyFold.fold(events, rules: context.rules, until: until)?.finish(paths: context.paths)
    }
}
