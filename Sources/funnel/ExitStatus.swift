import ArgumentParser
import ClickHouseStore
import StoreCore

/// funnel's exit statuses: one for each kind of failure a script may act on differently
/// (wait and run again, fix the store path, call the server's owner), documented in
/// docs/cli.md. Codes past 2 follow BSD's sysexits.h, as the usage error's 64 does.
enum ExitStatus {
    static let success: Int32 = 0
    /// The answer is no: `ingest --strict` quarantined a line, `flows check` (or `sources check`) found an
    /// error, `flows drift` found drift.
    static let answerIsNo: Int32 = 1
    /// A failure of no kind below: a value the command cannot use, an input it cannot read,
    /// no store at the path, any other store failure.
    static let failure: Int32 = 2
    /// The command line does not parse (ArgumentParser's own code).
    static let usage: Int32 = ExitCode.validationFailure.rawValue
    /// The store contradicts itself (EX_DATAERR).
    static let corruptStore: Int32 = 65
    /// The path holds no store this funnel can open: not a database, or a format it does
    /// not read as it is (EX_NOINPUT).
    static let notAStore: Int32 = 66
    /// A ClickHouse server did not answer (EX_UNAVAILABLE).
    static let serverUnreachable: Int32 = 69
    /// Another ingest or rebuild writes the store; run again when it ends (EX_TEMPFAIL).
    static let busy: Int32 = 75

    /// The status for `error`: its kind's, else `failure`.
    static func of(_ error: any Error) -> Int32 {
        switch error {
        case let e as CLIError: return e.status
        case let e as StoreError: return of(e.kind)
        case let e as ClickHouseError: return of(e.kind)
        default: return failure
        }
    }

    static func of(_ kind: StoreError.Kind) -> Int32 {
        switch kind {
        case .busy: return busy
        case .notAStore: return notAStore
        case .corrupt: return corruptStore
        case .failed: return failure
        }
    }

    static func of(_ kind: ClickHouseError.Kind) -> Int32 {
        switch kind {
        case .unreachable: return serverUnreachable
        case .refused, .server, .reply, .address, .failed: return failure
        }
    }
}
