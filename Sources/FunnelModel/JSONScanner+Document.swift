extension JSONScanner {
    /// A whole document (a definition file) as one value, read by the `document` rules: a
    /// UTF-8 byte order mark before it is skipped, only whitespace may follow it. An error
    /// names its place by line and column with `JSONSyntaxError.located(in:)`.
    public static func parseDocument(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let read = bytes.withUnsafeBufferPointer { b -> Result<JSONValue, JSONSyntaxError> in
            var sc = JSONScanner(b, rules: .document)
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { sc.i = 3 }
            do throws(JSONSyntaxError) {
                let value = try sc.parseValue()
                sc.skipWhitespace()
                guard sc.i == b.count else { throw sc.fail(.textAfterValue) }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try read.get()
    }
}
