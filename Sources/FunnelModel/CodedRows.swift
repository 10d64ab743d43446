/// An event's answers (its properties) or its context's flags by the codes of the keys its
/// flow definition names (the fold's `DefinedKeys`): what a fold sets without hashing a key.
/// Worked out once for the many events with the same properties or context.
public struct CodedPairs: Sendable {
    /// Each key's code and value.
    public var pairs: [(code: Int32, value: JSONValue)]

    public init(_ pairs: [(code: Int32, value: JSONValue)]) {
        self.pairs = pairs
    }
}

/// Rows of coded pairs in one buffer, by row number (a table's distinct properties or
/// contexts): a fold reads a row's pairs where they are, without copying the row out, so an
/// event's pairs cost no retain of their own.
public struct CodedRows: Sendable {
    @usableFromInline var codes: [Int32] = []
    @usableFromInline var values: [JSONValue] = []
    /// Per row, where its pairs start and end in `codes` and `values`; a start of -1 for a
    /// row that is not coded (a key without a code: read by name).
    @usableFromInline var bounds: [(start: Int32, end: Int32)] = []

    public init() {}

    /// How many rows.
    public var count: Int { bounds.count }
    public var isEmpty: Bool { bounds.isEmpty }

    /// Adds a row: `row`'s pairs, or nil for one that is not coded.
    public mutating func append(_ row: CodedPairs?) {
        guard let row else {
            bounds.append((-1, -1))
            return
        }
        let start = Int32(codes.count)
        for pair in row.pairs {
            codes.append(pair.code)
            values.append(pair.value)
        }
        bounds.append((start, Int32(codes.count)))
    }

    /// Row `row`'s pairs (a copy), nil when it is not coded.
    public subscript(_ row: Int) -> CodedPairs? {
        let b = bounds[row]
        guard b.start >= 0 else { return nil }
        return CodedPairs((Int(b.start)..<Int(b.end)).map { (codes[$0], values[$0]) })
    }

    /// Calls `body` with each pair of row `row`, in order; false (`body` not called) when
    /// there is no such row or it is not coded.
    @inlinable @inline(__always)
    public func forEach(row: Int, _ body: (_ code: Int32, _ value: JSONValue) -> Void) -> Bool {
        guard let range = range(of: row) else { return false }
        for k in range { body(codes[k], values[k]) }
        return true
    }

    /// Where row `row`'s pairs are, nil when there is no such row or it is not coded.
    @inlinable
    func range(of row: Int) -> Range<Int>? {
        guard row >= 0, row < bounds.count, bounds[row].start >= 0 else { return nil }
        return Int(bounds[row].start)..<Int(bounds[row].end)
    }
}
