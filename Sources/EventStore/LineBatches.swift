import FunnelModel
import EventLog
import Foundation

/// One line as the parser hands it to the writer: where its bytes are in the batch, and
/// either its envelope (string refs rebased into the batch's bytes) or why it was rejected.
struct ParsedLine: Sendable {
    var number: Int
    var offset: Int64
    var start: Int
    var count: Int
    var envelope: Envelope?
    var rejection: Rejection?
    /// Worked out on the parsing thread for a line with an envelope (see `LineKeys`).
    var keys = LineKeys()
}

/// What the writer needs of a line besides its bytes, worked out where it is parsed: its id
/// hash, and the numbers of its (flow, step, event) key, its user and its shape among the
/// input's distinct ones, in first-seen order. A number the writer has not had yet is the
/// next one (it is seen first on this line): the writer looks the value up then, once.
struct LineKeys: Sendable {
    var idHash: Int64 = 0
    var key: Int32 = -1
    var user: Int32 = -1
    /// -1: no value is cut (the line is kept verbatim).
    var shape: Int32 = -1
}

/// The strings of an input's keys and users, made once per number (see `LineKeys`): the
/// events handed to the projection share them instead of looking each line's bytes up.
struct KeyedNames {
    private var keys: [(name: String, flow: String, step: String?)] = []
    private var users: [String] = []

    /// The event of a line whose keys were just worked out; `env`'s refs are into `b`.
    mutating func event(_ env: Envelope, keys k: LineKeys, in b: UnsafeBufferPointer<UInt8>,
                        decoder: EventDecoder, cache: inout EventCache) -> Event {
        func string(_ r: StringRef) -> String { decoder.string(r, in: b) }
        // A number not had yet is the next one (numbers are given in first-seen order).
        if Int(k.key) == keys.count { keys.append((string(env.name), string(env.flow), env.step.map(string))) }
        if Int(k.user) == users.count { users.append(string(env.userID)) }
        let key = keys[Int(k.key)]
        return decoder.event(from: env, in: b, cache: &cache, name: key.name, userID: users[Int(k.user)],
                             flow: key.flow, step: key.step)
    }
}

/// Numbers an input's keys, users and shapes on the parsing thread (one per input).
struct LineKeyer {
    private var keys = ByteInterner()
    private var users = ByteInterner()
    private var shapes = ByteInterner()
    private var key: [UInt8] = []
    private var encoder = LineEncoder()

    init() { key.reserveCapacity(256) }

    /// The keys of the line at `start..<end` of `b`, its envelope's refs into `b`.
    mutating func keys(_ env: Envelope, start: Int, end: Int, in b: UnsafeBufferPointer<UInt8>) -> LineKeys {
        func ref(_ r: StringRef) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: b[Int(r.start)..<Int(r.end)])
        }
        var out = LineKeys()
        out.idHash = StoredLine.idHash(ref(env.eventID))
        key.removeAll(keepingCapacity: true)
        key.append(contentsOf: ref(env.flow))
        key.append(0xFF)
        if let s = env.step { key.append(contentsOf: ref(s)) } else { key.append(0xFE) }
        key.append(0xFF)
        key.append(contentsOf: ref(env.name))
        out.key = Int32(key.withUnsafeBufferPointer { keys.intern($0).id })
        out.user = Int32(users.intern(ref(env.userID)).id)
        encoder.shape(env, lineStart: start, lineEnd: end, in: b)
        if !encoder.cuts.isEmpty {
            out.shape = Int32(encoder.skeleton.withUnsafeBufferPointer { shapes.intern($0).id })
        }
        return out
    }
}

/// A run of parsed lines with their bytes, produced on the parsing thread.
struct LineBatch: Sendable {
    var bytes: [UInt8] = []
    var lines: [ParsedLine] = []
    /// Compressed bytes read from the input so far.
    var bytesRead: Int64 = 0
}

/// How the parsing of an input ended.
struct ParseEnd: Sendable {
    var error: InputError?
    var droppedTailBytes = 0
    var lines = 0
}

