import LogFiles
import Foundation

extension SampleCommand {
    /// `--out` must be a folder (or not exist yet) and, unless `--force`, hold no logs: a
    /// sample never replaces the day files of a real collector folder.
    func checkOutFolder() throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: out, isDirectory: &isFolder) else { return }
        guard isFolder.boolValue else { throw CLIError("--out \(out) is a file, not a folder: nothing was written") }
        guard !force else { return }
        let logs = try InputSource.discover([out])
        guard let first = logs.first else { return }
        throw CLIError("--out \(out) already holds \(logs.count) log\(logs.count == 1 ? "" : "s") (\(first.path)\(logs.count > 1 ? ", …" : "")): "
                       + "refusing to write over them; nothing was written (give an empty or new folder, or --force)")
    }
}
