/// A simulation whose lines wait in a `LineSpool`, with how its users fared, counted as they
/// were simulated (no `SimulatedUser` is kept).
public struct SpooledSimulation {
    public let lines: LineSpool
    public let users: Int
    public let started: Int
    public let completed: Int
}

extension Simulation {
    /// Simulates every user into a spool made in `folder`: memory holds one user's lines at a
    /// time, and a few bytes for each line. `progress` is told how many users are done every
    /// 1,000 users.
    public func spool(in folder: String, progress: ((Int) -> Void)? = nil) throws -> SpooledSimulation {
        let spool = try LineSpool(in: folder)
        var started = 0, completed = 0
        try forEachUser(progress: progress) { user, lines in
            if user.started { started += 1 }
            if user.completed { completed += 1 }
            try spool.append(lines)
        }
        return SpooledSimulation(lines: spool, users: options.users, started: started, completed: completed)
    }
}
