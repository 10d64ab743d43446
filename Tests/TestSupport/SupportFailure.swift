/// A test helper's failure (a browser or a server that did not do its part), said in a line.
public struct SupportFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
