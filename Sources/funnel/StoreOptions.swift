import ArgumentParser
import ClickHouseStore
import EventStore
import StoreCore
import Projections
import Journeys
import Foundation
import FunnelModel
import Reports

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

    /// Opens the store for an ingest or a rebuild, as its one writer (an ingest creates it when
    /// absent, in a folder that must exist; a rebuild needs it): waits for another writer of
    /// the same store to end (saying so on standard error), or with `--no-wait` fails at once.
    /// The lock is held as long as the returned `WriterLock` lives.
    /// A ClickHouse store has no lock file: its `writers` table says who writes it, and its
    /// ingest checks at commit that no other ingest committed meanwhile.
    func openForWriting(_ wait: WaitOption, command: String, create: Bool = true) throws -> (OpenedStore, WriterLock?) {
        if ClickHouseLocation.names(path) {
            let opened = try openClickHouse()
            if case .clickhouse(let store) = opened {
                try store.waitForOtherWriters(wait: !wait.noWait) { writer in
                    FileHandle.standardError.write(Data(("funnel \(command): another ingest or rebuild is writing \(name) now ("
                        + TerminalText.escape(writer.description) + "); waiting for it to end\n").utf8))
                }
            }
            return (opened, nil)
        }
        // The folder is checked first: the lock file lives in it.
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError("cannot create the store \(path): the folder \(folder) does not exist")
        }
        if !create, !FileManager.default.fileExists(atPath: path) {
            throw CLIError("no store at \(path) (ingest logs first, or give --store)")
        }
        if EventStore.readAccess(path: path) != .readWrite, FileManager.default.fileExists(atPath: path) {
            throw CLIError("the store \(path) is read-only for this user: \(command) writes it (the read commands work)")
        }
        let lock = try WriterLock(storePath: path, wait: !wait.noWait) {
            FileHandle.standardError.write(Data("funnel \(command): another ingest or rebuild is writing \(path); waiting for it to end\n".utf8))
        }
        return (.sqlite(try openStore(access: .readWrite)), lock)
    }

    /// Opens the store for a command that only reads: never creates a SQLite file (a
    /// ClickHouse store's tables are created when missing, and hold no events then). A file
    /// this user cannot write is opened read-only (`EventStore.readAccess`) and nothing is
    /// written to it; said once on standard error, as is an ingest or rebuild writing the
    /// store now (with the inputs the figures include): on SQLite it holds the writer lock, on
    /// ClickHouse the store's `writers` table names it.
    func openExisting(command: String) throws -> OpenedStore {
        if ClickHouseLocation.names(path) {
            let opened = try openClickHouse()
            if case .clickhouse(let store) = opened, let writer = try store.runningWriters().first {
                noteBusy(command, who: " (\(TerminalText.escape(writer.description)))", inputs: try store.inputs())
            }
            return opened
        }
        let busy = WriterLock.isHeld(storePath: path)
        guard FileManager.default.fileExists(atPath: path) else {
            if busy {
                throw CLIError("an ingest is creating the store \(path) now; run again when it has committed its first input", status: ExitStatus.busy)
            }
            throw CLIError("no store at \(path) (ingest logs first, or give --store)")
        }
        var access = EventStore.readAccess(path: path)
        let store: EventStore
        do {
            store = try openStore(access: access)
        } catch where access == .readOnly {
            // -wal and -shm left by a writer that is gone need a recovery only a writer can
            // make: the file alone is read, without what that writer had not checkpointed.
            access = .immutable
            store = try openStore(access: access)
            note(command, "\(path)-wal holds changes of a writer that ended without checkpointing them; they are not read until a user who can write the store opens it")
        }
        if access != .readWrite {
            note(command, "the store \(path) is read-only for this user: it is read as it is and nothing is written to it; the figures are as the store last wrote them")
        }
        if busy { noteBusy(command, who: "", inputs: try store.inputs()) }
        return .sqlite(store)
    }

    /// Says that an ingest or rebuild (`who`) writes the store now, and which of its inputs
    /// (the ledger's, `inputs`) the figures include.
    private func noteBusy(_ command: String, who: String, inputs: [LedgerEntry]) {
        let included = inputs.last.map { "the inputs finished so far (\(inputs.count) in the ledger, the last \($0.path) at \($0.finishedAt))" }
            ?? "no input yet (none is finished)"
        note(command, "an ingest or rebuild is writing \(name) now\(who): the figures include \(included); run again when it ends for the whole")
    }

    private func note(_ command: String, _ text: String) {
        FileHandle.standardError.write(Data((Format.wrapLines("funnel \(command): note: \(text)") + "\n").utf8))
    }

    private func openClickHouse() throws -> OpenedStore {
        do {
            let location = try ClickHouseLocation(path)
            return .clickhouse(try ClickHouseStore(location: location, migrations: OpenedStore.clickHouseMigrations))
        } catch {
            throw CLIError("cannot open the store \(name): \(error)", status: ExitStatus.of(error))
        }
    }

    private func openStore(access: EventStore.Access) throws -> EventStore {
        do {
            return try EventStore(path: path, migrations: ProjectionStore.migrations, access: access)
        } catch {
            throw CLIError("cannot open the store \(path): \(error)", status: ExitStatus.of(error))
        }
    }
}

/// `--no-wait`, for the commands that ingest.
struct WaitOption: ParsableArguments {
    @Flag(name: .long, help: "Fail at once when another ingest or rebuild is writing the store, instead of waiting for it.")
    var noWait = false
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
