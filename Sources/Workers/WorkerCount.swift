import Foundation

/// How many threads work split in parts runs on: the machine's active cores, or
/// `FUNNEL_WORKERS` (a whole number from 1) when set, read once per process. Every figure is
/// the same whatever the count: parts are added up in order.
public enum WorkerCount {
    /// The environment variable that overrides the machine's core count.
    public static let variable = "FUNNEL_WORKERS"

    public static let machine: Int = resolve(ProcessInfo.processInfo.environment[variable],
                                             cores: ProcessInfo.processInfo.activeProcessorCount)

    /// The count an override and a core count give: the override when it is a whole number
    /// from 1, else the cores (at least 1).
    public static func resolve(_ override: String?, cores: Int) -> Int {
        if let override, let n = Int(override.trimmingCharacters(in: .whitespaces)), n >= 1 { return n }
        return max(1, cores)
    }
}
