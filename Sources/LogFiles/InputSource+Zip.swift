#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension InputSource {
    /// True for a file named `.zip` (whatever it holds: one that is no archive fails as one)
    /// or whose first bytes are a zip archive's.
    static func isZipArchive(_ path: String) -> Bool {
        if path.lowercased().hasSuffix(".zip") { return true }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 4)
        let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4, 0) }
        return n == 4 && ZipArchive.startsArchive(head)
    }

    /// The entries of the zip archive at `path` that are logs (their names end with one of
    /// `extensions`, a zip's own excepted: archives in an archive are not opened), in name
    /// order (by `/`-separated parts, as a directory of the unzipped files is walked); the
    /// others' labels go to `skipped.entries` (folders are not counted), and an archive with
    /// no log to `skipped.emptyDirectories`. An archive whose directory cannot be read is one
    /// input that fails with why.
    static func expandZip(_ path: String, extensions: [String], skipped: inout Skipped) -> [InputSource] {
        let archive: ZipArchive
        do { archive = try ZipArchive.read(path: path) } catch let e as InputError {
            return [InputSource(path: path, fault: e)]
        } catch {
            return [InputSource(path: path, fault: InputError(kind: .unreadable, path: path, offset: 0, reason: "\(error)"))]
        }
        let logs = extensions.filter { $0.lowercased() != ".zip" }
        let files = archive.entries.filter { !$0.isDirectory }.sortedByName()
        var out: [InputSource] = []
        for entry in files {
            let member = ZipMember(archive: path, entry: entry)
            if isLogFile(entry.fileName, extensions: logs) {
                out.append(InputSource(zip: member))
            } else {
                skipped.entries.append(member.label)
            }
        }
        if out.isEmpty { skipped.emptyDirectories.append(path) }
        return out
    }
}

extension [ZipArchive.Entry] {
    /// In name order by `/`-separated parts, each compared byte by byte; entries of one name
    /// keep the directory's order.
    func sortedByName() -> [ZipArchive.Entry] {
        let parts: [[[UInt8]]] = map { entry in
            entry.name.split(separator: "/", omittingEmptySubsequences: false).map { [UInt8]($0.utf8) }
        }
        let order = indices.sorted { a, b in
            if parts[a] == parts[b] { return a < b }
            return parts[a].lexicographicallyPrecedes(parts[b]) { $0.lexicographicallyPrecedes($1) }
        }
        return order.map { self[$0] }
    }
}
