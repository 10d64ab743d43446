import FunnelModel
import LogFiles

/// Reads a journey's stored form (see `Journey+Binary`).
package struct BinaryReader {
    package let b: UnsafeRawBufferPointer
    package var offset = 0
    package var cache: JourneyDecodingCache?
    /// The definition's names (version 2 writes names as indexes into them).
    package var names = JourneyNames.none
    /// Version 2 bytes: object keys and names are written as `BinaryWriter.name` does.
    package var namesAsIndexes = false
    /// Whether `object` shares equal objects through the cache (flags repeat; values rarely do).
    package var sharesObjects = false

    package init(_ b: UnsafeRawBufferPointer) { self.b = b }

    package var atEnd: Bool { offset == b.count }

    @inline(__always) mutating func byte() throws -> UInt8 {
        guard offset < b.count else { throw JourneyDecodingError(offset: offset, reason: "unexpected end") }
        let v = b[offset]
        offset += 1
        return v
    }

    @inline(__always) mutating func uint() throws -> UInt64 {
        // One byte (counts, names, flags): most of them, read here without the codec's call.
        if offset < b.count, b[offset] < 0x80 {
            offset += 1
            return UInt64(b[offset - 1])
        }
        let start = offset
        guard let v = Varint.read(b, at: &offset) else {
            throw JourneyDecodingError(offset: offset, reason: offset - start >= Varint.maxBytes ? "varint too long" : "unexpected end")
        }
        return v
    }

    package mutating func count() throws -> Int {
        let n = try uint()
        guard n <= UInt64(b.count - offset) else { throw JourneyDecodingError(offset: offset, reason: "count \(n) beyond the data") }
        return Int(n)
    }

    /// A tally (events, views): a `uint` that must fit `Int`, as the writer's did.
    package mutating func tally() throws -> Int {
        let start = offset
        let n = try uint()
        guard let v = Int(exactly: n) else { throw JourneyDecodingError(offset: start, reason: "tally \(n) beyond Int") }
        return v
    }

    package mutating func int() throws -> Int64 {
        Varint.unzigzag(try uint())
    }

    /// An optional seq, as `BinaryWriter.seq` writes it.
    package mutating func optionalSeq() throws -> Int64? {
        let seq = try uint()
        guard seq <= UInt64(Int64.max) else { throw JourneyDecodingError(offset: offset, reason: "a seq out of range") }
        return seq == 0 ? nil : Int64(seq - 1)
    }

    package mutating func double() throws -> Double {
        guard b.count - offset >= 8 else { throw JourneyDecodingError(offset: offset, reason: "unexpected end") }
        let bits = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        offset += 8
        return Double(bitPattern: bits)
    }

    private mutating func utf8(_ n: Int) throws -> String {
        guard n <= b.count - offset else { throw JourneyDecodingError(offset: offset, reason: "string beyond the data") }
        let raw = UnsafeRawBufferPointer(rebasing: b[offset..<(offset + n)])
        // Strings of up to 15 bytes live inline (no allocation); longer ones are shared.
        let s = n > 15 ? cache?.string(raw) ?? String(decoding: raw, as: UTF8.self) : String(decoding: raw, as: UTF8.self)
        offset += n
        return s
    }

    package mutating func string() throws -> String { try utf8(Int(try count())) }

    package mutating func optionalString() throws -> String? {
        let n = try uint()
        if n == 0 { return nil }
        return try utf8(Int(clamping: n - 1))
    }

    package mutating func timestamp() throws -> Timestamp {
        let micros = try int()
        let offset = try int()
        guard let o = Int32(exactly: offset) else { throw JourneyDecodingError(offset: self.offset, reason: "offset out of range") }
        return Timestamp(micros: micros, offsetSeconds: o)
    }

    package mutating func optionalTimestamp() throws -> Timestamp? {
        try byte() == 0 ? nil : try timestamp()
    }

    package mutating func timestamp(from base: Timestamp) throws -> Timestamp {
        let micros = try int()
        let offset = try int()
        guard let o = Int32(exactly: Int64(base.offsetSeconds) &+ offset) else {
            throw JourneyDecodingError(offset: self.offset, reason: "offset out of range")
        }
        return Timestamp(micros: base.micros &+ micros, offsetSeconds: o)
    }

    package mutating func optionalTimestamp(from base: Timestamp) throws -> Timestamp? {
        try byte() == 0 ? nil : try timestamp(from: base)
    }

    package mutating func optionalName() throws -> String? {
        switch try uint() {
        case 0: return nil
        case 1: return try string()
        case let k: return try indexedName(k - 2)
        }
    }

    package mutating func name() throws -> String {
        guard let s = try optionalName() else { throw JourneyDecodingError(offset: offset, reason: "missing name") }
        return s
    }

    private func indexedName(_ k: UInt64) throws -> String {
        guard k < UInt64(names.names.count) else {
            throw JourneyDecodingError(offset: offset, reason: "name \(k) not among the definition's \(names.names.count)")
        }
        return names.names[Int(k)]
    }

    private mutating func skipKey() throws {
        if !namesAsIndexes {
            offset += Int(try count())
        } else if try uint() == 1 {
            offset += Int(try count())
        }
    }

    package mutating func skipString() throws { offset += try count() }

    package mutating func skipName() throws {
        if try uint() == 1 { try skipString() }
    }

    /// A timestamp written from a base: two varints.
    package mutating func skipTimestamp() throws {
        _ = try uint()
        _ = try uint()
    }

    package mutating func skipSeconds() throws {
        switch try byte() {
        case 0: return
        case 1: _ = try uint()
        case 2: _ = try double()
        case let tag: throw JourneyDecodingError(offset: offset - 1, reason: "unknown seconds tag \(tag)")
        }
    }

    /// Seconds written as whole microseconds (`BinaryWriter.wholeMicros`).
    package mutating func wholeMicros() throws -> Double {
        Double(Int64(clamping: try uint())) / 1_000_000
    }

    package mutating func seconds() throws -> Double? {
        switch try byte() {
        case 0: return nil
        case 1: return try wholeMicros()
        case 2: return try double()
        case let tag: throw JourneyDecodingError(offset: offset - 1, reason: "unknown seconds tag \(tag)")
        }
    }

    package mutating func object(depth: Int = 0) throws -> [String: JSONValue] {
        guard depth == 0, sharesObjects, let cache else { return try decodeObject(depth: depth) }
        let start = offset
        try skipObject()
        let raw = UnsafeRawBufferPointer(rebasing: b[start..<offset])
        return try cache.objects.value(for: raw.bindMemory(to: UInt8.self)) {
            var sub = BinaryReader(raw)
            sub.cache = cache
            sub.names = names
            sub.namesAsIndexes = namesAsIndexes
            return try sub.decodeObject(depth: depth)
        }
    }

    /// Moves past an object without building it.
    package mutating func skipObject(depth: Int = 0) throws {
        let n = try count()
        for _ in 0..<n {
            try skipKey()
            try skipValue(depth: depth)
        }
    }

    package mutating func skipValue(depth: Int) throws {
        guard depth < 512 else { throw JourneyDecodingError(offset: offset, reason: "nesting too deep") }
        switch try byte() {
        case 0, 1, 2: return
        case 3, 4: offset += Int(try count())
        case 5:
            let n = try count()
            for _ in 0..<n { try skipValue(depth: depth + 1) }
        case 6: try skipObject(depth: depth + 1)
        case 7 where namesAsIndexes: _ = try uint()
        case let tag: throw JourneyDecodingError(offset: offset - 1, reason: "unknown value tag \(tag)")
        }
    }

    /// A journey's answers (`BinaryWriter.values`, or any object of names): held by the codes
    /// of `names`' answer keys where the names are indexes.
    package mutating func values() throws -> KeyedValues {
        let keys = names.answerKeys
        guard namesAsIndexes, !keys.isEmpty else { return KeyedValues(try object()) }
        let n = try count()
        var out = KeyedValues(keys: keys)
        for _ in 0..<n {
            let tag = try uint()
            if tag >= 2, tag - 2 < UInt64(keys.codeOfName.count), keys.codeOfName[Int(tag - 2)] >= 0 {
                out.set(try value(), code: keys.codeOfName[Int(tag - 2)])
                continue
            }
            let key: String
            switch tag {
            case 0: throw JourneyDecodingError(offset: offset, reason: "missing name")
            case 1: key = try string()
            default: key = try indexedName(tag - 2)
            }
            out[key] = try value()
        }
        return out
    }

    package mutating func decodeObject(depth: Int) throws -> [String: JSONValue] {
        let n = try count()
        var o: [String: JSONValue] = [:]
        o.reserveCapacity(n)
        for _ in 0..<n {
            let key = namesAsIndexes ? try name() : try string()
            o[key] = try value(depth: depth)
        }
        return o
    }

    package mutating func value(depth: Int = 0) throws -> JSONValue {
        guard depth < 512 else { throw JourneyDecodingError(offset: offset, reason: "nesting too deep") }
        switch try byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .number(try string())
        case 4: return .string(try string())
        case 5:
            let n = try count()
            var items: [JSONValue] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try value(depth: depth + 1)) }
            return .array(items)
        case 6: return .object(try object(depth: depth + 1))
        case 7 where namesAsIndexes: return .string(try indexedName(try uint()))
        case let tag: throw JourneyDecodingError(offset: offset - 1, reason: "unknown value tag \(tag)")
        }
    }
}
