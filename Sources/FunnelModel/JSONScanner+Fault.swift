extension JSONScanner {
    /// What the scanner expected where it found another byte or the end.
    public enum Expected: Sendable {
        case value
        /// An object's key.
        case string
        case colon
        case commaOrObjectEnd
        case commaOrArrayEnd
        case objectStart

        var text: String {
            switch self {
            case .value: return "a value"
            case .string: return "a string"
            case .colon: return "':'"
            case .commaOrObjectEnd: return "',' or '}'"
            case .commaOrArrayEnd: return "',' or ']'"
            case .objectStart: return "'{'"
            }
        }
    }

    /// What the scanner found wrong; `fail` words it for its rules.
    @usableFromInline
    enum Fault {
        case expected(Expected)
        /// A document's key without its ':' (a document's message names the key).
        case noColon(afterKey: String)
        case unterminatedString, controlCharacter, unterminatedEscape, invalidEscape
        case shortUnicodeEscape, invalidHexDigit
        /// A surrogate escape without its pair (a document only).
        case loneSurrogate
        /// A string that is not UTF-8 (a document only: an event line is checked whole first).
        case invalidUTF8
        /// A `-` without a digit after it.
        case invalidNumber
        case leadingZero, noFractionDigit, noExponentDigit
        /// `true`, `false` or `null` misspelt, the word starting at `start`.
        case invalidLiteral(start: Int)
        case tooDeep
        case duplicateKey(String)
        /// Text after a document's value.
        case textAfterValue
    }

    /// The error for `fault` at `offset` (the cursor when nil), in the words of the rules: an
    /// event line's quarantine reasons, or a definition file's check messages (whose place
    /// the caller gives by line and column). Not inlined: only a failing text gets here.
    @usableFromInline
    func fail(_ fault: Fault, at offset: Int? = nil) -> JSONSyntaxError {
        let at = offset ?? i
        switch rules {
        case .eventLine: return JSONSyntaxError(offset: at, message: lineMessage(fault, atEnd: at >= b.count))
        case .document: return documentError(fault, at: at)
        }
    }

    private func lineMessage(_ fault: Fault, atEnd: Bool) -> String {
        switch fault {
        case .expected(let what): return atEnd ? "unexpected end of line, expected \(what.text)" : "expected \(what.text)"
        case .noColon: return lineMessage(.expected(.colon), atEnd: atEnd)
        case .unterminatedString: return "unterminated string"
        case .controlCharacter: return "control character in string"
        case .unterminatedEscape: return "unterminated escape"
        case .invalidEscape: return "invalid escape"
        case .shortUnicodeEscape: return "incomplete \\u escape"
        case .invalidHexDigit: return "invalid \\u escape"
        case .loneSurrogate: return "unpaired surrogate"
        case .invalidUTF8: return "invalid UTF-8 in a string"
        case .invalidNumber: return "invalid number"
        case .leadingZero: return "leading zero in number"
        case .noFractionDigit: return "expected a digit after the decimal point"
        case .noExponentDigit: return "expected a digit in the exponent"
        case .invalidLiteral: return "invalid literal"
        case .tooDeep: return "nested deeper than \(JSONScanner.maxDepth) levels"
        case .duplicateKey(let key): return "duplicate key \"\(key)\""
        case .textAfterValue: return "unexpected text after the value"
        }
    }

    private func documentError(_ fault: Fault, at offset: Int) -> JSONSyntaxError {
        let atEnd = offset >= b.count
        var at = offset
        let message: String
        switch fault {
        case .expected(.value): message = atEnd ? "unexpected end of input, expected a value" : "unexpected character"
        case .expected(.string): message = "expected a quoted key"
        case .expected(.commaOrObjectEnd): message = atEnd ? "unexpected end of input inside an object" : "expected ',' or '}'"
        case .expected(.commaOrArrayEnd): message = atEnd ? "unexpected end of input inside an array" : "expected ',' or ']'"
        case .expected(let what): message = "expected \(what.text)"
        case .noColon(let key): message = "expected ':' after key \"\(key)\""
        case .unterminatedString: message = "unterminated string"
        case .controlCharacter: message = "control character in a string"
        case .unterminatedEscape: message = "unterminated escape"
        case .invalidEscape:
            // The place after the escape's letter.
            message = "invalid escape"
            at += 1
        case .shortUnicodeEscape: message = "short \\u escape"
        case .invalidHexDigit: message = "invalid hex digit in \\u escape"
        case .loneSurrogate: message = "unpaired surrogate"
        case .invalidUTF8: message = "invalid UTF-8 in a string"
        case .invalidNumber: message = "unexpected character"
        case .leadingZero: message = "leading zero in number"
        case .noFractionDigit: message = "expected digits after '.'"
        case .noExponentDigit: message = "expected digits in the exponent"
        case .invalidLiteral(let start):
            // The place where the word starts.
            message = "unexpected character"
            at = start
        case .tooDeep: message = "nested too deeply"
        case .duplicateKey(let key): message = "duplicate key \"\(key)\""
        case .textAfterValue: message = "unexpected text after the JSON value"
        }
        return JSONSyntaxError(offset: at, message: message)
    }
}
