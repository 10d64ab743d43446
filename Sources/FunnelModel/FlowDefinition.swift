/// A flow definition: which steps an onboarding flow has, in what order on which lane, when
/// each is shown, and which named cohorts it offers. Flows are data (schemas/flow.schema.json,
/// schemas/flows/*.json); nothing in the fold hard-codes one.
public struct FlowDefinition: Codable, Sendable, Hashable {
    public var id: String
    public var title: String
    public var version: Int
    /// Where the definition comes from and the choices made where the source was vague.
    public var description: String?
    /// The collected value whose answer picks the lane (GLP-1: `journeyStatus`), if any.
    public var laneKey: String?
    public var lanes: [Lane]
    public var steps: [Step]
    public var flags: [Flag]
    public var cohorts: [Cohort]

    public init(id: String, title: String, version: Int = 1, description: String? = nil,
                laneKey: String? = nil, lanes: [Lane], steps: [Step], flags: [Flag] = [],
                cohorts: [Cohort] = []) {
        self.id = id
        self.title = title
        self.version = version
        self.description = description
        self.laneKey = laneKey
        self.lanes = lanes
        self.steps = steps
        self.flags = flags
        self.cohorts = cohorts
    }

    enum CodingKeys: String, CodingKey {
        case id, title, version, description, laneKey, lanes, steps, flags, cohorts
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        title = try c.decode(String.self, forKey: .title)
        version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 1
        description = try c.decodeIfPresent(String.self, forKey: .description)
        laneKey = try c.decodeIfPresent(String.self, forKey: .laneKey)
        lanes = try c.decode([Lane].self, forKey: .lanes)
        steps = try c.decode([Step].self, forKey: .steps)
        flags = try c.decodeIfPresent([Flag].self, forKey: .flags) ?? []
        cohorts = try c.decodeIfPresent([Cohort].self, forKey: .cohorts) ?? []
    }

    public enum StepKind: String, Codable, Sendable, Hashable, CaseIterable {
        case entry, screen, affirmation, permission, terminal
    }

    /// A value a step collects (the key of `step_completed` properties) and, where the
    /// definition knows them, the values it can take.
    public struct Collected: Codable, Sendable, Hashable {
        public var key: String
        public var values: [String]?
        public init(key: String, values: [String]? = nil) {
            self.key = key
            self.values = values
        }
    }

    public struct Step: Codable, Sendable, Hashable {
        /// The `step` value events carry.
        public var id: String
        public var kind: StepKind
        public var title: String?
        public var note: String?
        public var collects: [Collected]
        /// Shown only when this condition holds (on values collected earlier).
        public var when: String?
        /// Shown only when this flag is on.
        public var flag: String?
        /// A step that may be passed over by the user's own choice (not by a condition):
        /// it is on the expected path, but a user who goes on without it did not drop off.
        public var optional: Bool?

        public init(id: String, kind: StepKind, title: String? = nil, note: String? = nil,
                    collects: [Collected] = [], when: String? = nil, flag: String? = nil,
                    optional: Bool? = nil) {
            self.id = id
            self.kind = kind
            self.title = title
            self.note = note
            self.collects = collects
            self.when = when
            self.flag = flag
            self.optional = optional
        }

