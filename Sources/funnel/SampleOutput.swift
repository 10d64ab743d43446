import LogFiles
import Foundation

extension SampleCommand {
    /// `--out` must be a folder (or not exist yet) and, unless `--force`, hold no logs, nor
    /// any file named as the sample names its own (`events…` with `fileExtension`: a vendor's
    /// export is no log of funnel's): a sample never replaces the day files of a real
    /// collector folder or export.
    func checkOutFolder(writing fileExtension: String) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: out, isDirectory: &isFolder) else { return }
        guard isFolder.boolValue else { throw CLIError("--out \(out) is a file, not a folder: nothing was written") }
        guard !force else { return }
        let folder = out.hasSuffix("/") ? out : out + "/"
        let logs = try InputSource.discover([out]).map(\.path)
        let named = try FileManager.default.contentsOfDirectory(atPath: out)
            .filter { $0.hasPrefix("events") && $0.hasSuffix("." + fileExtension) }.sorted().map { folder + $0 }
        let held = logs + named.filter { !logs.contains($0) }
        guard let first = held.first else { return }
        throw CLIError("--out \(out) already holds \(held.count) log\(held.count == 1 ? "" : "s") (\(first)\(held.count > 1 ? ", …" : "")): "
                       + "refusing to write over them; nothing was written (give an empty or new folder, or --force)")
    }
}
