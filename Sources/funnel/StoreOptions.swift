import ArgumentParser
import EventStore
import Projections
import Foundation

/// `--store PATH`, shared by every subcommand that opens the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The event store (default: $FUNNEL_STORE, else ./funnel.sqlite).")
    var store: String?

    var path: String { store ?? EventStore.defaultPath(environment: ProcessInfo.processInfo.environment) }

    func open() throws -> EventStore {
        do {
            return try EventStore(path: path, migrations: ProjectionStore.migrations)
        } catch {
            FileHandle.standardError.write(Data("funnel: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
