import XCTest
import Foundation
import TestSupport
@testable import LogFiles

/// An entry of a zip archive reads as the unzipped file does, through `ByteStream` (stored or
/// deflated, ZIP64 or not, whole gzip members or streamed ones checked first at an offset),
/// its gzip faults the file's own; the archive's faults name the entry and its byte.
final class ZipEntryReaderTests: XCTestCase {
    let folder = Scratch.directory("funnel-zip-entry")

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        try Scratch.file(bytes, named: name, in: folder)
    }

    /// Every byte `stream` gives, 16 KiB at a time, and the fault that ended it.
    func drain(_ stream: ByteStream) throws -> ([UInt8], InputError?) {
        try stream.drain(chunk: 1 << 14)
    }

    /// The archive's entry `name` as an input.
    func member(_ archive: String, _ name: String) throws -> InputSource {
        let entry = try XCTUnwrap(try ZipArchive.read(path: archive).entries.first { $0.name == name })
        return InputSource(zip: ZipMember(archive: archive, entry: entry))
    }

    func testAnEntryReadsAsTheUnzippedFileEveryWay() throws {
        let file = sampleData.appendingPathComponent("glp1/events-2026-10-02.ndjson.gz").path
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        for method in [ZipFixture.Method.stored, .deflate] {
            for zip64 in [false, true] {
                let archive = try write(ZipFixture.archive([ZipFixture.Entry("a/day.ndjson.gz", bytes, method: method)], zip64: zip64).bytes,
                                        "\(method)-\(zip64).zip")
                let input = try member(archive, "a/day.ndjson.gz")
                XCTAssertEqual(input.path, archive + ":a/day.ndjson.gz")
                // Whole members by libdeflate, and every member streamed after its check.
                for memberLimit in [1 << 20, 0] {
                    let fileStream = try ByteStream(path: file, chunkSize: 4_096, memberLimit: memberLimit)
                    let (want, wantError) = try drain(fileStream)
                    XCTAssertNil(wantError)
                    let stream = try ByteStream(input: input, chunkSize: 4_096, memberLimit: memberLimit)
                    let (got, error) = try drain(stream)
                    XCTAssertNil(error, "\(method) zip64 \(zip64) limit \(memberLimit)")
                    XCTAssertEqual(got.count, want.count)
                    XCTAssertTrue(got == want, "\(method) zip64 \(zip64) limit \(memberLimit)")
                    XCTAssertEqual(stream.members, fileStream.members)
                    XCTAssertEqual(stream.wholeMembersRead, fileStream.wholeMembersRead)
                    XCTAssertGreaterThan(stream.members, 1)
                    XCTAssertEqual(stream.bytesRead, Int64(bytes.count))
                }
                var hashed: [UInt8] = []
                try XCTUnwrap(input.zip).forEachChunk { hashed += $0 }
                XCTAssertTrue(hashed == bytes)
            }
        }
    }

    func testReadsAtAnOffsetGiveTheEntrysBytesForwardAndBack() throws {
        let bytes = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 300) }
        let archive = try write(ZipFixture.archive([ZipFixture.Entry("x.json", bytes)]).bytes, "offsets.zip")
        let raw = try ZipEntryInput(try XCTUnwrap(try member(archive, "x.json").zip), chunk: 512)
        var buf = [UInt8](repeating: 0, count: 300)
        for offset in [0, 100, 700, 5_000, 4_900, 30, 19_990, 20_000] {
            let n = try XCTUnwrap(try buf.withUnsafeMutableBytes { try raw.read(at: Int64(offset), into: $0) })
            XCTAssertGreaterThan(n, offset < 20_000 ? 0 : -1)
            XCTAssertEqual(Array(buf[0..<n]), Array(bytes[offset..<(offset + n)]), "at \(offset)")
        }
    }

    func testAnEntryWhoseGzipIsDamagedFailsAsTheUnzippedFileNamingTheEntry() throws {
        for name in ["corrupt.ndjson.gz", "truncated.ndjson.gz"] {
            let file = sampleData.appendingPathComponent("bad/\(name)").path
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
            let archive = try write(ZipFixture.archive([ZipFixture.Entry("bad/\(name)", bytes)]).bytes, "\(name).zip")
            for memberLimit in [1 << 20, 0] {
                let (want, wantError) = try drain(ByteStream(path: file, memberLimit: memberLimit))
                let (got, error) = try drain(ByteStream(input: try member(archive, "bad/\(name)"), memberLimit: memberLimit))
                let e = try XCTUnwrap(error, name)
                let expected = try XCTUnwrap(wantError, name)
                XCTAssertEqual(got, want, name)
                XCTAssertEqual(e.kind, expected.kind, name)
                XCTAssertEqual(e.offset, expected.offset, name)
                XCTAssertEqual(e.path, "\(archive):bad/\(name)")
                XCTAssertEqual(e.description, expected.description.replacingOccurrences(of: file, with: "\(archive):bad/\(name)"))
            }
        }
    }

    /// Each fault of the archive's own, when the entry is first read whole (its hash).
    func fault(_ entry: ZipFixture.Entry, damage: (inout [UInt8], ZipFixture.Placed) -> Void = { _, _ in }) throws -> (InputError?, String, ZipFixture.Placed) {
        var (bytes, layout) = ZipFixture.archive([entry])
        damage(&bytes, layout[0])
        let archive = try write(bytes, "fault-\(UUID().uuidString).zip")
        let input = try member(archive, entry.name)
        do {
            try XCTUnwrap(input.zip).forEachChunk { _ in }
        } catch { return (error as? InputError, archive, layout[0]) }
        return (nil, archive, layout[0])
    }

    func testTheArchivesFaultsNameTheEntryTheByteAndWhy() throws {
        let data = Array(String(repeating: #"{"event_type":"Step Viewed"}"# + "\n", count: 200).utf8)
        let (crc, crcArchive, crcPlace) = try fault(ZipFixture.Entry("h/0.json", data, crc32: 0x1234_5678))
        XCTAssertEqual(crc?.kind, .corrupt)
        XCTAssertEqual(crc?.offset, Int64(crcPlace.dataOffset + crcPlace.compressedSize))
        XCTAssertEqual(crc?.description, "\(crcArchive): byte \(crcPlace.dataOffset + crcPlace.compressedSize): corrupt zip archive: entry h/0.json: CRC-32 mismatch: its data gives \(String(ZipFixture.crc32(data), radix: 16)), the directory says 12345678")

        let (method, methodArchive, methodPlace) = try fault(ZipFixture.Entry("h/0.json", data, method: .stored, methodNumber: 12))
        XCTAssertEqual(method?.kind, .unsupported)
        XCTAssertEqual(method?.offset, Int64(methodPlace.headerOffset))
        XCTAssertEqual(method?.description, "\(methodArchive): entry h/0.json: compressed with bzip2 (method 12); funnel reads stored and deflate entries: unzip it first")

        let (encrypted, encryptedArchive, _) = try fault(ZipFixture.Entry("h/0.json", data, flags: 0x0801))
        XCTAssertEqual(encrypted?.kind, .unsupported)
        XCTAssertEqual(encrypted?.description, "\(encryptedArchive): entry h/0.json: encrypted: unzip it with its password first")

        // Deflate data damaged: the block type 3 does not exist.
        let (deflate, _, deflatePlace) = try fault(ZipFixture.Entry("h/0.json", data)) { bytes, place in bytes[place.dataOffset] = 0x07 }
        XCTAssertEqual(deflate?.kind, .corrupt)
        XCTAssertEqual(deflate?.reason, "entry h/0.json: bad deflate data: invalid block type")
        XCTAssertTrue((Int64(deflatePlace.dataOffset)...Int64(deflatePlace.dataOffset + 8)).contains(deflate?.offset ?? -1), "\(String(describing: deflate))")

        // The local header is not where the directory says.
        let (header, _, headerPlace) = try fault(ZipFixture.Entry("h/0.json", data)) { bytes, place in bytes[place.headerOffset + 2] = 9 }
        XCTAssertEqual(header?.kind, .corrupt)
        XCTAssertEqual(header?.offset, Int64(headerPlace.headerOffset))
        XCTAssertEqual(header?.reason, "entry h/0.json: no local header where the central directory says")
    }

    /// Bytes set at random over a ZIP64 archive (its headers and sizes too): every read ends
    /// in the entry's bytes or an `InputError`, never a crash or another error.
    func testArchivesDamagedAtRandomFailWithInputErrors() throws {
        let hour = Array(try Data(contentsOf: sampleData.appendingPathComponent("sources/amplitude/events-2026-10-01-01.json.gz")))
        let good = ZipFixture.archive([ZipFixture.Entry("p/", [], method: .stored), ZipFixture.Entry("p/0.json.gz", hour),
                                       ZipFixture.Entry("p/1.json.gz", hour, method: .stored)], zip64: true).bytes
        var seed: UInt64 = 43
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        var faults = 0, whole = 0
        for round in 0..<300 {
            var bytes = good
            for _ in 0..<(1 + next(4)) { bytes[next(bytes.count)] = UInt8(next(256)) }
            // Some rounds damage only the directory and its end, where the sizes are.
            if round % 3 == 0 { bytes[bytes.count - 1 - next(200)] = UInt8(next(256)) }
            let path = try write(bytes, "random-\(round).zip")
            do {
                for entry in try ZipArchive.read(path: path).entries where !entry.isDirectory {
                    var n = 0
                    try ZipMember(archive: path, entry: entry).forEachChunk { n += $0.count }
                    XCTAssertEqual(Int64(n), entry.size)
                    let (_, error) = try drain(ByteStream(input: InputSource(zip: ZipMember(archive: path, entry: entry)), memberLimit: 0))
                    if error != nil { faults += 1 }
                }
                whole += 1
            } catch is InputError {
                faults += 1
            } catch {
                XCTFail("round \(round): \(error)")
            }
        }
        XCTAssertGreaterThan(faults, 100)
        XCTAssertGreaterThan(whole, 0)
    }

    func testAnEntryInAnotherCompressorIsRefusedByNameAsAFileIs() throws {
        let xz = packageRoot.appendingPathComponent("Tests/Fixtures/compressed/xz-named.ndjson.gz").path
        let archive = try write(ZipFixture.archive([ZipFixture.Entry("x.json.gz", Array(try Data(contentsOf: URL(fileURLWithPath: xz))))]).bytes, "xz.zip")
        let input = try member(archive, "x.json.gz")
        XCTAssertThrowsError(try XCTUnwrap(input.zip).forEachChunk { _ in }) { e in
            XCTAssertEqual((e as? InputError)?.description, "\(archive):x.json.gz: xz data, not gzip: decompress it first")
        }
    }
}
