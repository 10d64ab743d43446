import XCTest
import GRDB
@testable import EventStore

/// One `AtomIDs` answers text after text as the atoms table does, and finds an atom added
/// after it was first asked for one that was not there.
final class AtomIDsTests: XCTestCase {
    func testEachTextsIDIsTheTablesAndALaterAtomIsFound() throws {
        let (store, _, accepted) = try glp1SampleStore()
        XCTAssertGreaterThan(accepted, 1_000)
        try store.writer.write { db in
            let table = try Row.fetchAll(db, sql: "SELECT text, id FROM atoms ORDER BY id").map { ($0[0] as String, $0[1] as Int64) }
            XCTAssertGreaterThan(table.count, 300)
            let atoms = try AtomIDs(db)
            // Twice over: the second answers come from what the first found.
            for _ in 0..<2 {
                for (text, id) in table { XCTAssertEqual(try atoms.id(of: text), id, text) }
            }
            XCTAssertNil(try atoms.id(of: "u-not-there"))
            try db.execute(sql: "INSERT INTO atoms (text) VALUES ('u-not-there')")
            XCTAssertEqual(try atoms.id(of: "u-not-there"), db.lastInsertedRowID)
        }
    }
}
