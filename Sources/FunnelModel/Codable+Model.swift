/// Codable forms for storing projections: a timestamp as its microseconds and offset, a JSON
/// value as itself (numbers by value: `1.10` comes back as `1.1`).
extension Timestamp: Codable {
    enum CodingKeys: String, CodingKey { case us, off }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(micros: try c.decode(Int64.self, forKey: .us),
                  offsetSeconds: try c.decodeIfPresent(Int32.self, forKey: .off) ?? 0)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(micros, forKey: .us)
        if offsetSeconds != 0 { try c.encode(offsetSeconds, forKey: .off) }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .number(String(i))
        } else if let d = try? c.decode(Double.self) {
            self = .number(String(d))
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n):
            if let i = Int64(n) { try c.encode(i) } else if let d = Double(n) { try c.encode(d) } else { try c.encode(n) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
