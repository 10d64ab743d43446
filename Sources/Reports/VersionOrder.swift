import FunnelModel

/// App versions in the order reports list them: part by part (`Condition.compareVersions`),
/// and versions equal that way (`1.2` and `1.2.0`) by their bytes. They are put in byte order
/// first, so the order is one function of the versions whatever order they were met in
/// (`compareVersions` is not transitive across numbered and lettered versions).
enum VersionOrder {
    static func sorted(_ versions: some Sequence<String>) -> [String] {
        versions.sorted(by: bytes).sorted { a, b in
            let c = Condition.compareVersions(a, b)
            return c != 0 ? c < 0 : bytes(a, b)
        }
    }

    /// Byte order: a total order, even between strings Swift compares as equal text.
    static func bytes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
