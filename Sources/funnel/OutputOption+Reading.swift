import Flows

extension OutputOption {
    /// What a command that reads the store and writes one output does around its answer: the
    /// output checked against the store, the flow files and the ingested logs, the store
    /// opened, and a progress bar on a terminal, blanked before the output or an error's
    /// message. `body` answers from the store, drawing on the bar; its text is written.
    func answer(from storeOptions: StoreOptions, command: String, catalog: FlowCatalog,
                _ body: (OpenedStore, ProgressBar?) throws -> String) throws {
        try check(store: storeOptions, reads: catalog.files)
        let store = try storeOptions.openExisting(command: command)
        try check(ledger: store)
        let bar = ProgressBar.onTerminal()
        defer { bar?.clear() }
        let text = try body(store, bar)
        bar?.clear()
        try write(text)
    }
}
