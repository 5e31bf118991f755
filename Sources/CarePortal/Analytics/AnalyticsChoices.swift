import Foundation
import PortalPlatform

/// What a graph is drawn for, as the researcher chose it; every choice lives in the page's address, so a
/// graph can be bookmarked and shared.
struct AnalyticsChoices: Sendable, Equatable {
    enum Range: String, Sendable, CaseIterable {
        case last7 = "7d", last30 = "30d", last90 = "90d", thisMonth = "month", allTime = "all", custom

        var title: String {
            switch self {
            case .last7: "Last 7 days"
            case .last30: "Last 30 days"
            case .last90: "Last 90 days"
            case .thisMonth: "This month"
            case .allTime: "All time"
            case .custom: "Choose dates"
            }
        }
    }

    enum Granularity: String, Sendable, CaseIterable {
        case day, week, month

        var title: String { rawValue.capitalized }
        /// The column of the aggregates that holds this granularity's bucket.
        var column: String { rawValue }
    }

    enum Comparison: String, Sendable, CaseIterable {
        case none, previous, cohorts

        var title: String {
            switch self {
            case .none: "No comparison"
            case .previous: "Against the period before"
            case .cohorts: "Cohort against cohort"
            }
        }
    }

    var range: Range = .last30
    var from: CalendarDate?
    var to: CalendarDate?
    var granularity: Granularity = .day
    var cohortIDs: [Int64] = []
    var comparison: Comparison = .none
    /// The survey whose results the survey graphs draw (the newest published one when none is chosen).
    var surveyID: Int64?
    /// What the researcher typed that could not be used, by field, with the choice used instead.
    var problems: [String: String] = [:]

    /// Reads the address's choices; anything that cannot be used is noted in `problems` and a sensible
    /// choice taken instead, so the page always draws something.
    init(query: [(String, String)], cohorts: [AnalyticsCohort]) {
        func value(_ name: String) -> String? { query.last { $0.0 == name }?.1.trimmingCharacters(in: .whitespaces) }
        if let text = value("range"), !text.isEmpty {
            if let range = Range(rawValue: text) { self.range = range } else { problems["range"] = "Choose one of the date ranges" }
        }
        if let text = value("by"), !text.isEmpty {
            if let granularity = Granularity(rawValue: text) { self.granularity = granularity } else { problems["by"] = "Choose day, week or month" }
        }
        if let text = value("compare"), !text.isEmpty {
            if let comparison = Comparison(rawValue: text) { self.comparison = comparison } else { problems["compare"] = "Choose a comparison" }
        }
        for (name, text) in query where name == "cohort" && !text.isEmpty {
            // A due month merged with others (`AnalyticsCohort.grouped`) stands for its group.
            if let id = Int64(text), let group = cohorts.first(where: { $0.cohortIDs.contains(id) }) {
                if !cohortIDs.contains(group.id) { cohortIDs.append(group.id) }
            } else {
                problems["cohort"] = "One of the cohorts chosen does not exist; it was left out"
            }
        }
        if range == .custom {
            from = value("from").flatMap(CalendarDate.init(iso:))
            to = value("to").flatMap(CalendarDate.init(iso:))
            if from == nil { problems["from"] = "Enter the first day as a date, like 2026-11-01" }
            if to == nil { problems["to"] = "Enter the last day as a date, like 2026-11-30" }
            if let from, let to, to < from { problems["to"] = "The last day must be on or after the first day" }
            if from == nil || to == nil || problems["to"] != nil { range = .last30 }
        }
        if let text = value("survey"), !text.isEmpty {
            if let id = Int64(text), id > 0 { surveyID = id } else { problems["survey"] = "Choose one of the surveys" }
        }
        if comparison == .cohorts, cohortIDs.count < 2 {
            problems["compare"] = "Choose two or more cohorts to compare them"
            comparison = .none
        }
    }

    /// The first and last day drawn, on the program's clock; `earliest` is the first day anything was
    /// recorded (for "All time").
    func period(today: CalendarDate, earliest: CalendarDate?) -> ClosedRange<AnalyticsDay> {
        let last = AnalyticsDay(today)
        switch range {
        case .last7: return AnalyticsDay(last.number - 6)...last
        case .last30: return AnalyticsDay(last.number - 29)...last
        case .last90: return AnalyticsDay(last.number - 89)...last
        case .thisMonth: return AnalyticsDay(CalendarDate(year: today.year, month: today.month, day: 1)!)...last
        case .allTime: return AnalyticsDay(min(earliest ?? today, today))...last
        case .custom:
            guard let from, let to else { return AnalyticsDay(last.number - 29)...last }
            return AnalyticsDay(from)...AnalyticsDay(to)
        }
    }

    /// The period of the same length that ends the day before `period` starts.
    static func previous(_ period: ClosedRange<AnalyticsDay>) -> ClosedRange<AnalyticsDay> {
        let length = period.upperBound.number - period.lowerBound.number + 1
        return AnalyticsDay(period.lowerBound.number - length)...AnalyticsDay(period.lowerBound.number - 1)
    }

    /// The address's query for these choices (for links, the CSV downloads and the form's values).
    var query: [(String, String)] {
        var items: [(String, String)] = [("range", range.rawValue)]
        if range == .custom, let from, let to { items += [("from", from.iso), ("to", to.iso)] }
        items.append(("by", granularity.rawValue))
        items += cohortIDs.map { ("cohort", String($0)) }
        items.append(("compare", comparison.rawValue))
        if let surveyID { items.append(("survey", String(surveyID))) }
        return items
    }

    static func == (lhs: AnalyticsChoices, rhs: AnalyticsChoices) -> Bool {
        lhs.query.map { "\($0.0)=\($0.1)" } == rhs.query.map { "\($0.0)=\($0.1)" }
    }
}

/// The periods a graph's x axis runs through: days, weeks (from Monday) or months, each labelled.
struct AnalyticsBuckets: Sendable {
    struct Bucket: Sendable, Hashable {
        /// The day, week or month number, as the aggregates store it.
        let key: Int
        let label: String
    }

    let granularity: AnalyticsChoices.Granularity
    let buckets: [Bucket]

    init(_ period: ClosedRange<AnalyticsDay>, by granularity: AnalyticsChoices.Granularity) {
        self.granularity = granularity
        let first = period.lowerBound, last = period.upperBound
        switch granularity {
        case .day:
            buckets = (first.number...max(first.number, last.number)).map { Bucket(key: $0, label: Self.short(AnalyticsDay($0).date)) }
        case .week:
            buckets = (first.week...max(first.week, last.week)).map { week in
                Bucket(key: week, label: "Week of " + Self.short(max(AnalyticsDay.firstDay(ofWeek: week), first).date))
            }
        case .month:
            buckets = (first.month...max(first.month, last.month)).map { month in
                Bucket(key: month, label: "\(CalendarDate.monthNames[month % 12].prefix(3)) \(month / 12)")
            }
        }
    }

    /// "3 Nov"; with the year where it is not this year's would be ambiguous across a long range.
    static func short(_ date: CalendarDate) -> String {
        "\(date.day) \(CalendarDate.monthNames[date.month - 1].prefix(3)) \(date.year)"
    }

    var labels: [String] { buckets.map(\.label) }
}
