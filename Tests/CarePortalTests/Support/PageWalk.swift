@testable import PortalPlatform

/// Walks a list paged by seeking, as a person would through its links: from the first page through each
/// "Next", and from the last page through each "Previous". `page` reads one page, its items as the keys the
/// test compares; each walk stops once it holds more than `limit` keys, so a list whose links loop ends.
enum PageWalk {
    static func bothWays<Key: Equatable & Sendable>(
        size: Int,
        limit: Int,
        _ page: (PageRequest) async throws -> PageOf<Key>
    ) async throws -> (forwards: [Key], backwards: [Key]) {
        var forwards: [Key] = []
        var request = PageRequest(.first, size: size)
        while true {
            let found = try await page(request)
            forwards += found.items
            guard found.hasNext, let last = found.lastCursor, forwards.count <= limit else { break }
            request = PageRequest(.after(last), size: size)
        }
        var backwards: [Key] = []
        request = PageRequest(.last, size: size)
        while true {
            let found = try await page(request)
            backwards = found.items + backwards.filter { !found.items.contains($0) }
            guard found.hasPrevious, let first = found.firstCursor, backwards.count <= limit else { break }
            request = PageRequest(.before(first), size: size)
        }
        return (forwards, backwards)
    }
}
