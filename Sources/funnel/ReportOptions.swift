import ArgumentParser
import Foundation
import FunnelModel
import Reports
import EventStore

/// Writes a command's output to standard output or to `--output FILE`.
struct OutputOption: ParsableArguments {
    @Option(name: .long, help: "Write to this file instead of standard output.") var output: String?

    func write(_ text: String) throws {
        guard let output else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output))
        } catch {
            throw CLIError("cannot write \(output): \(error.localizedDescription)")
        }
    }
}

/// The as-of and idle window of the states a command counts (`SelectionOptions`).
struct TimeOptions: ParsableArguments {
    @Option(name: .long, help: "Idle window before as-of after which a user is abandoned (e.g. 24h, 30m, 2d).") var idle: String?
    @Option(name: .customLong("as-of"), help: "Report as of this time (RFC 3339 or YYYY-MM-DD); default: the latest event time.") var asOf: String?
}

/// A failure to report to the user: printed as `funnel CMD: MESSAGE`, exit status 2.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// Runs a command body, turning library errors into a clear message and an exit status.
func reportingErrors<T>(_ command: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as ExitCode {
        throw e
    } catch let e as ValidationError {
        throw e
    } catch {
        FileHandle.standardError.write(Data("funnel \(command): \(error)\n".utf8))
        throw ExitCode(2)
    }
}

/// The wall clock, as a `Timestamp`.
func now() -> Timestamp {
    Timestamp(micros: Int64(Date().timeIntervalSince1970 * 1_000_000))
}

extension ReportFormat: ExpressibleByArgument {}

extension CLIError {
    /// A user with no events (in `flow`), with the closest user ids the store has.
    static func unknownUser(_ user: String, flow: String?, in store: any EventLogReading) throws -> CLIError {
        let close = try store.userIDs(matching: user, limit: 5).filter { $0 != user }
        var message = "no events for user \"\(user)\"" + (flow.map { " in flow \($0)" } ?? "")
        if !close.isEmpty { message += "; did you mean: " + close.joined(separator: ", ") }
        return CLIError(message)
    }
}
