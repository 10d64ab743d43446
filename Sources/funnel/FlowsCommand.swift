import ArgumentParser
import Flows
import Foundation
import FunnelModel
import Reports

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
            commandName: "list",
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
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a flow's graph: lanes side by side, conditions and flags marked.",
            discussion: """
            Example:
              funnel flows show baby-basics
            """)
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
            commandName: "path",
            abstract: "The expected path for given answers and flags, with the reason for each step left out.",
            usage: "funnel flows path <id> [<options>]",
            discussion: """
            Example:
              funnel flows path baby-basics --set authPath=log_in --set hasChildren=true
            """)
        @OptionGroup var flows: FlowsDirectoryOption
        @Argument(help: "The flow id.") var id: String
        @Option(name: .customLong("set"), help: "A collected value, KEY=VALUE (repeatable).") var values: [String] = []
        @Option(name: .customLong("flag"), help: "A flag, NAME=on|off (repeatable).") var flags: [String] = []
        @Option(name: .customLong("app-version"), help: "The app version, for conditions on app_version.") var appVersion: String?
        @Option(help: "The platform, for conditions on platform.") var platform: String?
        @Option(name: .customLong("start-date"), help: "The start day YYYY-MM-DD, for conditions on start_date.") var startDate: String?

        func run() throws {
            try reportingErrors("flows path") {
                for v in values where !v.contains("=") { throw CLIError("--set \(v): expected KEY=VALUE") }
                for f in flags {
                    let parts = f.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, ["on", "off", "true", "false"].contains(parts[1]) else {
                        throw CLIError("--flag \(f): expected NAME=on or NAME=off")
                    }
                }
                let flow = try flows.catalog().flow(id)
                var ctx = ConditionContext(appVersion: appVersion, platform: platform, startDate: startDate)
                for v in values {
                    let parts = v.split(separator: "=", maxSplits: 1).map(String.init)
                    let key = parts[0], value = parts.count > 1 ? parts[1] : ""
                    if !flow.collectedKeys.contains(key) {
                        throw CLIError("--set \(key): flow \(flow.id) collects no value \(key); known: \(flow.collectedKeys.sorted().joined(separator: ", "))")
                    }
                    if let known = flow.knownValues(of: key), !known.contains(value) {
                        throw CLIError("--set \(v): flow \(flow.id) has no \(key) value \"\(value)\"; \(key) is one of: \(known.joined(separator: ", "))")
                    }
                    ctx.values[key] = .string(value)
                }
                for f in flags {
                    let parts = f.split(separator: "=", maxSplits: 1).map(String.init)
                    if !flow.flags.contains(where: { $0.id == parts[0] }) {
                        let known = flow.flags.map(\.id)
                        throw CLIError("--flag \(parts[0]): flow \(flow.id) has no such flag; known: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
                    }
                    ctx.flags[parts[0]] = .bool(parts[1] == "on" || parts[1] == "true")
                }
                print(FlowText.path(flow, flow.expectedPath(ctx)), terminator: "")
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check flow definitions: every error with its file and JSON path; exit 1 when any.",
            usage: "funnel flows check <path> ... [--format <format>]",
            discussion: """
            A directory is checked as --flows DIR reads it: each *.json in it, and no flow id \
            defined twice.
            Examples:
              funnel flows check schemas/flows/glp1.json
              funnel flows check schemas/flows
            """)
        @Argument(help: "Flow definition files (.json) or directories of them.") var paths: [String] = []
        @Option(help: "text or json.") var format: OutputFormat = .text

        func validate() throws {
            if paths.isEmpty { throw ValidationError("give a flow definition file (.json) or a directory of them") }
        }

        func run() throws {
            var results: [FlowFileCheck] = []
            var single = paths.count == 1
            try reportingErrors("flows check") {
                for path in paths {
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                        let found = try FlowChecker.checkDirectory(path)
                        if found.isEmpty { throw CLIError("\(path) holds no *.json flow definitions") }
                        results += found
                        single = false
                    } else {
                        results.append(FlowChecker.checkFile(path))
                    }
                }
            }
            try printChecks(results, single: single, format: format, command: "flows check")
        }
    }
}