/// Decompresses, splits and decodes an input, handing batches to `sink`. Runs on any thread.
enum LineParser {
    /// `spare`: an emptied batch whose buffers the next batch reuses, when one is back.
    static func run(path: String, batchLines: Int, batchBytes: Int,
                    eventSink: (any ParsedEventSink)? = nil, spare: () -> LineBatch? = { nil },
                    sink: (LineBatch) throws -> Bool) throws -> ParseEnd {
        let stream: ByteStream
        do { stream = try ByteStream(path: path) } catch let e as InputError { return ParseEnd(error: e) }
        let reader = LineReader(stream: stream)
        var decoder = EventDecoder()
        var cache = EventCache()
        var keyer = LineKeyer()
        var names = KeyedNames()
        var batch = LineBatch()
        batch.bytes.reserveCapacity(batchBytes + LineReader.maxLineLength)
        batch.lines.reserveCapacity(batchLines)
        var stopped = false
        struct Stop: Error {}
        func rebase(_ r: StringRef, line: Int, scratch: Int) -> StringRef {
            let base = Int32(r.inScratch ? scratch : line)
            return StringRef(start: r.start + base, end: r.end + base, inScratch: false)
        }
        do {
            try reader.forEachLine { info, bytes in
                let lineStart = batch.bytes.count
                batch.bytes.append(contentsOf: bytes)
                var parsed = ParsedLine(number: info.number, offset: info.offset, start: lineStart, count: bytes.count)
                if info.isOversized {
                    parsed.rejection = .lineTooLong(length: info.length)
                } else {
                    switch decoder.envelope(bytes) {
                    case .failure(let r): parsed.rejection = r
                    case .success(var env):
                        let scratchStart = batch.bytes.count
                        if !decoder.scratch.isEmpty { batch.bytes.append(contentsOf: decoder.scratch) }
                        env.eventID = rebase(env.eventID, line: lineStart, scratch: scratchStart)
                        env.name = rebase(env.name, line: lineStart, scratch: scratchStart)
                        env.userID = rebase(env.userID, line: lineStart, scratch: scratchStart)
                        env.flow = rebase(env.flow, line: lineStart, scratch: scratchStart)
                        env.timeText = rebase(env.timeText, line: lineStart, scratch: scratchStart)
                        env.step = env.step.map { rebase($0, line: lineStart, scratch: scratchStart) }
                        env.properties = env.properties.map { ($0.lowerBound + lineStart)..<($0.upperBound + lineStart) }
                        env.context = env.context.map { ($0.lowerBound + lineStart)..<($0.upperBound + lineStart) }
                        parsed.envelope = env
                        parsed.keys = batch.bytes.withUnsafeBufferPointer { b in
                            keyer.keys(env, start: lineStart, end: lineStart + bytes.count, in: b)
                        }
                        // Built here, with the line's refs rebased into the batch, and handed
                        // over as is (the sink consumes it: no copy of its strings and
                        // dictionaries to retain and release).
                        if let eventSink {
                            let event = batch.bytes.withUnsafeBufferPointer { b in
                                names.event(env, keys: parsed.keys, in: b, decoder: decoder, cache: &cache)
                            }
                            eventSink.take(line: info.number, user: parsed.keys.user, event: event)
                        }
                    }
                }
                batch.lines.append(parsed)
                if batch.lines.count >= batchLines || batch.bytes.count >= batchBytes {
                    batch.bytesRead = stream.bytesRead
                    let used = batch.bytes.count
                    guard try sink(batch) else { stopped = true; throw Stop() }
                    // The batch went on with its buffers: those of one the writer is done
                    // with, else new ones, sized to the last batch with some room (a few
                    // batches are held at once, so each is kept snug).
                    if let reused = spare() {
                        batch = reused
                    } else {
                        batch = LineBatch()
                        batch.bytes.reserveCapacity(min(batchBytes, used + used / 8) + LineReader.maxLineLength / 16)
                        batch.lines.reserveCapacity(batchLines)
                                    }
                }
            }
        } catch let e as InputError {
            batch.bytesRead = stream.bytesRead
            if !batch.lines.isEmpty { _ = try sink(batch) }
            return ParseEnd(error: e, droppedTailBytes: reader.droppedTailBytes, lines: reader.linesRead)
        } catch is Stop {
            return ParseEnd(lines: reader.linesRead)
        }
        if !stopped, !batch.lines.isEmpty {
            batch.bytesRead = stream.bytesRead
            _ = try sink(batch)
        }
        return ParseEnd(lines: reader.linesRead)
    }
}

