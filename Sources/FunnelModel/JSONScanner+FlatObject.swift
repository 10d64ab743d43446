extension JSONScanner {
    /// At an object's opening brace: moves past the object when it is flat and compact — keys
    /// and string values without escapes, numbers, `true`, `false` and `null`, no whitespace
    /// nor nested container — and returns whether its strings are all ASCII. That is a part
    /// of what `skipValue` accepts, read without its recursion. Nil, the cursor anywhere,
    /// for any other text: the caller runs `skipValue` from the brace, which judges it.
    @inlinable @inline(__always)
    public mutating func skipFlatObject() -> Bool? {
        let n = b.count
        guard i < n, b[i] == 0x7B else { return nil }
        i += 1
        guard i < n else { return nil }
        if b[i] == 0x7D {
            i += 1
            return true
        }
        var ascii = true
        while true {
            guard i < n, b[i] == 0x22, let key = JSONScanner.plainStringEnd(b, from: i + 1) else { return nil }
            i = key.end + 1
            guard i + 1 < n, b[i] == 0x3A else { return nil }
            i += 1
            switch b[i] {
            case 0x22:
                guard let value = JSONScanner.plainStringEnd(b, from: i + 1) else { return nil }
                ascii = ascii && key.ascii && value.ascii
                i = value.end + 1
            case 0x2D, 0x30...0x39:
                ascii = ascii && key.ascii
                do { _ = try scanNumber() } catch { return nil }
            case 0x74, 0x66, 0x6E:
                ascii = ascii && key.ascii
                do {
                    switch b[i] {
                    case 0x74: try literal("true")
                    case 0x66: try literal("false")
                    default: try literal("null")
                    }
                } catch { return nil }
            default:
                return nil
            }
            guard i < n else { return nil }
            if b[i] == 0x2C {
                i += 1
            } else if b[i] == 0x7D {
                i += 1
                return ascii
            } else {
                return nil
            }
        }
    }
}
