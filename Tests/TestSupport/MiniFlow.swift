import Foundation
import FunnelModel
import StoreCore

/// The mini flow of Tests/Fixtures/mini-flow.json.
public let miniFlow: FlowDefinition = loadMiniFlow()

func loadMiniFlow() -> FlowDefinition {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mini-flow.json")
    do {
        return try JSONDecoder().decode(FlowDefinition.self, from: Data(contentsOf: url))
    } catch {
        fatalError("cannot load \(url.path): \(error)")
    }
}

/// Builds a user's events at minute offsets from a start time, in arrival order.
public struct JourneyBuilder: Sendable {
    public var user: String
    public var flow = "mini"
    public var start = Timestamp(micros: 1_790_000_000_000_000)
    public var flags: [String: JSONValue] = [:]
    public var events: [RecordedEvent] = []
    public var seq: Int64 = 0

    public init(_ user: String, flags: [String: JSONValue] = [:], seqBase: Int64 = 0) {
        self.user = user
        self.flags = flags
        self.seq = seqBase
    }

    public mutating func add(_ minute: Double, _ name: String, _ step: String? = nil, _ props: [String: JSONValue] = [:]) {
        seq += 1
        let e = Event(id: "\(user)-\(seq)", name: name, userID: user, time: start.adding(seconds: minute * 60),
                      flow: flow, step: step, properties: props,
                      context: EventContext(appVersion: "3.3.0", platform: "ios", flags: flags))
        events.append(RecordedEvent(seq: seq, event: e, line: "{}"))
    }

    public mutating func view(_ minute: Double, _ step: String) { add(minute, "onboarding.step_viewed", step) }
    public mutating func answer(_ minute: Double, _ step: String, _ props: [String: JSONValue]) {
        add(minute, "onboarding.step_completed", step, props)
    }
}
