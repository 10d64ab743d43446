import ArgumentParser
import Foundation

@main
struct Funnel: ParsableCommand {
    /// The version `funnel --version` prints: this constant and nowhere else.
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "funnel",
        abstract: "Event-sourced funnels for mobile onboarding flows.",
        discussion: """
            Exit status: 0 success; 1 the answer is no (ingest --strict with a quarantined \
            line, flows check or sources check with an error, flows drift with drift); 2 a failure: a value \
            the command cannot use (a number out of range, a duration without a unit, a time \
            that is not one, --until not after --since, a flow, cohort, key, value, step or \
            user that does not exist), an unreadable input, no store; 64 a usage error: the \
            command line does not parse (an unknown option, a missing argument or value, a \
            value that is not of the option's kind or not one of its choices); 65 the store \
            contradicts itself; 66 the path holds no store funnel can open (not a database, \
            or a format it does not read as it is); 69 a ClickHouse server does not answer; \
            75 another ingest or rebuild writes the store (run again when it ends). \
            docs/cli.md has the table. Every failure prints `funnel COMMAND: reason` on \
            standard error; a selection that matches nobody, or an input folder with no \
            logs, a warning.
            """,
        version: version,
        subcommands: [
            IngestCommand.self,
            ReportCommand.self,
            UsersCommand.self,
            ReplayCommand.self,
            ExplainCommand.self,
            PathsCommand.self,
            RebuildCommand.self,
            QuarantineCommand.self,
            ExportCommand.self,
            FlowsCommand.self,
            SourcesCommand.self,
            SampleCommand.self,
        ]
    )

    /// ArgumentParser's `main`, with every failure in one style: `funnel CMD: reason` on
    /// standard error; exit 64 for a usage error, the failure's own status (`ExitStatus`) for
    /// any other, or the command's own `ExitCode` (its message already printed).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let name = commandName(arguments)
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let status = exitCode(for: error)
            let text = fullMessage(for: error)
            if status == .success {
                if !text.isEmpty { print(text) }
                Foundation.exit(0)
            }
            let usage = status == .validationFailure
            var message = usage ? text : message(for: error)
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            if message.isEmpty { message = String(describing: error) }
            FileHandle.standardError.write(Data("\(name): \(message)\n".utf8))
            Foundation.exit(usage ? ExitStatus.usage : ExitStatus.of(error))
        }
    }

    /// `funnel`, `funnel report`, `funnel flows check`: the subcommands named in `arguments`.
    static func commandName(_ arguments: [String]) -> String {
        var name = "funnel"
        var commands: [ParsableCommand.Type] = configuration.subcommands
        for argument in arguments {
            guard let next = commands.first(where: { subcommandName($0) == argument }) else { break }
            name += " " + argument
            commands = next.configuration.subcommands
        }
        return name
    }

    private static func subcommandName(_ type: ParsableCommand.Type) -> String {
        type.configuration.commandName ?? String(describing: type).lowercased()
    }
}
