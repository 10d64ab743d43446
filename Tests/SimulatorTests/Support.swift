import LogFiles
import Foundation

/// Every line of a directory's files, decompressed, with the file each came from.
func readLines(_ directory: String) throws -> [(file: String, line: String)] {
    var out: [(String, String)] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
        let stream = try ByteStream(path: directory + "/" + name)
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try buf.withUnsafeMutableBytes { try stream.read(into: $0) }
            if n == 0 { break }
            data += buf[0..<n]
        }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") { out.append((name, String(line))) }
    }
    return out
}
