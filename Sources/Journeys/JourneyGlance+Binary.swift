import FunnelModel

extension JourneyGlance {
    /// The glance at a stored journey (`Journey.binary`); version 1 bytes, which name every
    /// step in full, are decoded whole. `names`: those of the definition the journey was
    /// folded with.
    public static func read(binary b: UnsafeRawBufferPointer, request: Request, cache: JourneyDecodingCache,
                            names: JourneyNames) throws -> JourneyGlance {
        try read(binary: b, request: Codes(request, names), cache: cache)
    }

    /// `read(binary:request:cache:names:)` with the request's names looked up once, for many.
    package static func read(binary b: UnsafeRawBufferPointer, request: Codes, cache: JourneyDecodingCache) throws -> JourneyGlance {
        var g = JourneyGlance(empty: request.request)
        try g.read(binary: b, request: request, cache: cache)
        return g
    }

    /// A request's steps and keys as the codes `BinaryWriter.name` writes them with these
    /// names (nil: one the names lack, written in full).
    package struct Codes {
        package let request: Request
        package let names: JourneyNames
        package let steps: [UInt64?]
        package let keys: [UInt64?]
        /// A step or key asked for again (two lanes' drop-offs on one step): (where, where
        /// first). A name read fills its first place only; `read` copies it to the others.
        package let repeatedSteps: [(at: Int, first: Int)]
        package let repeatedKeys: [(at: Int, first: Int)]

        package init(_ request: Request, _ names: JourneyNames) {
            self.request = request
            self.names = names
            steps = request.steps.map { names.index(of: $0).map { UInt64($0) + 2 } }
            keys = request.keys.map { names.index(of: $0).map { UInt64($0) + 2 } }
            repeatedSteps = Codes.repeated(request.steps)
            repeatedKeys = Codes.repeated(request.keys)
        }

        package static func repeated(_ names: [String]) -> [(at: Int, first: Int)] {
            names.indices.compactMap { i in
                names.firstIndex(of: names[i]).flatMap { $0 == i ? nil : (i, $0) }
            }
        }
    }

    /// Replaces this glance with the stored journey's, reusing its arrays (no allocation per
    /// row when reading many). Bytes of version 2 and later are read in one pass: names are
    /// compared as their codes, objects and strings not asked for are skipped, not built.
    package mutating func read(binary b: UnsafeRawBufferPointer, request codes: Codes, cache: JourneyDecodingCache) throws {
        guard let stored = b.first, stored >= 2 else {
            self = JourneyGlance(try Journey(binary: b, cache: cache, names: codes.names), request: codes.request)
            return
        }
        var r = BinaryReader(b)
        r.cache = cache
        r.names = codes.names
        let version = try r.byte()
        guard version <= Journey.binaryVersion else {
            throw JourneyDecodingError(offset: 0, reason: "unknown version \(version)")
        }
        r.namesAsIndexes = true
        // Field by field as `Journey.init(version2:)` reads them.
        userID = try r.string()
        try r.skipString()
        let first = try r.timestamp()
        firstEventAt = first.micros
        startedAt = try r.optionalTimestamp(from: first)?.micros
        try r.skipName()
        completedAt = try r.optionalTimestamp(from: first)?.micros
        lastEventAt = try r.timestamp(from: first).micros
        currentStep = try r.optionalName()
        lane = try r.optionalName()
        try r.skipString()
        for i in answers.indices { answers[i] = nil }
        for _ in 0..<(try r.count()) {
            if let i = try r.match(codes.keys, codes.request.keys) {
                answers[i] = try r.value()
            } else {
                try r.skipValue(depth: 0)
            }
        }
        r.sharesObjects = true
        flags = try r.object()
        r.sharesObjects = false
        appVersion = try r.optionalString()
        platform = try r.optionalString()
        for _ in 0..<(try r.count()) {
            try r.skipName()
            try r.skipTimestamp()
            _ = try r.uint()
            try r.skipSeconds()
        }
        for i in places.indices { places[i] = nil }
        for _ in 0..<(try r.count()) {
            let step = try r.match(codes.steps, codes.request.steps)
            let bits = try r.byte()
            if try r.uint() == 1 { try r.skipString() }
            // The first entry of a step counts, as `Journey.pathStep` finds it.
            if let i = step, places[i] == nil {
                places[i] = Place(status: Journey.pathStatus(bits), reached: bits & 4 != 0, eligible: bits & 8 != 0)
            }
        }
        for _ in 0..<4 { _ = try r.uint() }
        for _ in 0..<(try r.count()) { try r.skipString() }
        for i in outcomes.indices where !outcomes[i].isEmpty { outcomes[i].removeAll(keepingCapacity: true) }
        lastSeqOnCurrentStep = nil
        defer { fillRepeated(codes) }
        guard version >= 3 else { return }
        for _ in 0..<(try r.count()) {
            try r.skipString()
            try r.skipTimestamp()
        }
        guard version >= 4 else { return }
        for _ in 0..<(try r.count()) {
            let step = try r.match(codes.steps, codes.request.steps)
            let n = try r.count()
            if let i = step {
                for _ in 0..<n { outcomes[i].append(try r.string()) }
            } else {
                for _ in 0..<n { try r.skipString() }
            }
        }
        guard version >= 5 else { return }
        lastSeqOnCurrentStep = try r.optionalSeq()
    }

    /// A step or key the request names twice gets what its first place got, as
    /// `init(_:request:)` gives it.
    private mutating func fillRepeated(_ codes: Codes) {
        for (at, first) in codes.repeatedKeys { answers[at] = answers[first] }
        for (at, first) in codes.repeatedSteps {
            places[at] = places[first]
            outcomes[at] = outcomes[first]
        }
    }

}

extension BinaryReader {
    /// Reads a name (`BinaryWriter.name`) and gives its index among `wanted`, whose codes
    /// are `codes`: compared as codes, or as text for a name written in full.
    package mutating func match(_ codes: [UInt64?], _ wanted: [String]) throws -> Int? {
        let code = try uint()
        guard code == 1 else { return code == 0 ? nil : codes.firstIndex { $0 == code } }
        let n = try count()
        let raw = UnsafeRawBufferPointer(rebasing: b[offset..<(offset + n)])
        offset += n
        return wanted.firstIndex { $0.utf8.elementsEqual(raw) }
    }
}
