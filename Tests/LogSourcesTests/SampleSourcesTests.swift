import Flows
import Foundation
import FunnelModel
import LogFiles
import Simulator
import TestSupport
import XCTest
@testable import LogSources

/// sample-data/sources/<vendor>/: the ShieldAI sample's journeys as each vendor's export.
final class SampleSourcesTests: XCTestCase {
    /// Every vendor line maps to an event of sample-data/shieldai, and together they are its
    /// lines: the same events, each as many times (re-sent copies too).
    func testEachVendorSampleMapsToTheNativeSamplesEvents() throws {
        let native = try lines(in: sampleData.appendingPathComponent("shieldai")).map { try EventDecoder.decode(bytes: $0).get() }
        XCTAssertEqual(native.count, 2759)
        for name in presetNames {
            let source = preset(name)
            let mapping = SourceMapping(source)
            let vendor = try lines(in: sampleData.appendingPathComponent("sources/\(name)"))
            XCTAssertEqual(vendor.count, native.count, name)
            let mapped = try vendor.map { try mapping.map(bytes: $0).get().event }
            func key(_ e: Event) -> String {
                let offset = source.timeFormat == .iso8601 ? e.time.offsetSeconds : 0
                return "\(e.id) \(offset) \(e.time.micros)"
            }
            XCTAssertEqual(mapped.map(key).sorted(), native.map(key).sorted(), name)
            // Each mapped event's native line decodes, with EventDecoder, to the same event.
            for line in vendor.prefix(400) {
                let m = try mapping.map(bytes: line).get()
                let decoded = try EventDecoder.decode(bytes: m.nativeLine).get()
                XCTAssertEqual(decoded, m.event, name)
                XCTAssertEqual(decoded.time.offsetSeconds, m.event.time.offsetSeconds, name)
                // Written byte by byte, it is the line the native source's writer writes.
                XCTAssertEqual(m.nativeLine, try SourceWriter(.native).line(for: m.event), name)
            }
            var want: [Event: Int] = [:], got: [Event: Int] = [:]
            for e in native { want[e, default: 0] += 1 }
            for e in mapped { got[e, default: 0] += 1 }
            XCTAssertEqual(got, want, name)
        }
    }

    /// `scripts/gen-sample-data`'s `funnel sample --as` still writes the committed files.
    func testTheVendorSamplesAreWhatTheSimulatorWrites() throws {
        let flow = try FlowCatalog().flow("shieldai")
        let simulation = try Simulation(flow: flow, options: SimulationOptions(users: 160, seed: 4, days: 5, startDay: "2026-10-01"))
        let lines = simulation.run().events
        for name in presetNames {
            let source = preset(name)
            let out = Scratch.directory("vendor-\(name)")
            var writer = CollectorWriter(seed: 4)
            writer.layout = source.collectorLayout
            writer.fileExtension = source.exportFiles.fileExtension
            _ = try writer.write(VendorLines(lines, as: source), to: out.path)
            let committed = sampleData.appendingPathComponent("sources/\(name)")
            let names = try FileManager.default.contentsOfDirectory(atPath: committed.path).sorted()
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), names, name)
            XCTAssertTrue(names.allSatisfy { $0.hasSuffix("." + source.exportFiles.fileExtension) }, name)
            for file in names {
                XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent(file)), try Data(contentsOf: committed.appendingPathComponent(file)),
                               "\(name)/\(file): run scripts/gen-sample-data")
            }
        }
    }
}
