/// One state per share of a pass read on several threads at once: each share's state is
/// changed only by the thread reading that share, and read once every thread is done.
public final class PartStates<State>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<State>
    public let count: Int

    public init(repeating state: State, count: Int) {
        self.count = max(count, 1)
        base = UnsafeMutablePointer<State>.allocate(capacity: self.count)
        base.initialize(repeating: state, count: self.count)
    }

    /// Changes the state of share `part` (from its thread only).
    @inline(__always)
    public func update(_ part: Int, _ body: (inout State) -> Void) {
        precondition(part >= 0 && part < count, "share \(part) of \(count)")
        body(&base[part])
    }

    /// Every share's state, in share order.
    public var all: [State] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// Share 0's state with every later share's added into it by `add`, in share order.
    public func combined(_ add: (inout State, State) -> Void) -> State {
        var out = base[0]
        for part in 1..<count { add(&out, base[part]) }
        return out
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }
}
