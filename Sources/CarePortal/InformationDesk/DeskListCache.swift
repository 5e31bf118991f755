import PortalPlatform

/// Pages of the desk's list and the counts on its tabs, kept under the desk's list version
/// (`list_versions`, migration 15), which the database raises whenever anything they show or count
/// may have changed, through any server. Medical professionals come back to the same list again and
/// again, and it changes far less often than it is read.
struct DeskListCache: Sendable {
    /// What the counts depend on: every page of the same list (filter, sort and page aside) shares them.
    struct CountsKey: Hashable, Sendable {
        let version: Int64
        let includeModerated: Bool
        let searchWords: [String]
    }

    struct PageKey: Hashable, Sendable {
        let list: CountsKey
        let filter: DeskFilter
        let sort: DeskSort
        let page: PageRequest
    }

    /// Kept pages' text, in bytes, before all are forgotten.
    static let pagesBudget = 16 << 20
    /// Kept counts (one per search, and one for the list itself) before all are forgotten.
    static let countsBudget = 2_000

    let pages = VersionedCache<PageKey, PageOf<DeskThread>>(budget: pagesBudget) { page in
        page.items.reduce(0) { bytes, thread in
            bytes + 256 + thread.title.utf8.count + thread.body.byteCount + (thread.moderationReason?.utf8.count ?? 0)
        }
    }
    let counts = VersionedCache<CountsKey, DeskCounts>(budget: countsBudget)

    static func countsKey(_ query: DeskListQuery, version: Int64) -> CountsKey {
        CountsKey(version: version, includeModerated: query.includeModerated, searchWords: DeskRepository.searchWords(query.search))
    }

    static func pageKey(_ query: DeskListQuery, counts: CountsKey) -> PageKey {
        PageKey(list: counts, filter: query.filter, sort: query.sort, page: query.page)
    }
}
