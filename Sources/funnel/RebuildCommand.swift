import ArgumentParser
import Foundation
import Projections
import Journeys

struct RebuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Drop every projection and fold it again from the event log.",
        discussion: """
            Takes the store's writer lock as ingest does: waits for an ingest or another \
            rebuild of the same store to end (saying so on standard error), or with --no-wait \
            fails at once.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption
    @OptionGroup var wait: WaitOption

    func run() throws {
        try reportingErrors("rebuild") {
            let catalog = try flows.catalog()
            let (store, lock) = try storeOptions.openForWriting(wait, command: "rebuild", create: false)
            let start = Date()
            let bar = ProgressBar.onTerminal()
            let count = try withExtendedLifetime(lock) {
                defer { bar?.clear() }
                return try store.rebuild(definitions: catalog.all, progress: bar.map { b in { (done: Int, total: Int) in b.update(done: done, of: total, "journeys") } })
            }
            print(String(format: "rebuilt %d journeys from the log in %.2f s", count, Date().timeIntervalSince(start)))
        }
    }
}