        enum CodingKeys: String, CodingKey { case id, kind, title, note, collects, when, flag, optional }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            kind = try c.decode(StepKind.self, forKey: .kind)
            title = try c.decodeIfPresent(String.self, forKey: .title)
            note = try c.decodeIfPresent(String.self, forKey: .note)
            collects = try c.decodeIfPresent([Collected].self, forKey: .collects) ?? []
            when = try c.decodeIfPresent(String.self, forKey: .when)
            flag = try c.decodeIfPresent(String.self, forKey: .flag)
            optional = try c.decodeIfPresent(Bool.self, forKey: .optional)
        }
    }

    /// A step's place on a lane, with conditions that hold on this lane only (ANDed with the
    /// step's own). Written as a bare step id or as an object.
    public struct LaneStep: Codable, Sendable, Hashable {
        public var id: String
        public var when: String?
        public var flag: String?

        public init(id: String, when: String? = nil, flag: String? = nil) {
            self.id = id
            self.when = when
            self.flag = flag
        }

        enum CodingKeys: String, CodingKey { case id, when, flag }

        public init(from decoder: any Decoder) throws {
            if let single = try? decoder.singleValueContainer(), let id = try? single.decode(String.self) {
                self.init(id: id)
                return
            }
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(id: try c.decode(String.self, forKey: .id),
                      when: try c.decodeIfPresent(String.self, forKey: .when),
                      flag: try c.decodeIfPresent(String.self, forKey: .flag))
        }

        public func encode(to encoder: any Encoder) throws {
            if when == nil && flag == nil {
                var single = encoder.singleValueContainer()
                try single.encode(id)
            } else {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(id, forKey: .id)
                try c.encodeIfPresent(when, forKey: .when)
                try c.encodeIfPresent(flag, forKey: .flag)
            }
        }
    }

    public struct Lane: Codable, Sendable, Hashable {
        public var id: String
        public var title: String?
        /// Which users run this lane; nil for a flow's only lane.
        public var when: String?
        /// The lane's steps in order, shared steps included.
        public var steps: [LaneStep]

        public init(id: String, title: String? = nil, when: String? = nil, steps: [LaneStep]) {
            self.id = id
            self.title = title
            self.when = when
            self.steps = steps
        }
    }

    public struct Flag: Codable, Sendable, Hashable {
        public var id: String
        public var description: String?
        /// The value when no event says otherwise; off unless given.
        public var `default`: Bool?

        public init(id: String, description: String? = nil, default: Bool? = nil) {
            self.id = id
            self.description = description
            self.default = `default`
        }
    }

    /// A named cohort: users whose journey satisfies `where` (collected values, flags,
    /// app version, platform, start date).
    public struct Cohort: Codable, Sendable, Hashable {
        public var id: String
        public var title: String?
        public var `where`: String

        public init(id: String, title: String? = nil, where condition: String) {
            self.id = id
            self.title = title
            self.where = condition
        }
    }
}

extension FlowDefinition {
    public func step(_ id: String) -> Step? { steps.first { $0.id == id } }
    public func lane(_ id: String) -> Lane? { lanes.first { $0.id == id } }
    public func cohort(_ id: String) -> Cohort? { cohorts.first { $0.id == id } }

    /// The lanes a step is on, in lane order.
    public func lanes(of stepID: String) -> [String] {
        lanes.filter { $0.steps.contains { $0.id == stepID } }.map(\.id)
    }

    /// Steps in flow order: each lane's steps in turn, a step listed once where it first appears.
    public var orderedStepIDs: [String] {
        var seen = Set<String>()
        var out: [String] = []
        for lane in lanes { for s in lane.steps where seen.insert(s.id).inserted { out.append(s.id) } }
        for s in steps where seen.insert(s.id).inserted { out.append(s.id) }
        return out
    }

    /// The steps every lane starts with, before the lanes part.
    public var sharedPrefix: [String] {
        guard let first = lanes.first else { return [] }
        var out: [String] = []
        for (i, s) in first.steps.enumerated() {
            guard lanes.allSatisfy({ i < $0.steps.count && $0.steps[i].id == s.id }) else { break }
            out.append(s.id)
        }
        return lanes.count == 1 ? out : out
    }

    public var flagDefaults: [String: Bool] {
        var d: [String: Bool] = [:]
        for f in flags { d[f.id] = f.default ?? false }
        return d
    }

    /// Every value some step collects, by key.
    public var collectedKeys: Set<String> {
        Set(steps.flatMap { $0.collects.map(\.key) })
    }

    /// The values a collected key can take, sorted, when every step collecting it lists them;
    /// nil when one does not (any value may come) or no step collects it.
    public func knownValues(of key: String) -> [String]? {
        let collected = steps.flatMap(\.collects).filter { $0.key == key }
        guard !collected.isEmpty else { return nil }
        var values = Set<String>()
        for c in collected {
            guard let listed = c.values else { return nil }
            values.formUnion(listed)
        }
        return values.sorted()
    }
}

extension FlowDefinition.LaneStep: ExpressibleByStringLiteral {
    public init(stringLiteral id: String) { self.init(id: id) }
}
