import FunnelModel
import LogFiles
import Workers

/// The names, steps, contexts and properties of one input's held events (of one segment of
/// it), each distinct one kept once: names and steps by the parser's key number, contexts and
/// properties by their bytes, each decoded once. A held event refers to them by number, so
/// the parsing thread builds no strings or dictionaries per event, and a fold that meets the
/// same context number twice in a row knows it is the same context.
package struct EventParts: Sendable {
    /// What a key (a flow, step and event name) holds for the fold.
    package struct Names: Sendable {
        package var rawName: String
        package var step: String?
        package var flow: String
        /// The known event the name is.
        package var known: EventName?
    }

    /// Names by a held event's `names`.
    package private(set) var names: [Names] = []
    /// Contexts by a held event's `context`: 0 is a line without one.
    package private(set) var contexts: [EventContext] = [EventContext()]
    /// Properties by a held event's `properties`: 0 is a line without any.
    package private(set) var properties: [[String: JSONValue]] = [[:]]
    /// The parser's key numbers' index in `names` (-1: not met in these parts yet).
    private var byKey: [Int32] = []
    /// The bytes of each context and properties object met (their number is one less).
    private var contextBytes = ByteInterner()
    /// By a native shape's number, the context number its last line had (-1: none yet): lines
    /// of one shape carry the same context, so its bytes are compared, not hashed.
    private var contextOfShape: [Int32] = []
    private var propertyBytes = ByteInterner()

    package init() {}

    /// What the fold reads, shared by every view of the held events.
    package var table: EventTable { EventTable(names: names, contexts: contexts, properties: properties) }

    /// The index in `names` of the parser's key `key`, the line's envelope (refs into `b`)
    /// giving its strings the first time.
    package mutating func names(ofKey key: Int32, _ env: Envelope, in b: UnsafeBufferPointer<UInt8>) -> Int32 {
        let k = Int(key)
        if k < byKey.count, byKey[k] >= 0 { return byKey[k] }
        if k >= byKey.count { byKey.append(contentsOf: repeatElement(-1, count: k + 1 - byKey.count)) }
        let rawName = env.name.string(in: b)
        names.append(Names(rawName: rawName, step: env.step?.string(in: b), flow: env.flow.string(in: b),
                           known: EventName(normalizing: rawName)))
        byKey[k] = Int32(names.count - 1)
        return byKey[k]
    }

    /// The line's event as held: `names` its key's index, its context and properties numbered
    /// by their bytes (decoded the first time); `shape` its native shape's number (-1: none).
    package mutating func hold(seq: Int64, names: Int32, shape: Int32, _ env: Envelope,
                               in b: UnsafeBufferPointer<UInt8>) -> HeldEvent {
        var context: Int32 = 0
        if let r = env.context {
            context = contextNumber(at: r, shape: Int(shape), in: b)
        }
        var properties: Int32 = 0
        if let r = env.properties, r.count > 2 {
            let (id, isNew) = propertyBytes.intern(UnsafeBufferPointer(rebasing: b[r]))
            if isNew { self.properties.append(EventDecoder.properties(at: r, in: b)) }
            properties = Int32(id + 1)
        }
        return HeldEvent(seq: seq, time: env.time, names: names, context: context, properties: properties)
    }

    /// The number of the context at `r` in `b`: the one its shape's last line had when the
    /// bytes are the same, else found by its bytes (and decoded the first time).
    private mutating func contextNumber(at r: Range<Int>, shape: Int, in b: UnsafeBufferPointer<UInt8>) -> Int32 {
        let bytes = UnsafeBufferPointer(rebasing: b[r])
        if shape >= 0, shape < contextOfShape.count {
            let known = contextOfShape[shape]
            if known > 0, contextBytes.holds(Int(known) - 1, bytes) { return known }
        }
        let (id, isNew) = contextBytes.intern(bytes)
        if isNew { contexts.append(EventDecoder.context(at: r, in: b)) }
        let number = Int32(id + 1)
        if shape >= 0 {
            if shape >= contextOfShape.count {
                contextOfShape.append(contentsOf: repeatElement(-1, count: shape + 1 - contextOfShape.count))
            }
            contextOfShape[shape] = number
        }
        return number
    }

    /// Positions of `held` in fold order (time, then seq).
    package static func foldOrder(_ held: [HeldEvent]) -> [Int] {
        held.withUnsafeBufferPointer { h in FoldOrder.indices(count: h.count) { FoldOrder.Key(time: h[$0].time.micros, seq: h[$0].seq) } }
    }
}

