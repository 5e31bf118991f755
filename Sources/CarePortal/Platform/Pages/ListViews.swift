import Foundation

/// Builds list addresses that keep the current search, filters and sort.
struct ListAddress: Sendable {
    let path: String
    var parameters: [(String, String)]

    init(path: String, parameters: [(String, String?)]) {
        self.path = path
        self.parameters = parameters.compactMap { name, value in value.map { (name, $0) } }.filter { !$0.1.isEmpty }
    }

    func with(_ name: String, _ value: String?) -> ListAddress {
        var copy = self
        copy.parameters.removeAll { $0.0 == name }
        if let value, !value.isEmpty { copy.parameters.append((name, value)) }
        return copy
    }

    var string: String {
        var components = URLComponents()
        components.path = path
        components.queryItems = parameters.isEmpty ? nil : parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.string ?? path
    }
}

/// "Showing 1 to 25 of 240" and the links to other pages.
struct PaginationView: Sendable {
    struct Link: Sendable {
        let number: Int
        let path: String
        let isCurrent: Bool
        let isEllipsis: Bool
    }

    let summary: String
    let previousPath: String?
    let nextPath: String?
    let links: [Link]
    let isNeeded: Bool

    init<Item>(_ page: PageOf<Item>, address: ListAddress, noun: String) {
        let current = page.request.number
        let count = page.pageCount
        summary = page.totalCount == 0
            ? "No \(noun)"
            : "Showing \(page.firstIndex) to \(page.lastIndex) of \(page.totalCount) \(noun)"
        func path(_ number: Int) -> String { address.with("page", number == 1 ? nil : "\(number)").string }
        previousPath = current > 1 ? path(current - 1) : nil
        nextPath = current < count ? path(current + 1) : nil
        isNeeded = count > 1
        var numbers = Set([1, count, current - 1, current, current + 1]).filter { (1...count).contains($0) }.sorted()
        if numbers.isEmpty { numbers = [1] }
        var links: [Link] = []
        for (index, number) in numbers.enumerated() {
            if index > 0, number - numbers[index - 1] > 1 {
                links.append(Link(number: 0, path: "", isCurrent: false, isEllipsis: true))
            }
            links.append(Link(number: number, path: path(number), isCurrent: number == current, isEllipsis: false))
        }
        self.links = links
    }
}

/// A column heading that sorts the list when followed.
struct SortableHeader: Sendable {
    let title: String
    let path: String
    /// The `aria-sort` value: ascending, descending or none.
    let ariaSort: String

    init(title: String, key: String, currentKey: String, descending: Bool, address: ListAddress) {
        self.title = title
        let isCurrent = key == currentKey
        ariaSort = isCurrent ? (descending ? "descending" : "ascending") : "none"
        let nextOrder = isCurrent && !descending ? "desc" : "asc"
        path = address.with("sort", key).with("order", nextOrder).with("page", nil).string
    }
}

/// One choice in a filter select, remembering which is chosen.
struct FilterOption: Sendable {
    let value: String
    let title: String
    let isSelected: Bool
}

/// Dates and times as the portal shows them: UTC, unambiguous.
enum DisplayTime {
    static func dateTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "d MMM yyyy, HH:mm 'UTC'"
        return formatter.string(from: date)
    }

    static func isoDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    /// Parses a `yyyy-MM-dd` field as the start of that day in UTC.
    static func day(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.isLenient = false
        return formatter.date(from: text)
    }
}
