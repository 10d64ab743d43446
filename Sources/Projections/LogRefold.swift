import FunnelModel
import EventStore
import GRDB
import Journeys

/// Journeys of one flow folded again from the log up to a time (a read as of the past), by
/// the flow's `FlowFolder` (its rules and expected paths worked out once); what reading the
/// log looks up (atoms, shapes, inputs' sources) is kept from user to user. One per read of
/// `db`; it opens its reader at the first journey folded.
struct LogRefold {
    let flow: String
    let folder: FlowFolder
    let until: Timestamp?
    private let db: Database
    private var lines: UsersLines?

    init(flow: String, context: FlowContext, until: Timestamp?, in db: Database) {
        self.flow = flow
        folder = FlowFolder(context)
        self.until = until
        self.db = db
    }

    /// A user's journey folded from the log, up to `until` when given; nil when it had not
    /// begun by then.
    mutating func journey(user: String) throws -> Journey? {
        let reader = try lines ?? UsersLines(db)
        lines = reader
        return folder.journey(of: try reader.lines(user: user, flow: flow).events(), until: until)
    }
}
