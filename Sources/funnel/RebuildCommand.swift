import ArgumentParser
import Foundation
import Projections

struct RebuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Drop every projection and fold it again from the event log.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var flows: FlowsDirectoryOption

    func run() throws {
        try reportingErrors("rebuild") {
            let catalog = try flows.catalog()
            let store = try storeOptions.openExisting()
            let start = Date()
            let count = try store.rebuild(definitions: catalog.all)
            print(String(format: "rebuilt %d journeys from the log in %.2f s", count, Date().timeIntervalSince(start)))
        }
    }
}
