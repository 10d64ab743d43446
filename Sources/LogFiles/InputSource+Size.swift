import Foundation

extension InputSource {
    /// About how many lines it holds at most, as known before it is read: its size (a file's,
    /// a zip entry's unzipped one) over the fewest bytes a line takes, compressed (`.gz`,
    /// `.zst`) or not; 0 for standard input, an input that failed, or a file not there.
    public var expectedLines: Int64 {
        let size: Int64
        if let zip {
            size = zip.entry.size
        } else if fault == nil, !isStandardInput {
            size = FileIdentity(path).size
        } else {
            size = 0
        }
        let name = zip?.entry.name ?? path
        let compressed = name.hasSuffix(".gz") || name.hasSuffix(".zst")
        return size / (compressed ? Tuning.compressedBytesPerLine : Tuning.plainBytesPerLine)
    }
}
