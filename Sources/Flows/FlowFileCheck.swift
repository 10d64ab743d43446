import Foundation
import FunnelModel

/// One definition file checked: the flow id it defines (when that can be read) and every
/// issue in it. A file that cannot be read has one issue, of kind `unreadable`.
public struct FlowFileCheck: Sendable, Hashable {
    public var file: String
    public var flowID: String?
    public var issues: [FlowIssue]

    public init(file: String, flowID: String?, issues: [FlowIssue]) {
        self.file = file
        self.flowID = flowID
        self.issues = issues
    }

    /// False when the file could not be read, so nothing was checked.
    public var isReadable: Bool { !issues.contains { $0.kind == .unreadable } }
}

extension FlowChecker {
    /// Checks one definition file.
    public static func checkFile(_ path: String) -> FlowFileCheck {
        guard let data = FileManager.default.contents(atPath: path) else {
            return FlowFileCheck(file: path, flowID: nil,
                                 issues: [FlowIssue(.unreadable, "$", "cannot read \(path): \(unreadableReason(path))")])
        }
        let reading = read(data: data)
        return FlowFileCheck(file: path, flowID: reading.flowID, issues: reading.issues)
    }

    /// Checks every definition of a directory as `--flows DIR` reads them (its `*.json` in
    /// name order), and that no two of them define one flow id, which `--flows` refuses.
    public static func checkDirectory(_ directory: String) throws(FlowCatalogError) -> [FlowFileCheck] {
        var results = try definitionFiles(in: directory).map(checkFile)
        var first: [String: String] = [:]
        for i in results.indices {
            guard let id = results[i].flowID, !id.isEmpty else { continue }
            if let earlier = first[id] {
                results[i].issues.append(FlowIssue(.duplicateID, "$.id", "flow id \"\(id)\" is already defined in \(earlier)"))
            } else {
                first[id] = results[i].file
            }
        }
        return results
    }

    /// The `*.json` files of a directory in name order: the definitions `--flows DIR` loads.
    public static func definitionFiles(in directory: String) throws(FlowCatalogError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw FlowCatalogError.unreadableDirectory(directory, unreadableReason(directory, directory: true))
        }
        return names.filter { $0.hasSuffix(".json") }.sorted().map { (directory as NSString).appendingPathComponent($0) }
    }

    /// Why a file (or, with `directory`, a directory) cannot be read (`FileProblem`).
    static func unreadableReason(_ path: String, directory: Bool = false) -> String {
        FileProblem.reason(path, directory: directory)
    }
}
