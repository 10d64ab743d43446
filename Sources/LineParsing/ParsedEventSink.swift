import FunnelModel
import LogFiles

/// Takes the decoded events of one input on the parsing thread.
public protocol ParsedEventSink: AnyObject, Sendable {
    /// One line's event, as the parser has it: its line number, its user's and its (flow,
    /// step, event) key's numbers among the input's (`LineKeys`: numbered in first-seen
    /// order, equal numbers are the same values), its native shape's number (-1: none; lines
    /// of one shape have the same bytes outside the envelope's cut values, its context among
    /// them) and its envelope, whose refs and ranges are into `bytes` (valid during the call
    /// only). Whether the line was accepted, and with which seq, `CommittedInput.accepted`
    /// tells.
    func take(line: Int, user: Int32, key: Int32, shape: Int32, envelope: Envelope, in bytes: UnsafeBufferPointer<UInt8>)
    /// Events it can still take before it drops some (their users are then folded from the
    /// log), and events it holds. Once it holds as many as it has room for, the first event of
    /// a new UTC day ends the input's segment: the ingest commits the input so far with the
    /// events `detach()` moved out, and this sink takes the next segment's.
    var room: Int { get }
    var held: Int { get }
    /// Moves every event taken so far to a new sink, which it returns, and goes on empty (the
    /// parser keeps one sink for the whole input); nil: it does not end segments, and drops
    /// what does not fit.
    func detach() -> (any ParsedEventSink)?
    /// Drops every event taken: the input is parsed again from its first line.
    func forgetAll()
}

extension ParsedEventSink {
    public var room: Int { .max }
    public var held: Int { 0 }
    public func detach() -> (any ParsedEventSink)? { nil }
}