/// The parts held events refer to, as the fold reads them (one reference for every view).
package final class EventTable: Sendable {
    package let names: [EventParts.Names]
    package let contexts: [EventContext]
    package let properties: [[String: JSONValue]]

    /// `answers(flow:names:listed:)` by flow, worked out once for every fold of the table.
    private let answered = Locked([String: Answers]())

    /// What `answers(flow:names:listed:)` gives, by properties and context number, and the
    /// names it is by.
    package struct Answers: Sendable {
        package var keys: DefinedKeys
        package var flagKeys: DefinedKeys
        package var coded: CodedRows
        package var unlisted: [[String]?]
        package var flags: CodedRows
    }

    package init(names: [EventParts.Names], contexts: [EventContext], properties: [[String: JSONValue]]) {
        self.names = names
        self.contexts = contexts
        self.properties = properties
    }

    /// What a fold of `flow` reads of each of `properties` and `contexts`, found once for the
    /// table's distinct ones instead of once an event (by their number): each properties'
    /// answers by their codes among `names`' answer keys (nil when a key has none) and the
    /// drift keys (`DriftKey.value`, sorted) of its answers `listed` (the flow's
    /// `FlowVocabulary.listedValues`) does not list, and each context's flags by their codes
    /// among `names`' flag keys. A list is empty when there are no such keys, or no listed values.
    package func answers(flow: String, names: JourneyNames, listed: [String: Set<String>]) -> Answers {
        let keys = names.answerKeys, flagKeys = names.flagKeys
        return answered.withLock { known in
            if let found = known[flow], found.keys === keys, found.flagKeys === flagKeys { return found }
            // A listed key is looked up by its code where it has one (listed keys are keys the
            // definition collects): each key once for both.
            let listedByCode = listed.isEmpty ? [] : keys.keys.map { listed[$0] }
            var coded = CodedRows(), unlisted: [[String]?] = []
            unlisted.reserveCapacity(listed.isEmpty ? 0 : properties.count)
            for answers in properties {
                let read = Self.read(answers, keys, listed, listedByCode)
                if !keys.isEmpty { coded.append(read.coded) }
                if !listed.isEmpty { unlisted.append(read.unlisted) }
            }
            var flags = CodedRows()
            if !flagKeys.isEmpty { for context in contexts { flags.append(Self.coded(context.flags, flagKeys)) } }
            let found = Answers(keys: keys, flagKeys: flagKeys, coded: coded, unlisted: unlisted, flags: flags)
            known[flow] = found
            return found
        }
    }

    /// `answers` by their keys' codes among `keys` (nil when a key has none), and the drift
    /// keys, sorted, of those whose value `listed` lacks for their key (read by code, in
    /// `listedByCode`, for a key with one).
    private static func read(_ answers: [String: JSONValue], _ keys: DefinedKeys, _ listed: [String: Set<String>],
                             _ listedByCode: [Set<String>?]) -> (coded: CodedPairs?, unlisted: [String]) {
        var pairs: [(code: Int32, value: JSONValue)] = []
        pairs.reserveCapacity(answers.count)
        var allCoded = true
        var unlisted: [String] = []
        for (key, v) in answers {
            let values: Set<String>?
            if let code = keys.codes[key] {
                pairs.append((code, v))
                values = listedByCode.isEmpty ? nil : listedByCode[Int(code)]
            } else {
                allCoded = false
                values = listed.isEmpty ? nil : listed[key]
            }
            guard let values else { continue }
            let text = v.textValue
            if !values.contains(text) { unlisted.append(DriftKey.value(key, text)) }
        }
        if unlisted.count > 1 { unlisted.sort() }
        return (allCoded ? CodedPairs(pairs) : nil, unlisted)
    }

    /// `pairs` by their keys' codes among `keys`; nil when a key has none.
    private static func coded(_ given: [String: JSONValue], _ keys: DefinedKeys) -> CodedPairs? {
        var pairs: [(code: Int32, value: JSONValue)] = []
        pairs.reserveCapacity(given.count)
        for (key, v) in given {
            guard let code = keys.codes[key] else { return nil }
            pairs.append((code, v))
        }
        return CodedPairs(pairs)
    }

    /// The step code of each of `names` (`FlowVocabulary.stepCodes`, given as `codes`) for a
    /// fold of `flow`: -1 for no step, a step the codes do not have, or another flow's name.
    package func stepCodes(flow: String, _ codes: [String: Int32]) -> [Int32] {
        names.map { n in
            guard n.flow == flow, let step = n.step else { return -1 }
            return codes[step] ?? -1
        }
    }
}
