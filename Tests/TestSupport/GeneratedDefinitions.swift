import Foundation

/// Whether definitions compiled into the binary by scripts/gen-builtin-flows hold the texts
/// of the files in `folder`, every one, by name: each way the generated file is stale, in
/// words (empty: it is not).
public func staleGenerated(_ files: [(name: String, json: String)], match folder: URL) throws -> [String] {
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
    var stale: [String] = []
    if files.map(\.name) != names { stale.append("files \(files.map(\.name)) but \(folder.path) holds \(names)") }
    for generated in files where names.contains(generated.name) {
        var text = try String(contentsOf: folder.appendingPathComponent(generated.name), encoding: .utf8)
        if text.hasSuffix("\n") { text.removeLast() }
        if generated.json != text { stale.append("\(generated.name) changed") }
    }
    return stale
}
