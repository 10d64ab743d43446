import ArgumentParser
import Foundation
import FunnelModel
import LogSources
import Reports

struct SourcesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources",
        abstract: "List the vendor source presets; check a source definition (docs/sources.md).",
        subcommands: [List.self, Check.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the built-in sources: PostHog, Segment, RudderStack, Amplitude, Mixpanel.",
            discussion: """
            JSON (--format json): an array of source definitions in their file format \
            (schemas/source.schema.json): {name, title, description, time_format, fields: \
            {FIELD: [paths]}, step_view, event_types, events, export_files}.
            """)
        @Option(help: "text or json.") var format: OutputFormat = .text

        func run() throws {
            switch format {
            case .text: print(Format.wrapLines(SourceText.list(SourcePresets.all)), terminator: "")
            case .json: print(SourceText.json(SourcePresets.all).jsonText)
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check source definitions: every error with its file and JSON path; exit 1 when any.",
            usage: "funnel sources check <file> ... [--format <format>]",
            discussion: """
            Examples:
              funnel sources check schemas/sources/segment.json
              funnel sources check my-firebase.json
            """)
        @Argument(help: "Source definition files (.json).") var files: [String] = []
        @Option(help: "text or json.") var format: OutputFormat = .text

        func validate() throws {
            if files.isEmpty { throw ValidationError("give a source definition file (.json)") }
        }

        func run() throws {
            try printChecks(files.map(SourceChecker.checkFile), single: files.count == 1, format: format, command: "sources check")
        }
    }
}
