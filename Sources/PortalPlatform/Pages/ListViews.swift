import Foundation

/// Builds list addresses that keep the current search, filters and sort.
package struct ListAddress: Sendable {
    package let path: String
    package var parameters: [(String, String)]

    package init(path: String, parameters: [(String, String?)]) {
        self.path = path
        self.parameters = parameters.compactMap { name, value in value.map { (name, $0) } }.filter { !$0.1.isEmpty }
    }

    package func with(_ name: String, _ value: String?) -> ListAddress {
        var copy = self
        copy.parameters.removeAll { $0.0 == name }
        if let value, !value.isEmpty { copy.parameters.append((name, value)) }
        return copy
    }

    package var string: String {
        var components = URLComponents()
        components.path = path
        components.queryItems = parameters.isEmpty ? nil : parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.string ?? path
    }
}

/// "Showing 26 to 50 of 240 members" and the links to the first, previous, next and last pages.
///
/// A list found by seeking moves on with `?after=` and `?before=` cursors (and `?page=last`); a list
/// still paged by number shows the numbers around the current one. Both keep the search, filters and sort.
package struct PaginationView: Fragment {
    package struct Link: Sendable, Hashable, Encodable {
        package let number: Int
        package let path: String
        package let isCurrent: Bool
        package let isEllipsis: Bool

        package init(number: Int, path: String, isCurrent: Bool, isEllipsis: Bool) {
            self.number = number
            self.path = path
            self.isCurrent = isCurrent
            self.isEllipsis = isEllipsis
        }
    }

    package let summary: String
    package let firstPath: String?
    package let previousPath: String?
    package let nextPath: String?
    package let lastPath: String?
    package let links: [Link]
    package let hasNumbers: Bool
    package let isNeeded: Bool
    package static let template = TemplateName.pagination

    /// The singular of one of the lists' plural nouns: "entries" → "entry", "flagged posts" → "flagged post".
    static func singular(of noun: String) -> String {
        if noun.hasSuffix("ies") { return noun.dropLast(3) + "y" }
        if noun.hasSuffix("s") { return String(noun.dropLast()) }
        return noun
    }

    /// `noun` is the plural ("members"); a list of one says its singular ("Showing 1 member").
    package init<Item>(_ page: PageOf<Item>, address: ListAddress, noun: String) {
        let total = page.totalText
        if page.items.isEmpty {
            summary = "No \(noun)"
        } else if page.totalCount == 1 {
            summary = "Showing 1 \(Self.singular(of: noun))"
        } else if page.startIndex != nil {
            summary = "Showing \(page.firstIndex) to \(page.lastIndex) of \(total) \(noun)"
        } else {
            summary = "Showing \(page.items.count) of \(total) \(noun)"
        }
        let base = address.with("page", nil).with("after", nil).with("before", nil)
        isNeeded = page.hasPrevious || page.hasNext
        if let firstCursor = page.firstCursor, let lastCursor = page.lastCursor {
            firstPath = page.hasPrevious ? base.string : nil
            previousPath = page.hasPrevious ? base.with("before", firstCursor.token).string : nil
            nextPath = page.hasNext ? base.with("after", lastCursor.token).string : nil
            lastPath = page.hasNext ? base.with("page", "last").string : nil
            links = []
            hasNumbers = false
            return
        }
        let current = page.request.number
        let count = page.pageCount
        func path(_ number: Int) -> String { base.with("page", number == 1 ? nil : "\(number)").string }
        firstPath = current > 1 ? path(1) : nil
        previousPath = current > 1 ? path(current - 1) : nil
        nextPath = current < count ? path(current + 1) : nil
        lastPath = current < count ? path(count) : nil
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
        hasNumbers = true
    }
}

/// A column heading that sorts the list when followed.
package struct SortableHeader: Sendable, Encodable {
    package let title: String
    package let path: String
    /// The `aria-sort` value: ascending, descending or none.
    package let ariaSort: String

    package init(title: String, key: String, currentKey: String, descending: Bool, address: ListAddress) {
        self.title = title
        let isCurrent = key == currentKey
        ariaSort = isCurrent ? (descending ? "descending" : "ascending") : "none"
        let nextOrder = isCurrent && !descending ? "desc" : "asc"
        path = address.with("sort", key).with("order", nextOrder).with("page", nil).with("after", nil).with("before", nil).string
    }
}

/// One row of a GOV.UK summary list: a key and its value.
package struct SummaryListRow: Sendable, Hashable, Encodable {
    package let key: String
    package let value: String

    package init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// One choice in a filter select, remembering which is chosen.
package struct FilterOption: Sendable, Hashable, Encodable {
    package let value: String
    package let title: String
    package let isSelected: Bool

    package init(value: String, title: String, isSelected: Bool) {
        self.value = value
        self.title = title
        self.isSelected = isSelected
    }

    /// A select's `<option>`s, every text escaped, for a template to write with `{{{…}}}`: a select of
    /// every audit action holds a hundred, and a template section costs a lookup and casts for each value.
    package static func html(_ options: [FilterOption]) -> RenderedHTML {
        var html = ""
        html.reserveCapacity(options.count * 60)
        for option in options {
            html += #"<option value=""#
            html += HTMLEscaping.escape(option.value)
            html += option.isSelected ? #"" selected>"# : #"">"#
            html += HTMLEscaping.escape(option.title)
            html += "</option>"
        }
        return RenderedHTML(markup: html)
    }
}

/// Dates and times as the portal shows them: UTC, unambiguous.
package enum DisplayTime {
    /// "21 Nov 2026, 22:42 UTC". Worked out with integer arithmetic: a long list formats hundreds of
    /// these per page, and no formatter object is made or shared across threads.
    package static func dateTime(_ date: Date) -> String {
        let seconds = Int64((date.timeIntervalSince1970).rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CalendarDate.civil(dayNumber: Int(days))
        let hour = secondOfDay / 3_600, minute = secondOfDay % 3_600 / 60
        return "\(day) \(monthAbbreviations[month - 1]) \(year), \(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute) UTC"
    }

    package static func isoDate(_ date: Date) -> String {
        CalendarDate(date).iso
    }

    private static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Parses a `yyyy-MM-dd` field as the start of that day in UTC.
    package static func day(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.isLenient = false
        return formatter.date(from: text)
    }
}
