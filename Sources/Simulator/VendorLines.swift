import FunnelModel
import LogFiles
import LogSources

/// A simulation's lines written as a vendor's export: each native line decoded and written
/// again by the source's `SourceWriter`, so the same journeys, batches, duplicates and late
/// events reach the vendor's files as reach funnel's own.
public struct VendorLines<Base: SimulatedLines>: SimulatedLines {
    public let base: Base
    public let writer: SourceWriter

    public init(_ base: Base, as definition: SourceDefinition) {
        self.base = base
        writer = SourceWriter(definition)
    }

    public var count: Int { base.count }

    public func eventMicros(_ i: Int) -> Int64 { base.eventMicros(i) }

    public func userIndex(_ i: Int) -> Int32 { base.userIndex(i) }

    public func appendLine(_ i: Int, to buffer: inout [UInt8]) throws {
        var native: [UInt8] = []
        try base.appendLine(i, to: &native)
        if native.last == 0x0A { native.removeLast() }
        let event = try EventDecoder.decode(bytes: native).get()
        buffer += try writer.line(for: event)
        buffer.append(0x0A)
    }
}

extension SourceDefinition {
    /// The collector layout of the vendor's export files.
    public var collectorLayout: CollectorWriter.Layout {
        exportFiles.per == .hour ? .hourly : .daily
    }
}
