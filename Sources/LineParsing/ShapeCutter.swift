import LogFiles

/// Cuts an input's lines for a store that keeps a line as its shape and values. The parser
/// numbers the input's shapes in first-seen order (`LineKeys.shape`); the first line of each
/// builds its skeleton and the store gives its id (nil: such lines are kept whole), the
/// others only pick their cuts. A store's id is 64 bits (a store of unsigned ids keeps their
/// bit pattern): not a generic parameter, which another module's writer would call
/// unspecialized, looking up its metadata for every line.
package struct ShapeCutter {
    package typealias ID = Int64

    @usableFromInline private(set) var shaper = LineShape()
    /// The store's id of each of the input's shapes so far, by the parser's number.
    private var ids: [ID?] = []

    package init() {}

    /// The cuts of the line cut last, in line order.
    package var cuts: [LineShape.Cut] { shaper.cuts }

    /// Calls `body` with the cuts of the line cut last, read in place: a writer's every line
    /// reads them, without taking a reference to them (inlinable: nor a call).
    @inlinable
    package func withCuts(_ body: (UnsafeBufferPointer<LineShape.Cut>) -> Void) {
        shaper.cuts.withUnsafeBufferPointer(body)
    }

    /// What `cut` found of a line's shape.
    package enum Shape {
        /// One the input had: its id, nil when such lines are kept whole.
        case known(ID?)
        /// One the input had not had: its skeleton, whose id the caller gives `learn`.
        case new([UInt8])
        /// The line is kept whole (no value cut), or the parser skipped a number (`outOfOrder`).
        case none(outOfOrder: Bool)
    }

    /// Picks the cuts of `line` (its envelope's, or `vendorCuts` for a vendor's line) and
    /// says what its shape is.
    package mutating func cut(_ line: ParsedLine, _ env: Envelope, in b: UnsafeBufferPointer<UInt8>,
                              vendorCuts: ArraySlice<LineShape.Cut>?) -> Shape {
        let shape = Int(line.keys.shape), lineEnd = line.start + line.count
        guard shape >= 0 && shape <= ids.count else { return .none(outOfOrder: shape > ids.count) }
        if shape == ids.count {
            if let vendorCuts {
                shaper.shape(cuts: vendorCuts, lineStart: line.start, lineEnd: lineEnd, in: b)
            } else {
                shaper.shape(env, lineStart: line.start, lineEnd: lineEnd, in: b)
            }
            return .new(shaper.skeleton)
        }
        if let vendorCuts {
            shaper.take(vendorCuts)
        } else {
            shaper.pickCuts(env, lineStart: line.start, lineEnd: lineEnd)
        }
        return .known(ids[shape])
    }

    /// Records the store's id of the skeleton `cut` found new (nil: its lines are kept whole).
    package mutating func learn(_ id: ID?) { ids.append(id) }
}
