/// Values by the exact bytes they were built from, for one thread: a lookup interns the bytes
/// (`ByteInterner`) instead of building a key. Bounded like FunnelModel's `BoundedCache`: a
/// new value past `limit` starts the cache over. Used where a value is decoded per line or
/// per journey (event caches, the journey decoding cache).
public struct BoundedByteCache<Value> {
    @usableFromInline var keys = ByteInterner()
    @usableFromInline var values: [Value] = []
    @usableFromInline let limit: Int

    public init(limit: Int) { self.limit = limit }

    /// The value for `bytes`: the one built before for the same bytes, else `make()`'s, kept.
    @inlinable
    public mutating func value(for bytes: UnsafeBufferPointer<UInt8>, _ make: () throws -> Value) rethrows -> Value {
        let (i, isNew) = keys.intern(bytes)
        if !isNew { return values[i] }
        let value: Value
        do {
            value = try make()
        } catch {
            // The bytes are interned without a value: start over so ids and values stay paired.
            startOver()
            throw error
        }
        if values.count >= limit {
            startOver()
            _ = keys.intern(bytes)
        }
        values.append(value)
        return value
    }

    @usableFromInline
    mutating func startOver() {
        keys = ByteInterner()
        values.removeAll(keepingCapacity: true)
    }
}