/// A bounded hand-off between the parsing thread and the writing thread.
final class BatchQueue: @unchecked Sendable {
    enum Item { case batch(LineBatch), end(ParseEnd), failed(String) }
    private let condition = NSCondition()
    private var items: [Item] = []
    private let capacity: Int
    private var cancelled = false
    /// Batches the consumer is done with, emptied, for the producer to fill again.
    private var spares: [LineBatch] = []

    init(capacity: Int) { self.capacity = capacity }

    /// Blocks while full; returns false once the consumer cancelled.
    func push(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The next item; nil when none came within `timeout` seconds.
    func pop(timeout: TimeInterval) -> Item? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while items.isEmpty {
            if !condition.wait(until: deadline) && items.isEmpty { return nil }
        }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// Keeps `batch`'s buffers for the producer (at most two are kept).
    func recycle(_ batch: consuming LineBatch) {
        var b = batch
        b.bytes.removeAll(keepingCapacity: true)
        b.lines.removeAll(keepingCapacity: true)
        b.bytesRead = 0
        condition.lock()
        if spares.count < 2 && !cancelled { spares.append(b) }
        condition.unlock()
    }

    /// A batch to fill again, when one is back.
    func spare() -> LineBatch? {
        condition.lock()
        defer { condition.unlock() }
        return spares.popLast()
    }

    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    func cancel() {
        condition.lock()
        cancelled = true
        items.removeAll()
        spares.removeAll()
        condition.broadcast()
        condition.unlock()
    }
}

/// One input parsed by `LineParser` on the parsing thread, so that decompression and parsing
/// use one core while SQLite writes on another. Making one queues its parse behind the input
/// being parsed (so the next input is read ahead while the one before commits); `forEach`
/// delivers the batches in order on the calling thread; `cancel` drops a run that will not be
/// used.
final class ParseRun: @unchecked Sendable {
    let path: String
    /// Where this input's decoded events go (see `IngestObserver.makeEventSink`).
    let eventSink: (any ParsedEventSink)?
    /// At most this many parsed batches wait for the writer: many small batches (4,096 lines
    /// by default) let the parser and the writer go on through each other's slow stretches
    /// (both sat blocked about a second of a 40 k-user ingest with 3 of 8,192 lines, and 0.25 s
    /// longer in all), for about the bytes of 3 large ones.
    static let capacity = 12
    private let queue = BatchQueue(capacity: ParseRun.capacity)
    private let done = DispatchSemaphore(value: 0)

    init(path: String, batchLines: Int = 8192, batchBytes: Int = 4 << 20,
         eventSink: (any ParsedEventSink)? = nil) {
        self.path = path
        self.eventSink = eventSink
        let queue = self.queue, done = self.done
        WorkerThread.parsing.run {
            defer { done.signal() }
            if queue.isCancelled { return }
            do {
                let end = try LineParser.run(path: path, batchLines: batchLines, batchBytes: batchBytes,
                                             eventSink: eventSink, spare: { queue.spare() }) { batch in
                    queue.push(.batch(batch))
                }
                _ = queue.push(.end(end))
            } catch {
                _ = queue.push(.failed("\(error)"))
            }
        }
    }

    /// Hands each batch to `body` in order; `idle` runs whenever no batch came for a few
    /// milliseconds (on the calling thread). Returns once the parsing thread is done with
    /// the input.
    func forEach(idle: () throws -> Void = {}, _ body: (LineBatch) throws -> Void) throws -> ParseEnd {
        defer { done.wait() }
        do {
            while true {
                guard let item = queue.pop(timeout: 0.005) else {
                    try idle()
                    continue
                }
                // Consumed, so that the batch's buffers have one owner again once `body` is
                // done with them (and are kept, not copied, when recycled).
                switch consume item {
                case .batch(let batch):
                    try body(batch)
                    queue.recycle(consume batch)
                case .end(let end): return end
                case .failed(let message): throw StoreError(doing: "reading \(path)", reason: message)
                }
            }
        } catch {
            queue.cancel()
            throw error
        }
    }

    /// Stops the parse (or keeps it from starting) and drops what it parsed; does not wait.
    func cancel() {
        queue.cancel()
    }
}
