/// Stored journey bytes that do not decode.
public struct JourneyDecodingError: Error, Sendable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "journey bytes do not decode at offset \(offset): \(reason)" }
}
