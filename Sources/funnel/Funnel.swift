import ArgumentParser
import Foundation

@main
struct Funnel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "funnel",
        abstract: "Event-sourced funnels for mobile onboarding flows.",
        discussion: """
            Exit status: 0 success; 1 the answer is no (ingest --strict with a quarantined \
            line, flows check with an error); 2 a failure (unreadable input, no store, unknown \
            flow, …); 64 a usage error (unknown option, missing or malformed value). Every \
            failure prints `funnel COMMAND: reason` on standard error.
            """,
        subcommands: [
            IngestCommand.self,
            ReportCommand.self,
            UsersCommand.self,
            ReplayCommand.self,
            ExplainCommand.self,
            RebuildCommand.self,
            QuarantineCommand.self,
            ExportCommand.self,
            FlowsCommand.self,
            SampleCommand.self,
        ]
    )

    /// ArgumentParser's `main`, with every failure in one style: `funnel CMD: reason` on
    /// standard error; exit 64 for a usage error, 2 for any other failure, or the command's
    /// own `ExitCode` (its message already printed).
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
            Foundation.exit(usage ? ExitCode.validationFailure.rawValue : 2)
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
