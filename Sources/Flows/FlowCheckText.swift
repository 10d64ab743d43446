import FunnelModel

/// `funnel flows check` as text and JSON. Files that could not be read are left out: the
/// command reports them as failures on standard error.
public enum FlowCheckText {
    /// One file: `ok`, or each issue as `FILE: PATH: message [kind]` and the count. Several
    /// files: each file's `FILE: ok` or its issues, then the totals.
    public static func text(_ results: [FlowFileCheck], single: Bool) -> String {
        let checked = results.filter(\.isReadable)
        let errors = checked.reduce(0) { $0 + $1.issues.count }
        var out = ""
        for r in checked {
            if r.issues.isEmpty && !single { out += "\(r.file): ok\n" }
            for issue in r.issues { out += "\(r.file): \(issue)\n" }
        }
        if single {
            if !checked.isEmpty { out += errors == 0 ? "ok\n" : "\(count(errors, "error"))\n" }
        } else if errors == 0 {
            out += "no errors in \(count(checked.count, "file"))\n"
        } else {
            let faulty = checked.filter { !$0.issues.isEmpty }.count
            out += "\(count(errors, "error")) in \(faulty) of \(count(checked.count, "file"))\n"
        }
        return out
    }

    /// One file: `{file, ok, issues: [{kind, path, message}]}`; several: `{ok, files: [those]}`.
    public static func json(_ results: [FlowFileCheck], single: Bool) -> JSONValue {
        let files = results.filter(\.isReadable).map { r -> JSONValue in
            .object([
                "file": .string(r.file), "ok": .bool(r.issues.isEmpty),
                "issues": .array(r.issues.map { .object(["kind": .string($0.kind.rawValue), "path": .string($0.path), "message": .string($0.message)]) }),
            ])
        }
        if single, let only = files.first { return only }
        return .object(["ok": .bool(results.allSatisfy { $0.issues.isEmpty }), "files": .array(files)])
    }

    private static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }
}
