import Hummingbird

/// The `page` an app asks for in a list's query: 1 when absent, at most 100,000, and anything else a 400
/// with the same message on every list.
extension Request {
    package static let apiPageProblem = "Use a page number from 1"

    /// The page asked for, or nil when `page` is not a page number (for a list that reports it with other problems).
    package var apiPageNumber: Int? {
        guard let number = Int(query("page") ?? "1"), (1...100_000).contains(number) else { return nil }
        return number
    }

    /// The page asked for, `size` to a page; a 400 when `page` is not a page number.
    package func apiPage(size: Int = PageRequest.defaultSize) throws -> PageRequest {
        guard let number = apiPageNumber else { throw APIError.invalidQuery(["page": Self.apiPageProblem]) }
        return PageRequest(number: number, size: size)
    }
}

/// Where one page of an app's list sits in the whole: `page` and `page_size`, then either `page_count` and
/// `total_count` (a list counted to its end) or `has_more` (a list read one row past its page).
package enum APIPagePosition: Encodable, Sendable, Equatable {
    case counted(page: Int, pageSize: Int, pageCount: Int, totalCount: Int)
    case readAhead(page: Int, pageSize: Int, hasMore: Bool)

    /// Where a page read by number sits.
    package init(_ page: PageOf<some Sendable>) {
        self = .counted(page: page.request.number, pageSize: page.request.size, pageCount: page.pageCount, totalCount: page.totalCount)
    }

    private enum CodingKeys: String, CodingKey {
        case page, pageSize, pageCount, totalCount, hasMore
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .counted(let page, let pageSize, let pageCount, let totalCount):
            try container.encode(page, forKey: .page)
            try container.encode(pageSize, forKey: .pageSize)
            try container.encode(pageCount, forKey: .pageCount)
            try container.encode(totalCount, forKey: .totalCount)
        case .readAhead(let page, let pageSize, let hasMore):
            try container.encode(page, forKey: .page)
            try container.encode(pageSize, forKey: .pageSize)
            try container.encode(hasMore, forKey: .hasMore)
        }
    }
}

/// One page of an app's list as one JSON object: what `List` holds (the page's items under their own name,
/// and anything said of the whole list) with the page's position beside them.
package struct APIPage<List: Encodable & Sendable>: Encodable, Sendable {
    package let list: List
    package let position: APIPagePosition

    package init(_ list: List, _ position: APIPagePosition) {
        self.list = list
        self.position = position
    }

    package func encode(to encoder: any Encoder) throws {
        try list.encode(to: encoder)
        try position.encode(to: encoder)
    }
}
