/// UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
public enum UTF8Check {
    /// The offset of the first byte of the first invalid sequence, or nil when valid.
    /// Inlinable: the event decoder checks every line with it.
    @inlinable
    public static func firstInvalid(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        let n = b.count
        guard let base = b.baseAddress else { return nil }
        var i = 0
        while i < n {
            // ASCII fast path: 32 bytes at a time (one test of four words), then eight.
            let raw = UnsafeRawPointer(base)
            while i + 32 <= n {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
                    | raw.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
                if w & 0x8080_8080_8080_8080 != 0 { break }
                i += 32
            }
            while i + 8 <= n {
                let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if w & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
            guard i < n else { return nil }
            // Fewer than eight bytes left: the line's last eight, read as one word, when all
            // are ASCII (those before `i` among them were read already).
            if n - i < 8, n >= 8, raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                return nil
            }
            let c = b[i]
            if c < 0x80 { i += 1; continue }
            var need: Int
            var lo: UInt8 = 0x80
            var hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; hi = 0x9F
            case 0xF0: need = 3; lo = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; hi = 0x8F
            default: return i
            }
            guard i + need < n else { return i }
            let c1 = b[i + 1]
            guard c1 >= lo, c1 <= hi else { return i }
            var k = 2
            while k <= need {
                let ck = b[i + k]
                guard ck >= 0x80, ck <= 0xBF else { return i }
                k += 1
            }
            i += need + 1
        }
        return nil
    }
}

extension UTF8Check {
    /// The length of the valid UTF-8 sequence starting at `i`, or nil.
    public static func sequenceLength(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int? {
        let c = b[i]
        let need: Int
        switch c {
        case 0..<0x80: return 1
        case 0xC2...0xDF: need = 2
        case 0xE0...0xEF: need = 3
        case 0xF0...0xF4: need = 4
        default: return nil
        }
        guard i + need <= b.count else { return nil }
        return firstInvalid(UnsafeBufferPointer(rebasing: b[i..<(i + need)])) == nil ? need : nil
    }
}
