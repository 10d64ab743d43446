import Workers

/// Values worked out once by key and shared between threads, bounded: past `limit` keys the
/// cache starts over (a flow has few distinct keys; the bound keeps a stray input from
/// growing it without end). Safe from any thread. Its single-thread twin for keys that are
/// bytes, looked up without building a key, is LogFiles's `BoundedByteCache`.
///
/// Public and inlinable, a struct over a shared lock box (copies share the entries): each
/// user's module specializes it for its key and value (docs/architecture.md, "Modules");
/// a generic dictionary lookup hashes through witness tables.
public struct BoundedCache<Key: Hashable, Value>: Sendable {
    @usableFromInline let entries = Locked<[Key: Value]>([:])
    @usableFromInline let limit: Int

    public init(limit: Int) { self.limit = limit }

    @inlinable
    public func get(_ key: Key) -> Value? {
        entries.withLock { $0[key] }
    }

    @inlinable
    public func put(_ key: Key, _ value: Value) {
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll() }
            entries[key] = value
        }
    }

    /// The value kept for `key`, else `make()`'s, kept. `make` runs outside the lock: two
    /// threads may both work out a new key's value, so it must be a function of the key.
    @inlinable
    public func value(for key: Key, _ make: () -> Value) -> Value {
        if let known = get(key) { return known }
        let value = make()
        put(key, value)
        return value
    }
}
