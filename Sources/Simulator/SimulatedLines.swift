/// A simulation's lines as the collector reads them: how many, each line's event time and
/// user, and its bytes on demand. `SimulatedEvents` keeps the bytes in memory, `LineSpool`
/// in a file; `CollectorWriter` writes either the same way.
public protocol SimulatedLines {
    /// How many lines (one an event), in generation order (user by user).
    var count: Int { get }
    /// Line i's event time, microseconds since the epoch (UTC).
    func eventMicros(_ i: Int) -> Int64
    /// Line i's user, as the index of the user in the simulation.
    func userIndex(_ i: Int) -> Int32
    /// Appends line i, newline included, to `buffer`.
    func appendLine(_ i: Int, to buffer: inout [UInt8]) throws
}

extension SimulatedEvents: SimulatedLines {
    public func eventMicros(_ i: Int) -> Int64 { micros[i] }

    public func userIndex(_ i: Int) -> Int32 { users[i] }

    public func appendLine(_ i: Int, to buffer: inout [UInt8]) { buffer += bytes[range(i)] }
}
