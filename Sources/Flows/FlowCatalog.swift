import Foundation
import FunnelModel

/// The flows a command works with: the built-ins, plus a team's own from a directory of
/// `*.json` files. A user flow with a built-in's id replaces the built-in (and `notes` says so).
public struct FlowCatalog: Sendable {
    public struct Entry: Sendable, Hashable {
        public var flow: FlowDefinition
        /// `built-in` or the file the flow was read from.
        public var source: String
        /// True when this user flow took the place of the built-in with the same id.
        public var replacesBuiltIn: Bool
    }

    /// The flows, built-ins first in their order, then user flows by file name.
    public private(set) var entries: [Entry]
    /// What the catalog did that a user should know, such as a built-in being replaced.
    public private(set) var notes: [String]

    public var all: [FlowDefinition] { entries.map(\.flow) }
    public var ids: [String] { entries.map(\.flow.id) }

    /// The built-ins and, when `directory` is given, every `*.json` in it. Throws
    /// `FlowCatalogError` when the directory cannot be read or a file is not a sound flow.
    public init(directory: String? = nil) throws {
        entries = Flows.builtIn.map { Entry(flow: $0, source: "built-in", replacesBuiltIn: false) }
        notes = []
        guard let directory else { return }
        var userIDs: [String: String] = [:]
        for path in try FlowChecker.definitionFiles(in: directory) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw FlowCatalogError.invalidFlow(FlowLoadError(file: path, issues: [FlowIssue(.unreadable, "$", "cannot read the file")]))
            }
            let (definition, issues) = FlowChecker.load(data: data)
            guard let flow = definition, issues.isEmpty else {
                throw FlowCatalogError.invalidFlow(FlowLoadError(file: path, issues: issues))
            }
            if let other = userIDs[flow.id] {
                throw FlowCatalogError.duplicateFlow(id: flow.id, first: other, second: path)
            }
            userIDs[flow.id] = path
            if let i = entries.firstIndex(where: { $0.flow.id == flow.id && $0.source == "built-in" }) {
                entries[i] = Entry(flow: flow, source: path, replacesBuiltIn: true)
                notes.append("\(path) replaces the built-in flow \(flow.id)")
            } else {
                entries.append(Entry(flow: flow, source: path, replacesBuiltIn: false))
            }
        }
    }

    /// The flow with this id; throws `FlowCatalogError.unknownFlow` naming the known ones.
    public func flow(_ id: String) throws -> FlowDefinition {
        try entry(id).flow
    }

    public func entry(_ id: String) throws -> Entry {
        guard let e = entries.first(where: { $0.flow.id == id }) else {
            throw FlowCatalogError.unknownFlow(id, known: ids)
        }
        return e
    }
}

public enum FlowCatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownFlow(String, known: [String])
    case unreadableDirectory(String, String)
    case invalidFlow(FlowLoadError)
    case duplicateFlow(id: String, first: String, second: String)

    public var description: String {
        switch self {
        case .unknownFlow(let id, let known):
            return "unknown flow \(id); known: \(known.joined(separator: ", "))"
        case .unreadableDirectory(let dir, let reason):
            return "cannot read flows directory \(dir): \(reason)"
        case .invalidFlow(let e):
            return e.description
        case .duplicateFlow(let id, let first, let second):
            return "flow id \(id) is defined twice: in \(first) and in \(second)"
        }
    }
}
