import Foundation

extension InputSource {
    /// The bytes its content will have, as known before it is read: a file's size, a zip
    /// entry's unzipped size; 0 for standard input, an input that failed, or a file not there.
    public var expectedSize: Int64 {
        if let zip { return zip.entry.size }
        guard fault == nil, !isStandardInput else { return 0 }
        return FileIdentity(path).size
    }
}
