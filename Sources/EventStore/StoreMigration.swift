import FunnelModel
import LogFiles
import GRDB

/// A migration added by another module (projections), registered after the store's own.
/// Like the store's migrations, a shipped migration is never edited: add a new one.
public struct StoreMigration: Sendable {
    public var name: String
    public var migrate: @Sendable (Database) throws -> Void

    public init(name: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        self.name = name
        self.migrate = migrate
    }
}
