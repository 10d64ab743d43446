import ArgumentParser
import Flows
import Foundation
import FunnelModel

/// `--flows DIR`: a team's own flow definitions next to the built-ins.
struct FlowsDirectoryOption: ParsableArguments {
    @Option(name: .customLong("flows"), help: "A directory of *.json flow definitions; a flow with a built-in's id replaces it.")
    var directory: String?

    func catalog() throws -> FlowCatalog {
        let catalog = try FlowCatalog(directory: directory)
        for note in catalog.notes { FileHandle.standardError.write(Data("note: \(note)\n".utf8)) }
        return catalog
    }
}

struct FlowsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flows",
        abstract: "List, show and check flow definitions; print a flow's expected path.",
        subcommands: [List.self, Show.self, Path.self, Check.self, Drift.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the built-in and user flows.",
            discussion: """
            JSON (--format json): an array of flow objects, each {id, title, version, description, \
            laneKey, source, replacesBuiltIn, lanes: [{id, title, when, steps: [{id, when, flag}]}], \
            steps: [{id, kind, title, note, lanes, collects: [{key, values}], when, flag, optional}], \
            flags: [{id, description, default}], cohorts: [{id, title, where}]}; absent values are null.
            """)
        @OptionGroup var flows: FlowsDirectoryOption
        @Option(help: "text or json.") var format: OutputFormat = .text

        func run() throws {
            let catalog = try flows.catalog()
            switch format {
            case .text: print(FlowText.list(catalog.entries), terminator: "")
            case .json: print(FlowText.json(catalog.entries).jsonText)
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a flow's graph: lanes side by side, conditions and flags marked.")
        @OptionGroup var flows: FlowsDirectoryOption
        @Argument(help: "The flow id.") var id: String
        @Option(help: "text or json.") var format: OutputFormat = .text

        func run() throws {
            let entry = try flows.catalog().entry(id)
            switch format {
            case .text: print(FlowText.graph(entry.flow), terminator: "")
            case .json: print(FlowText.json(entry.flow, source: entry.source, replacesBuiltIn: entry.replacesBuiltIn).jsonText)
            }
        }
    }

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The expected path for given answers and flags, with the reason for each step left out.",
            usage: "funnel flows path <id> [<options>]")
        @OptionGroup var flows: FlowsDirectoryOption
        @Argument(help: "The flow id.") var id: String
        @Option(name: .customLong("set"), help: "A collected value, KEY=VALUE (repeatable).") var values: [String] = []
        @Option(name: .customLong("flag"), help: "A flag, NAME=on|off (repeatable).") var flags: [String] = []
        @Option(name: .customLong("app-version"), help: "The app version, for conditions on app_version.") var appVersion: String?
        @Option(help: "The platform, for conditions on platform.") var platform: String?
        @Option(name: .customLong("start-date"), help: "The start day YYYY-MM-DD, for conditions on start_date.") var startDate: String?

        func validate() throws {
            for v in values where !v.contains("=") { throw ValidationError("--set \(v): expected KEY=VALUE") }
            for f in flags {
                let parts = f.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, ["on", "off", "true", "false"].contains(parts[1]) else {
                    throw ValidationError("--flag \(f): expected NAME=on or NAME=off")
                }
            }
        }

        func run() throws {
            let flow = try flows.catalog().flow(id)
            var ctx = ConditionContext(appVersion: appVersion, platform: platform, startDate: startDate)
            for v in values {
                let parts = v.split(separator: "=", maxSplits: 1).map(String.init)
                let key = parts[0], value = parts.count > 1 ? parts[1] : ""
                if !flow.collectedKeys.contains(key) {
                    throw ValidationError("--set \(key): flow \(flow.id) collects no value \(key); known: \(flow.collectedKeys.sorted().joined(separator: ", "))")
                }
                ctx.values[key] = .string(value)
            }
            for f in flags {
                let parts = f.split(separator: "=", maxSplits: 1).map(String.init)
                if !flow.flags.contains(where: { $0.id == parts[0] }) {
                    let known = flow.flags.map(\.id)
                    throw ValidationError("--flag \(parts[0]): flow \(flow.id) has no such flag; known: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
                }
                ctx.flags[parts[0]] = .bool(parts[1] == "on" || parts[1] == "true")
            }
            print(FlowText.path(flow, flow.expectedPath(ctx)), terminator: "")
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a flow definition file; exit 1 with each error and its JSON path.")
        @Argument(help: "The flow definition (.json).") var file: String
        @Option(help: "text or json.") var format: OutputFormat = .text

        func run() throws {
            guard FileManager.default.isReadableFile(atPath: file) else {
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory)
                throw CLIError(exists ? (isDirectory.boolValue ? "\(file) is a directory: give a flow definition file (.json)"
                                                               : "cannot read \(file): permission denied")
                                      : "cannot read \(file): no such file")
            }
            let issues = FlowChecker.check(path: file)
            switch format {
            case .text:
                if issues.isEmpty {
                    print("ok")
                } else {
                    for i in issues { print("\(file): \(i)") }
                    print("\(issues.count) error\(issues.count == 1 ? "" : "s")")
                }
            case .json:
                print(JSONValue.object([
                    "file": .string(file), "ok": .bool(issues.isEmpty),
                    "issues": .array(issues.map { .object(["kind": .string($0.kind.rawValue), "path": .string($0.path), "message": .string($0.message)]) }),
                ]).jsonText)
            }
            if !issues.isEmpty { throw ExitCode(1) }
        }
    }
}
