import Workers

/// Values worked out once by key and shared between threads, bounded: past `limit` keys the
/// cache starts over (a flow has few distinct keys; the bound keeps a stray input from
/// growing it without end). Safe from any thread. Its single-thread twin for keys that are
/// bytes, looked up without building a key, is LogFiles's `BoundedByteCache`.
package final class BoundedCache<Key: Hashable, Value>: Sendable {
    private let entries = Locked<[Key: Value]>([:])
    private let limit: Int

    package init(limit: Int) { self.limit = limit }

    package func get(_ key: Key) -> Value? {
        entries.withLock { $0[key] }
    }

    package func put(_ key: Key, _ value: Value) {
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll() }
            entries[key] = value
        }
    }

    /// The value kept for `key`, else `make()`'s, kept. `make` runs outside the lock: two
    /// threads may both work out a new key's value, so it must be a function of the key.
    package func value(for key: Key, _ make: () -> Value) -> Value {
        if let known = get(key) { return known }
        let value = make()
        put(key, value)
        return value
    }
}
