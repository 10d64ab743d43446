import FunnelModel
import EventLog
import GRDB
import Crypto
import Logging
import Foundation

/// Reads inputs into an `EventStore`. Each input commits in one write transaction: its
/// events, duplicates, conflicts, quarantined lines and its ledger row, or nothing. An input
/// whose content (SHA-256) is already in the ledger is skipped.
public final class Ingestor {
    public let store: EventStore
    public let options: IngestOptions
    public let observer: (any IngestObserver)?
    let logger: Logger
    /// A filter of every stored event id hash, kept from input to input while no other
    /// connection writes the store (`PRAGMA data_version` tells).
    var idFilter: IDFilter?
    var idFilterVersion: Int64 = -1

    public init(store: EventStore, options: IngestOptions = IngestOptions(), observer: (any IngestObserver)? = nil) {
        self.store = store
        self.options = options
        self.observer = observer
        self.logger = store.logger
    }

    /// Ingests `inputs` in order. Input faults (unreadable, truncated or corrupt gzip) are
    /// reported in the summary and the run goes on; store failures throw.
    public func ingest(_ inputs: [InputSource], progress: ((IngestProgress) -> Void)? = nil) throws -> IngestSummary {
        let clockStart = DispatchTime.now().uptimeNanoseconds
        Ingestor.returnLargeBlocks()
        var summary = IngestSummary()
        summary.files = inputs.count
        summary.flowsChecked = !options.flows.isEmpty
        var unplanned: [UnplannedKey: Int] = [:]
        // The next input's parse, started while this one is written and committed.
        var ahead: (index: Int, content: ContentHash, run: ParseRun)?
        defer { ahead?.run.cancel() }
        for (index, input) in inputs.enumerated() {
            var spooled: String?
            defer { if let spooled { unlink(spooled) } }
            let content: ContentHash
            var prefetched: ParseRun?
            defer { prefetched?.cancel() }
            do {
                if let a = ahead, a.index == index {
                    content = a.content
                    prefetched = a.run
                    ahead = nil
                } else {
                    let read = try Ingestor.content(of: input)
                    content = read.0
                    spooled = read.spooled
                }
            } catch let e as InputError {
                summary.failures.append(.unreadable(input.path, e))
                continue
            }
            let readPath = spooled ?? input.path
            let outcome = try ingestOne(path: readPath, label: input.path, content: content, index: index,
                                        count: inputs.count, prefetched: prefetched, readAhead: {
                // Only a file can be read ahead (standard input is spooled first); one that
                // cannot be hashed now is reported when its turn comes.
                let next = index + 1
                guard options.parallel, next < inputs.count, !inputs[next].isStandardInput,
                      let hash = try? Ingestor.content(of: inputs[next]).0 else { return }
                ahead = (next, hash, startParse(path: inputs[next].path))
            }, progress: progress)
            Ingestor.releaseFreeMemory()
            switch outcome {
            case .skipped(let s): summary.skipped.append(s)
            case .read(let r): summary.add(r, unplanned: &unplanned)
            }
        }
        try observer?.finish(store: store)
        summary.unplannedBy = IngestSummary.sortedUnplanned(unplanned)
        summary.elapsedSeconds = Double(DispatchTime.now().uptimeNanoseconds - clockStart) / 1e9
        return summary
    }

    /// Gives the memory freed by the input just read back to the system. Each input is
    /// parsed on a thread of its own, whose malloc arena would otherwise keep its freed
    /// pages for a thread that never comes back.
    static func releaseFreeMemory() {
        #if os(Linux)
        _ = glibcMallocTrim(0)
        #endif
    }

    /// Has every block of `Tuning.mmapThreshold` or more mapped on its own and unmapped when
    /// freed. glibc otherwise raises that threshold each time such a block is freed (up to
    /// 32 MiB), after which the large arrays of one input stay in the heap and the peak grows
    /// with the input. Batches are reused (`BatchQueue.recycle`), so few blocks are mapped
    /// again and again. Process-wide, once; elsewhere than Linux the allocator is left as is.
    static func returnLargeBlocks() {
        _ = fixedMapThreshold
    }

    private static let fixedMapThreshold: Bool = {
        #if os(Linux)
        // M_MMAP_THRESHOLD
        return glibcMallopt(-3, Tuning.mmapThreshold) == 1
        #else
        return false
        #endif
    }()

    // MARK: content hash

    package struct ContentHash: Sendable {
        package var sha256: String
        package var size: Int64
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 and size of a file's bytes.
    package static func hash(path: String) throws -> ContentHash {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw InputError(kind: .unreadable, path: path, offset: 0, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: Tuning.readBuffer)
        var size: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(kind: .unreadable, path: path, offset: size, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            size += Int64(n)
        }
        return ContentHash(sha256: hex(hasher.finalize()), size: size)
    }

    /// An input's content hash; standard input is spooled to a temporary file first, whose
    /// path is returned for the caller to read and remove. Throws for an input compressed in
    /// a format funnel does not read (`InputError.Kind.unsupported`), before anything of it
    /// is written.
    package static func content(of input: InputSource) throws -> (ContentHash, spooled: String?) {
        guard input.isStandardInput else {
            _ = try InputFormat.check(path: input.path)
            return (try hash(path: input.path), nil)
        }
        let (path, hash) = try spoolStandardInput()
        do {
            _ = try InputFormat.check(path: path)
        } catch var e as InputError {
            unlink(path)
            e.path = "-"
            throw e
        }
        return (hash, path)
    }

    /// Copies standard input to a temporary file (hashing it on the way), so that it can be
    /// checked against the ledger before anything is written.
    package static func spoolStandardInput() throws -> (String, ContentHash) {
        var template = Array((NSTemporaryDirectory() + "/funnel-stdin-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { p in p.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw InputError(kind: .unreadable, path: "-", offset: 0, reason: "cannot spool standard input: " + String(cString: strerror(errno))) }
        defer { close(fd) }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: Tuning.readBuffer)
        var size: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError(kind: .unreadable, path: "-", offset: size, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            if let reason = buffer.withUnsafeBytes({ writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) {
                throw InputError(kind: .unreadable, path: "-", offset: size, reason: "cannot spool standard input: " + reason)
            }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            size += Int64(n)
        }
        return (path, ContentHash(sha256: hex(hasher.finalize()), size: size))
    }
}

#if os(Linux)
/// glibc's `malloc_trim` (malloc.h is not part of the Glibc module).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32

/// glibc's `mallopt`.
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
