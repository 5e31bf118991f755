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
