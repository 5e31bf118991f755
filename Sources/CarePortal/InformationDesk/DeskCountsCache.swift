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

    static let lifetime: TimeInterval = 2
    /// Searches are many; past this many remembered counts, all are forgotten.
    static let capacity = 500
    private let entries = Mutex<[Key: Entry]>([:])

    func counts(for key: Key, now: Date) -> DeskCounts? {
        entries.withLock { entries in
            guard let entry = entries[key], now.timeIntervalSince(entry.countedAt) < Self.lifetime,
                  entry.countedAt <= now
            else { return nil }
            return entry.counts
        }
    }

    func remember(_ counts: DeskCounts, for key: Key, now: Date) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(counts: counts, countedAt: now)
        }
    }

    func forgetAll() {
        entries.withLock { $0.removeAll(keepingCapacity: true) }
    }
}
