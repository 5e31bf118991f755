extension Optional {
    /// `map` for an asynchronous transform: a record read only when its number was given.
    package func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
