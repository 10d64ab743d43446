import Foundation
import XCTest
import TestSupport
@testable import LogFiles

/// The paths of the glp1 sample's nine daily gzip files, in name order.
func glp1SampleDays() throws -> [String] {
    let dir = sampleData.appendingPathComponent("glp1")
    let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".gz") }.sorted()
    XCTAssertEqual(files.count, 9)
    return files.map { dir.appendingPathComponent($0).path }
}
