// funnel-stages FILES… — each stage of a cold ingest run alone on the same inputs, one after
// another, for the per-stage table of docs/performance.md (scripts/stages runs it beside a
// profile of the whole ingest). Prints, per stage, its seconds and microseconds a line.
// A measuring tool, not part of funnel: it reads the inputs and writes nothing. With
// FUNNEL_STAGES_ONLY=parse it runs only the parser without events (for a profile of it); with
// FUNNEL_STAGES_ONLY=fold, only the fold's parts (fold, finish, facts, encoding), finish and
// facts repeated FOLD_REPEAT times (default 1) for a profile of them.
import Foundation
import FunnelModel
import LogFiles
import EventStore
import Flows
import Projections
import LineParsing
import Journeys

/// The CPU time of this process so far (all its threads), in seconds.
func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Runs `body` over every input and returns the CPU seconds it took.
func timed(_ body: () throws -> Void) rethrows -> Double {
    let start = cpuSeconds()
    try body()
    return cpuSeconds() - start
}

/// Keeps each user's events of one input, numbered by line (the fold's seq stand-in).
/// Unchecked: a value handed across a queue (the parse's end), filled by the parsing thread
/// and read after it.
final class EventsByUser: ParsedEventSink, @unchecked Sendable {
    var events: [Int32: [RecordedEvent]] = [:]
    /// Equal strings, properties and contexts shared, as a store's reader shares them.
    private var cache = EventCache()
    private let decoder = EventDecoder()
    func take(line: Int, user: Int32, key: Int32, shape: Int32, envelope: Envelope, in bytes: UnsafeBufferPointer<UInt8>) {
        let event = decoder.event(from: envelope, in: bytes, cache: &cache, id: false)
        events[user, default: []].append(RecordedEvent(seq: Int64(line), event: event, line: ""))
    }
    func forgetAll() {
        events = [:]
        cache = EventCache()
    }
}

let paths = Array(CommandLine.arguments.dropFirst())
guard !paths.isEmpty else {
    FileHandle.standardError.write(Data("usage: funnel-stages FILES…\n".utf8))
    exit(64)
}
/// The parsing thread's work without events: envelopes validated, keys and users numbered.
func parseWithoutEvents() throws {
    for path in paths {
        _ = try LineParser.run(path: path, batchLines: 4_096, batchBytes: 4 << 20) { _ in true }
    }
}
// FUNNEL_STAGES_ONLY=parse: only the parser without events, for a profile of that stage.
if ProcessInfo.processInfo.environment["FUNNEL_STAGES_ONLY"] == "parse" {
    print("parse (no events)\t\(String(format: "%.3f", try timed(parseWithoutEvents)))")
    exit(0)
}
let glp1 = try FlowCatalog().flow("glp1")

/// Each GLP-1 user's events in the input at `path`, decoded as a store's reader shares them.
func glp1Users(in path: String) throws -> [[RecordedEvent]] {
    let sink = EventsByUser()
    _ = try LineParser.run(path: path, batchLines: 4_096, batchBytes: 4 << 20, eventSink: sink) { _ in true }
    return sink.events.values.filter { $0.first?.event.flow == glp1.id }
}

/// The fold's parts alone, for a profile of them: every input's users' events folded, the
/// folds finished, their facts worked out, and both encoded, each part timed on its own.
func foldParts() throws {
    let folder = FlowFolder(glp1)
    let context = folder.context
    let users = try paths.flatMap(glp1Users)
    var folds: [JourneyFold] = []
    let fold = timed {
        folds = users.compactMap { JourneyFold.fold($0, rules: context.rules) }
    }
    // As the ingest does: each fold finished with its steps' codes, which the facts and the
    // stored form then read instead of looking each step up by its id.
    var journeys: [(journey: Journey, codes: JourneyCodes)] = []
    let repeats = Int(ProcessInfo.processInfo.environment["FOLD_REPEAT"] ?? "1") ?? 1
    let finish = timed { for _ in 0..<repeats { journeys = folds.map { $0.finishCoded(paths: context.paths) } } }
    var facts: [JourneyFacts] = []
    let factsTime = timed {
        for _ in 0..<repeats { facts = journeys.compactMap { folder.facts(of: $0.journey, codes: $0.codes) } }
    }
    var bytes = 0
    // The sum of each encoding's FNV-1a (the users come in any order): the same figure
    // before and after a change to the encoders.
    var digest: UInt64 = 0
    func add(_ b: [UInt8]) {
        bytes += b.count
        digest &+= b.withUnsafeBufferPointer { FNV1a.hash($0) }
    }
    var encoded: [[UInt8]] = []
    let encode = timed {
        for _ in 0..<repeats {
            encoded = []
            encoded.reserveCapacity(journeys.count + facts.count)
            for (i, j) in journeys.enumerated() {
                encoded.append(j.journey.binary(resume: folds[i].resume, names: context.names, codes: j.codes))
            }
            for f in facts { encoded.append(f.binary()) }
        }
    }
    for b in encoded { add(b) }
    print("fold parts: \(folds.count) journeys, \(bytes) bytes encoded (digest \(String(digest, radix: 16))); CPU seconds")
    for (name, s) in [("fold", fold), ("finish", finish), ("facts", factsTime), ("encode", encode)] {
        print("\(name)\t\(String(format: "%.3f", s))\t\(String(format: "%.2f", s * 1e6 / Double(max(folds.count, 1)))) us a journey")
    }
}
// FUNNEL_STAGES_ONLY=fold: only the fold's parts (fold, finish, facts, encoding).
if ProcessInfo.processInfo.environment["FUNNEL_STAGES_ONLY"] == "fold" {
    try foldParts()
    exit(0)
}
var lines = 0
var buffer = [UInt8](repeating: 0, count: 1 << 20)

// 1. Decompression alone: the input read and inflated (libdeflate, whole members), bytes dropped.
let inflate = try timed {
    for path in paths {
        let stream = try ByteStream(path: path)
        try buffer.withUnsafeMutableBytes { b in while try stream.read(into: b) > 0 {} }
    }
}
// 2. Inflated and split into lines.
let split = try timed {
    for path in paths {
        let reader = LineReader(stream: try ByteStream(path: path))
        try reader.forEachLine { _, _ in }
        lines += reader.linesRead
    }
}
// 3. The parsing thread's work without events.
let scan = try timed(parseWithoutEvents)
// 4. The same with every event held for the fold, as an ingest with projections does.
let build = try timed {
    for path in paths {
        let sink = ParsedGroups(bufferLimit: .max, segmented: false)
        _ = try LineParser.run(path: path, batchLines: 4_096, batchBytes: 4 << 20, eventSink: sink) { _ in true }
    }
}
// 5. Folding alone: each input's users' events (built as in 4, not timed) folded into
// journeys, each input's users on their own (the ingest resumes users across inputs).
let folder = FlowFolder(glp1)
var fold = 0.0
var journeys = 0
for path in paths {
    let users = try glp1Users(in: path)
    fold += timed {
        for events in users where folder.journey(of: events) != nil { journeys += 1 }
    }
}

let perLine = { (s: Double) in String(format: "%.2f", s * 1e6 / Double(max(lines, 1))) }
print("funnel-stages: \(paths.count) inputs, \(lines) lines; CPU seconds of each stage alone")
print("stage\tseconds\tus_per_line")
for (name, s) in [("inflate", inflate), ("inflate+split", split), ("parse (no events)", scan),
                  ("parse (with events)", build), ("fold (\(journeys) journeys)", fold)] {
    print("\(name)\t\(String(format: "%.3f", s))\t\(perLine(s))")
}
