import Synchronization

/// Writes items that arrive at the same moment in one transaction, and answers each caller only once
/// its item is committed.
///
/// A commit waits for the disk, and on SQLite one writer commits at a time: sixteen requests that each
/// commit one small row wait for sixteen flushes in a row. Here the first caller starts a writer; while
/// it commits, later items queue, and the next commit takes all of them. Nobody is answered before their
/// item is stored, so nothing is acknowledged that a crash could lose; a failed commit fails every
/// caller in it.
package final class GroupCommit<Item: Sendable>: Sendable {
    package typealias Write = @Sendable ([Item]) async throws -> Void

    private struct State {
        package var queue: [(item: Item, waiter: CheckedContinuation<Void, any Error>)] = []
        package var writing = false
    }

    private let state = Mutex(State())
    private let write: Write

    /// `write` stores a batch of items in one transaction.
    package init(write: @escaping Write) {
        self.write = write
    }

    /// Returns once `item` is committed, or throws what its batch's write threw.
    package func submit(_ item: Item) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let startsWriter = state.withLock { state in
                state.queue.append((item, waiter))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if startsWriter {
                // Detached: the writer serves every caller that queues, not just the one that started it.
                Task.detached { await self.drain() }
            }
        }
    }

    /// How many items wait for the next commit.
    package var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Commits what has queued, again and again, until nothing is left.
    private func drain() async {
        while true {
            let batch = state.withLock { state in
                if state.queue.isEmpty { state.writing = false }
                defer { state.queue.removeAll(keepingCapacity: true) }
                return state.queue
            }
            guard !batch.isEmpty else { return }
            do {
                try await write(batch.map(\.item))
                for entry in batch { entry.waiter.resume() }
            } catch {
                for entry in batch { entry.waiter.resume(throwing: error) }
            }
        }
    }
}
