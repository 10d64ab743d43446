extension FunnelReport {
    /// `by` for the dimensions of a breakdown: one as it is named, two joined by a comma.
    static func byText(_ dimensions: [String]) -> String {
        dimensions.joined(separator: ",")
    }

    /// The dimensions of the breakdown in order (a report decoded from JSON written before
    /// `by_dimensions` has its one `by`).
    public var dimensions: [String] {
        byDimensions ?? by.map { [$0] } ?? []
    }

    /// The breakdown for a title: `app_version`, `app_version and flag:x`.
    public var byTitle: String { dimensions.joined(separator: " and ") }

    /// Whether the groups are pairs of values of two dimensions.
    public var isPairs: Bool { dimensions.count > 1 }

    /// A group as a heading: `app_version = 3.2.0`, or for a pair
    /// `app_version = 3.2.0 · flag:x = on`, each name through `shown`.
    func heading(_ group: Group, shown: (String) -> String = { $0 }) -> String {
        let names = dimensions
        guard names.count > 1 else { return "\(shown(by ?? "")) = \(shown(group.value))" }
        return names.map { "\(shown($0)) = \(shown(group.values[$0] ?? ""))" }.joined(separator: Group.pairSeparator)
    }
}

extension FunnelReport.Group {
    /// A group of one value per dimension, `(dimension, value)` in the breakdown's order.
    init(values pairs: [(String, String)], report: FunnelReport) {
        self.init(value: pairs.map(\.1).joined(separator: Self.pairSeparator),
                  values: Dictionary(pairs, uniquingKeysWith: { first, _ in first }), report: report)
    }

    /// The group's value under one dimension of the breakdown.
    func value(of dimension: String) -> String? {
        values[dimension] ?? (values.isEmpty ? value : nil)
    }
}
