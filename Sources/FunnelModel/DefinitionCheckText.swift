/// One definition file checked (a flow, a source): every issue as its kind, JSON path and
/// message. A file that could not be read is left out of the text and JSON: the command
/// reports it on standard error.
public protocol DefinitionFileCheck {
    var file: String { get }
    /// False when the file could not be read, so nothing was checked.
    var isReadable: Bool { get }
    var issueRows: [DefinitionCheckText.Row] { get }
}

/// `funnel flows check` and `funnel sources check` as text and JSON.
public enum DefinitionCheckText {
    public struct Row: Sendable, Hashable {
        public var kind: String
        public var path: String
        public var message: String
        /// The issue as it prints: `$.steps[3].when: message [kind]`.
        public var text: String

        public init(kind: String, path: String, message: String, text: String) {
            self.kind = kind
            self.path = path
            self.message = message
            self.text = text
        }
    }

    /// One file: `ok`, or each issue as `FILE: PATH: message [kind]` and the count. Several
    /// files: each file's `FILE: ok` or its issues, then the totals.
    public static func text(_ results: [some DefinitionFileCheck], single: Bool) -> String {
        let checked = results.filter(\.isReadable)
        let errors = checked.reduce(0) { $0 + $1.issueRows.count }
        var out = ""
        for r in checked {
            if r.issueRows.isEmpty && !single { out += "\(r.file): ok\n" }
            for issue in r.issueRows { out += "\(r.file): \(issue.text)\n" }
        }
        if single {
            if !checked.isEmpty { out += errors == 0 ? "ok\n" : "\(count(errors, "error"))\n" }
        } else if errors == 0 {
            out += "no errors in \(count(checked.count, "file"))\n"
        } else {
            let faulty = checked.filter { !$0.issueRows.isEmpty }.count
            out += "\(count(errors, "error")) in \(faulty) of \(count(checked.count, "file"))\n"
        }
        return out
    }

    /// One file: `{file, ok, issues: [{kind, path, message}]}`; several: `{ok, files: [those]}`.
    public static func json(_ results: [some DefinitionFileCheck], single: Bool) -> JSONValue {
        let files = results.filter(\.isReadable).map { r -> JSONValue in
            .object([
                "file": .string(r.file), "ok": .bool(r.issueRows.isEmpty),
                "issues": .array(r.issueRows.map { .object(["kind": .string($0.kind), "path": .string($0.path), "message": .string($0.message)]) }),
            ])
        }
        if single, let only = files.first { return only }
        return .object(["ok": .bool(results.allSatisfy { $0.issueRows.isEmpty }), "files": .array(files)])
    }

    private static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }
}
