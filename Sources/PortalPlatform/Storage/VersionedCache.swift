import Synchronization

/// Values worked out from stored rows, kept under a key that holds a version the database raises on
/// every change to those rows (`patients.adherence_version`, `desk_threads.replies_version`), so a
/// read made after a change carries the new version and never finds the old value, whichever server
/// made the change. The version must be read before the rows the value is worked out from.
///
/// Values kept under versions that have moved on are never found again; they go, with all the rest,
/// when the cache is full.
package final class VersionedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Past this much kept (the sum of the values' costs), everything is forgotten.
    package let budget: Int
    private let cost: @Sendable (Value) -> Int

    private struct State {
        package var entries: [Key: Value] = [:]
        package var spent = 0
    }

    private let state = Mutex(State())

    /// `cost` is what keeping one value counts against `budget`: by default one, so the budget is a number of values.
    package init(budget: Int, cost: @escaping @Sendable (Value) -> Int = { _ in 1 }) {
        self.budget = budget
        self.cost = cost
    }

    package func value(for key: Key) -> Value? {
        state.withLock { $0.entries[key] }
    }

    package func remember(_ value: Value, for key: Key) {
        let added = cost(value)
        guard added <= budget else { return }
        state.withLock { state in
            if let replaced = state.entries.removeValue(forKey: key) { state.spent -= cost(replaced) }
            if state.spent + added > budget {
                state.entries.removeAll(keepingCapacity: true)
                state.spent = 0
            }
            state.entries[key] = value
            state.spent += added
        }
    }
}
