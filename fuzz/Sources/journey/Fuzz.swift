import LogFiles
import Flows
import FunnelModel
import FuzzSupport
import Journeys
#if canImport(Glibc)
import Glibc
#endif

/// The names a stored journey is read with: none (every name in full), or a built-in flow's.
let choices: [(names: JourneyNames, request: JourneyGlance.Request)] =
    [(JourneyNames.none, JourneyGlance.Request(steps: [], keys: []))] + Flows.builtIn.map { flow in
        (JourneyNames(flow), JourneyGlance.Request(steps: flow.steps.map(\.id),
                                                   keys: flow.steps.flatMap { $0.collects.map(\.key) }))
    }

/// The store's journey codec on arbitrary bytes. The input's first byte picks the names (mod
/// the choices: 0 none, k the k-th built-in flow's), the rest is the stored journey.
/// Properties: every decoder throws or returns, never crashes; when `decode(binary:)` reads
/// a journey, the other decoders read the same one, the glance agrees with it, and encoding
/// it again gives bytes that decode and encode to themselves.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJourney(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzBytes(data, size)
    guard let first = input.first else { return 0 }
    let (names, request) = choices[Int(first) % choices.count]
    let stored = Array(input.dropFirst())
    stored.withUnsafeBytes { b in
        let decoded = try? Journey.decode(binary: b, names: names)
        let alone = try? Journey(binary: b, names: names)
        let cached = try? Journey(binary: b, cache: JourneyDecodingCache(), names: names)
        let glance = try? JourneyGlance.read(binary: b, request: request, cache: JourneyDecodingCache(), names: names)
        guard let (journey, resume) = decoded else { return }
        let bytes = journey.binary(resume: resume, names: names)
        fuzzCheck(alone.map { $0.binary(resume: resume, names: names) } == bytes, "init(binary:) reads another journey")
        fuzzCheck(cached.map { $0.binary(resume: resume, names: names) } == bytes, "init(binary:cache:) reads another journey")
        if let g = glance {
            let whole = JourneyGlance(journey, request: request)
            fuzzCheck(g.userID == whole.userID && g.firstEventAt == whole.firstEventAt && g.lastEventAt == whole.lastEventAt
                      && g.startedAt == whole.startedAt && g.completedAt == whole.completedAt
                      && g.currentStep == whole.currentStep && g.lane == whole.lane && g.appVersion == whole.appVersion
                      && g.platform == whole.platform && g.lastSeqOnCurrentStep == whole.lastSeqOnCurrentStep,
                      "the glance read (\(g)) differs from the journey's (\(whole))")
        } else {
            fuzzFailure("the journey decodes, its glance throws")
        }
        let again = bytes.withUnsafeBytes { try? Journey.decode(binary: $0, names: names) }
        guard let (journey2, resume2) = again else { fuzzFailure("a decoded journey's own bytes do not decode") }
        fuzzCheck(journey2.binary(resume: resume2, names: names) == bytes, "a decoded journey's bytes do not round-trip")
    }
    return 0
}

/// With `FUNNEL_FUZZ_JOURNEY_SEEDS=DIR` and `FUNNEL_FUZZ_JOURNEY_EVENTS=FILE` (an event log,
/// gzip or not), writes seed inputs to DIR and exits: the journeys of the log's first users,
/// folded with their built-in flow, stored as the codec writes them (with and without the
/// flow's names, with and without a resume state), each behind its names byte.
@_cdecl("LLVMFuzzerInitialize")
public func initializeJourney(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    guard let dir = getenv("FUNNEL_FUZZ_JOURNEY_SEEDS").map({ String(cString: $0) }),
          let log = getenv("FUNNEL_FUZZ_JOURNEY_EVENTS").map({ String(cString: $0) }) else { return 0 }
    var byUser: [String: [RecordedEvent]] = [:]
    var users: [String] = []
    do {
        try LineReader(stream: try ByteStream(path: log)).forEachLine { info, bytes in
            var decoder = EventDecoder()
            guard case .success(let e) = decoder.decode(bytes), users.count < 4 || byUser[e.userID] != nil else { return }
            if byUser[e.userID] == nil { users.append(e.userID) }
            byUser[e.userID, default: []].append(RecordedEvent(seq: Int64(info.number), event: e, line: ""))
        }
    } catch {
        fuzzFailure("cannot read \(log): \(error)")
    }
    var written = 0
    for user in users {
        guard let events = byUser[user], let flowIndex = Flows.builtIn.firstIndex(where: { $0.id == events[0].event.flow }),
              let fold = JourneyFold.fold(events, definition: Flows.builtIn[flowIndex]) else { continue }
        let journey = fold.finish()
        for (k, names) in [(0, JourneyNames.none), (flowIndex + 1, choices[flowIndex + 1].names)] {
            for resume in [nil, fold.resume] {
                let bytes = [UInt8(k)] + journey.binary(resume: resume, names: names)
                let path = "\(dir)/\(user)-\(k == 0 ? "full" : "names")\(resume == nil ? "" : "-resume").bin"
                guard let f = fopen(path, "wb") else { fuzzFailure("cannot create \(path)") }
                fwrite(bytes, 1, bytes.count, f)
                fclose(f)
                written += 1
            }
        }
    }
    print("wrote \(written) journeys to \(dir)")
    exit(0)
}

@main
enum JourneyFuzzer {
    static func main() { runFuzzer(fuzzJourney) }
}
