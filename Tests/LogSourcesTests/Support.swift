import Foundation
import FunnelModel
import LogFiles
import LogSources

/// The package root, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let sampleData = packageRoot.appendingPathComponent("sample-data")

/// Every line of the files in a folder (gzip or plain), in file-name order.
func lines(in folder: URL) throws -> [[UInt8]] {
    var out: [[UInt8]] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
        let reader = LineReader(stream: try ByteStream(path: folder.appendingPathComponent(name).path))
        try reader.forEachLine { _, bytes in out.append(Array(bytes)) }
    }
    return out
}

func preset(_ name: String) -> SourceDefinition {
    guard let p = SourcePresets.named(name) else { fatalError("no preset \(name)") }
    return p
}

let presetNames = ["posthog", "segment", "rudderstack", "amplitude", "mixpanel"]

/// A line's JSON tree, for tests that change one value of a vendor line.
func tree(_ bytes: [UInt8]) -> JSONValue {
    EventDecoder.jsonValue(bytes.withUnsafeBufferPointer { $0 }) ?? .null
}

extension JSONValue {
    /// The value with `path` set to `value`, or removed when `value` is nil.
    func setting(_ path: String, _ value: JSONValue?) -> JSONValue {
        setting(path.split(separator: ".").map(String.init)[...], value)
    }

    private func setting(_ keys: ArraySlice<String>, _ value: JSONValue?) -> JSONValue {
        guard let key = keys.first, case .object(var o) = self else { return self }
        if keys.count == 1 {
            o[key] = value
        } else {
            o[key] = (o[key] ?? .object([:])).setting(keys.dropFirst(), value)
        }
        return .object(o)
    }

    var bytes: [UInt8] { Array(jsonText.utf8) }
}
