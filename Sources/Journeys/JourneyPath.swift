import FunnelModel

/// A journey's expected path (`Journey.path`), step by step, as an array of `PathStep`s
/// reads. A fold's path shares the entries (steps and reasons) of the expected path it was
/// worked out from, one reference for all its journeys, and holds only what is the journey's
/// own: a byte a step (`bits(at:)`). Any other path holds its steps as given.
public struct JourneyPath: Sendable {
    /// The expected path's entries the steps are (empty when `given` holds them).
    private var entries: [ExpectedPath.Entry] = []
    /// By step: the status (0 shown, 1 skipped, 2 undetermined, 3 before start), 4 when
    /// reached, 8 when eligible (the stored form's byte).
    private var stepBits: [UInt8] = []
    /// Steps as given (nil: the shared entries and `stepBits`).
    private var given: [Journey.PathStep]?

    /// The steps of `entries` with the journey's bits, one a step.
    package init(entries: [ExpectedPath.Entry], bits: [UInt8]) {
        self.entries = entries
        stepBits = bits
    }

    public init(_ steps: [Journey.PathStep] = []) {
        given = steps
    }

    /// The step at `i`.
    @inline(__always)
    public func step(at i: Int) -> String {
        given?[i].step ?? entries[i].step
    }

    /// The byte the stored form keeps for the step at `i` (see `stepBits`).
    @inline(__always)
    public func bits(at i: Int) -> UInt8 {
        guard let given else { return stepBits[i] }
        let s = given[i]
        return JourneyPath.statusBits(s.status) | (s.reached ? 4 : 0) | (s.eligible ? 8 : 0)
    }

    /// Why the step at `i` is skipped or undetermined.
    public func reason(at i: Int) -> String? {
        if let given { return given[i].reason }
        switch entries[i].status {
        case .shown: return nil
        case .skipped(let why), .undetermined(let why): return why
        }
    }

    /// The status bits (`bits(at:)`, the lowest two) of `status`.
    package static func statusBits(_ status: Journey.PathStep.Status) -> UInt8 {
        switch status {
        case .shown: return 0
        case .skipped: return 1
        case .undetermined: return 2
        case .beforeStart: return 3
        }
    }
}

extension JourneyPath: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { given?.count ?? stepBits.count }

    public subscript(i: Int) -> Journey.PathStep {
        if let given { return given[i] }
        let b = stepBits[i]
        return Journey.PathStep(step: entries[i].step, status: Journey.pathStatus(b), reason: reason(at: i),
                                reached: b & 4 != 0, eligible: b & 8 != 0)
    }
}

extension JourneyPath: Hashable {
    /// The same steps, however they are held.
    public static func == (a: JourneyPath, b: JourneyPath) -> Bool {
        a.elementsEqual(b)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for step in self { hasher.combine(step) }
    }
}

extension JourneyPath: Codable {
    /// Encoded as the array of its steps.
    public init(from decoder: Decoder) throws {
        self.init(try [Journey.PathStep](from: decoder))
    }

    public func encode(to encoder: Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}

extension JourneyPath: ExpressibleByArrayLiteral {
    public init(arrayLiteral steps: Journey.PathStep...) {
        self.init(steps)
    }
}
