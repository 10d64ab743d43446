import ArgumentParser
import ClickHouseStore
import Flows
import Foundation
import FunnelModel
import Reports
import LogFiles
import EventStore
import StoreCore

/// `--output FILE`: where a command writes its output (standard output without it). The
/// file is checked before the command reads anything (`OutputTarget`: never the store, an
/// input, a SQLite database or an ingested log) and written whole or not at all
/// (`ReplacingFile`). Its extension gives the format when `--format` is not given.
struct OutputOption: ParsableArguments {
    @Option(name: .long, help: "Write to this file (never over an input), in the format its extension names (.txt, .json, .csv, .md, .html) unless --format says; - or none: standard output.")
    var output: String?

    /// The format asked for: `--format`, else the output's extension, else `fallback`. A
    /// `--format` the extension disagrees with, or an extension the command cannot write, is
    /// a usage error.
    func format<F: RawRepresentable & CaseIterable & Equatable>(_ given: F?, default fallback: F) throws -> F where F.RawValue == String {
        guard let output, let name = OutputTarget(path: output).formatByExtension else { return given ?? fallback }
        let implied = F(rawValue: name)
        if let given, given != implied {
            throw ValidationError("--format \(given.rawValue) and --output \(output) (a \(name) file) disagree: give one of them, or make them match")
        }
        guard let implied else {
            let known = F.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--output \(output) names a \(name) file, a format this command does not write (\(known)): give another name")
        }
        return implied
    }

    /// Refuses an output that is a folder, the store, a file the command reads or a SQLite
    /// database: before the store is opened.
    func check(store: StoreOptions, reads: [String] = []) throws {
        guard let output, output != "-" else { return }
        try OutputTarget(path: output).check(store: ClickHouseLocation.names(store.path) ? nil : store.path, reads: reads)
    }

    /// Refuses an output that is a log the store has ingested.
    func check(ledger store: OpenedStore) throws {
        guard let output, output != "-" else { return }
        try OutputTarget(path: output).check(ledger: try store.log.inputs())
    }

    func write(_ text: String) throws {
        guard let output, output != "-" else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        try ReplacingFile.write(Array(text.utf8), to: output)
    }
}

/// `--raw-csv`: CSV cells exactly as the values are, for pipelines; without it a cell that a
/// spreadsheet would run as a formula gets a leading `'` (`CSV`).
struct RawCSVOption: ParsableArguments {
    @Flag(name: .customLong("raw-csv"), help: "CSV cells as they are: no leading ' before a cell starting with =, +, -, @, tab or CR, control characters kept (docs/security.md).")
    var raw = false
}

extension FlowCatalog {
    /// The flow definition files it read (`--flows DIR`): files a command's output must not replace.
    var files: [String] { entries.map(\.source).filter { $0 != "built-in" } }
}

/// The as-of and idle window of the states a command counts (`SelectionOptions`).
struct TimeOptions: ParsableArguments {
    @Option(name: .long, help: "Idle window before as-of after which a user is abandoned (e.g. 24h, 30m, 2d).") var idle: String?
    @Option(name: .customLong("as-of"), help: "Report as of this time (RFC 3339 or YYYY-MM-DD); default: the latest event time.") var asOf: String?
}

/// A failure to report to the user: printed as `funnel CMD: MESSAGE`, with its exit status
/// (2 unless a library error of another kind is behind it, `ExitStatus`).
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var status: Int32
    init(_ message: String, status: Int32 = ExitStatus.failure) {
        self.message = message
        self.status = status
    }
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
        FileHandle.standardError.write(Data("funnel \(command): \(TerminalText.escapeLines("\(error)"))\n".utf8))
        throw ExitCode(ExitStatus.of(error))
    }
}

/// The wall clock, as a `Timestamp`.
func now() -> Timestamp {
    Timestamp(micros: Int64(Date().timeIntervalSince1970 * 1_000_000))
}

extension ReportFormat: ExpressibleByArgument {}
