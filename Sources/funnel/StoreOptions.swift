import ArgumentParser
import ClickHouseStore
import EventStore
import Projections
import Foundation

/// `--store PATH`, shared by every subcommand that opens the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The event store: a SQLite file, or clickhouse://HOST:PORT[,…]/DB[?cluster=NAME] (default: $FUNNEL_STORE, else ./funnel.sqlite).")
    var store: String?

    var path: String { store ?? EventStore.defaultPath(environment: ProcessInfo.processInfo.environment) }

    /// The store as messages name it: a ClickHouse address without its password.
    var name: String {
        guard ClickHouseLocation.names(path) else { return path }
        return (try? ClickHouseLocation(path).description) ?? "a ClickHouse store"
    }

    /// Opens the store for an ingest, as its one writer (created when absent, in a folder that
    /// must exist): waits for another ingest of the same store to end (saying so on a
    /// terminal), or with `--no-wait` fails at once. The lock is held as long as the returned
    /// `WriterLock` lives.
    /// A ClickHouse store takes no lock here: its ingest checks at commit that no other
    /// ingest committed meanwhile.
    func openForIngest(_ wait: WaitOption, command: String) throws -> (OpenedStore, WriterLock?) {
        if ClickHouseLocation.names(path) { return (try openClickHouse(), nil) }
        // The folder is checked first: the lock file lives in it.
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError("cannot create the store \(path): the folder \(folder) does not exist")
        }
        let lock = try WriterLock(storePath: path, wait: !wait.noWait) {
            if isatty(2) == 1 {
                FileHandle.standardError.write(Data("funnel \(command): another ingest is writing \(path); waiting for it to end\n".utf8))
            }
        }
        return (.sqlite(try openStore()), lock)
    }

    /// Opens the store for a command that only reads: never creates a SQLite file (a
    /// ClickHouse store's tables are created when missing, and hold no events then).
    func openExisting() throws -> OpenedStore {
        if ClickHouseLocation.names(path) { return try openClickHouse() }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError("no store at \(path) (ingest logs first, or give --store)")
        }
        return .sqlite(try openStore())
    }

    private func openClickHouse() throws -> OpenedStore {
        do {
            let location = try ClickHouseLocation(path)
            return .clickhouse(try ClickHouseStore(location: location, migrations: OpenedStore.clickHouseMigrations))
        } catch {
            throw CLIError("cannot open the store \(name): \(error)")
        }
    }

    private func openStore() throws -> EventStore {
        do {
            return try EventStore(path: path, migrations: ProjectionStore.migrations)
        } catch {
            throw CLIError("cannot open the store \(path): \(error)")
        }
    }
}

/// `--no-wait`, for the commands that ingest.
struct WaitOption: ParsableArguments {
    @Flag(name: .long, help: "Fail at once when another ingest is writing the store, instead of waiting for it.")
    var noWait = false
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
