import Foundation
import Synchronization

/// The thread list's tab counts, remembered for two seconds. Counting every question for each list
/// page cost more than the rest of the page; a count is now at most two seconds behind a change made
/// through another server, and never behind one made through this one (every change through
/// `InformationDesk` forgets them all). The list itself is always read fresh.
final class DeskCountsCache: Sendable {
    struct Key: Hashable, Sendable {
        let includeModerated: Bool
        let searchWords: [String]

        init(_ query: DeskListQuery) {
            includeModerated = query.includeModerated
            searchWords = DeskRepository.searchWords(query.search)
        }
    }

    private struct Entry {
        let counts: DeskCounts
        let countedAt: Date
    }

    /// What a lookup found, and when it looked: counts made after a lookup are kept only if nothing
    /// was forgotten in between, so counts read before a change are never remembered after it.
    struct Lookup: Sendable {
        let counts: DeskCounts?
        fileprivate let generation: Int
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var generation = 0
    }

    static let lifetime: TimeInterval = 2
    /// Searches are many; past this many remembered counts, all are forgotten.
    static let capacity = 500
    private let state = Mutex(State())

    func lookUp(_ key: Key, now: Date) -> Lookup {
        state.withLock { state in
            guard let entry = state.entries[key], now.timeIntervalSince(entry.countedAt) < Self.lifetime,
                  entry.countedAt <= now
            else { return Lookup(counts: nil, generation: state.generation) }
            return Lookup(counts: entry.counts, generation: state.generation)
        }
    }

    func remember(_ counts: DeskCounts, for key: Key, after lookup: Lookup, now: Date) {
        state.withLock { state in
            guard state.generation == lookup.generation else { return }
            if state.entries.count >= Self.capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = Entry(counts: counts, countedAt: now)
        }
    }

    func forgetAll() {
        state.withLock { state in
            state.entries.removeAll(keepingCapacity: true)
            state.generation += 1
        }
    }
}
