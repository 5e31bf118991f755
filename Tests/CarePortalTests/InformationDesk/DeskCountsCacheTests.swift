import Foundation
import Testing
@testable import CarePortal

@Suite struct DeskCountsCacheTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func key(_ search: String = "") -> DeskCountsCache.Key {
        var query = DeskListQuery()
        query.search = search
        return DeskCountsCache.Key(query)
    }

    @Test func countsAreRememberedForTwoSecondsPerSearch() {
        let cache = DeskCountsCache()
        let counts = DeskCounts(waiting: 2, answered: 1, accepted: 0, all: 3)
        let lookup = cache.lookUp(Self.key(), now: Self.now)
        #expect(lookup.counts == nil)
        cache.remember(counts, for: Self.key(), after: lookup, now: Self.now)
        #expect(cache.lookUp(Self.key(), now: Self.now.addingTimeInterval(1.9)).counts == counts)
        #expect(cache.lookUp(Self.key("Methadone  dose"), now: Self.now).counts == nil, "another search counts on its own")
        #expect(cache.lookUp(Self.key(), now: Self.now.addingTimeInterval(DeskCountsCache.lifetime)).counts == nil)
    }

    @Test func countsReadBeforeAChangeAreNotRememberedAfterIt() {
        let cache = DeskCountsCache()
        let lookup = cache.lookUp(Self.key(), now: Self.now)
        cache.forgetAll()  // a change commits while the counts are being read
        cache.remember(DeskCounts(waiting: 1, answered: 0, accepted: 0, all: 1), for: Self.key(), after: lookup, now: Self.now)
        #expect(cache.lookUp(Self.key(), now: Self.now).counts == nil)
    }
}
