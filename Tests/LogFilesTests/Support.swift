import Foundation
@testable import LogFiles

/// The package root, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let sampleData = packageRoot.appendingPathComponent("sample-data")

func tempDir(_ name: String = "funnel-test") -> URL {
    Scratch.directory(name)
}

/// Every line of a file through LineReader: info, bytes, and the error that ended it.
func readLines(_ path: String, maxLineLength: Int = LineReader.maxLineLength, chunk: Int = 1 << 18) -> ([(LineInfo, [UInt8])], Error?, LineReader?) {
    var out: [(LineInfo, [UInt8])] = []
    do {
        let reader = LineReader(stream: try ByteStream(path: path, chunkSize: max(chunk, 16)), maxLineLength: maxLineLength, chunk: chunk)
        do {
            try reader.forEachLine { info, bytes in out.append((info, Array(bytes))) }
            return (out, nil, reader)
        } catch { return (out, error, reader) }
    } catch { return (out, error, nil) }
}

func decode(_ bytes: [UInt8]) -> Result<Event, Rejection> { EventDecoder.decode(bytes: bytes) }
func decode(_ text: String) -> Result<Event, Rejection> { EventDecoder.decode(line: text) }

import FunnelModel
import TestSupport
