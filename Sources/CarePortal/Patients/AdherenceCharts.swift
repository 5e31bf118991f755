import Foundation
import PortalPlatform

/// A span's adherence drawn with the shared chart kinds, each chart with the table of the same numbers
/// the page shows beneath it (`patients/daily-table`, `patients/items-table`).
struct AdherenceFigures: Sendable, Hashable, Encodable {
    struct Day: Sendable, Hashable, Encodable {
        let date: String
        let scheduled: Int
        let done: Int
        let missed: Int
        let notLogged: Int
        let percent: String
    }

    struct Item: Sendable, Hashable, Encodable {
        let name: String
        let kind: String
        let scheduled: Int
        let done: Int
        let missed: Int
        let notLogged: Int
        let percentText: String
    }

    let dailyTitle: String
    let dailyChart: RenderedHTML
    let days: [Day]
    let itemsTitle: String
    let itemsChart: RenderedHTML
    let items: [Item]

    init(_ summary: AdherenceSummary, pages: PageRenderer) {
        let daily = Self.dailyChart(summary)
        let byItem = Self.itemChart(summary)
        dailyTitle = daily.description.title
        dailyChart = pages.html(Self.besideTable(daily.figure))
        days = summary.days.map {
            Day(
                date: $0.day.displayed,
                scheduled: $0.count.scheduled,
                done: $0.count.done,
                missed: $0.count.missed,
                notLogged: $0.count.notLogged,
                percent: $0.count.percentText
            )
        }
        itemsTitle = byItem.description.title
        itemsChart = pages.html(Self.besideTable(byItem.figure))
        items = summary.items.map {
            Item(
                name: $0.name,
                kind: $0.kind.title,
                scheduled: $0.count.scheduled,
                done: $0.count.done,
                missed: $0.count.missed,
                notLogged: $0.count.notLogged,
                percentText: $0.count.percentText
            )
        }
    }

    /// Above 62 days the columns are too narrow for a dash each on the days with nothing due.
    static let markedGapsUpTo = 62

    /// Each day's share of its scheduled doses and sessions logged as done, as a column on a 0–100% scale.
    static func dailyChart(_ summary: AdherenceSummary) -> ColumnChart {
        ColumnChart(
            ChartDescription(
                id: "daily",
                title: "Daily adherence, \(summary.from.displayed) to \(summary.through.displayed)",
                summary:
                    "Each column is the share of that day’s scheduled doses and exercise sessions logged as done. A dash marks a day with nothing due.",
                valueTitle: "Doses and sessions done (%)",
                categoryTitle: "Day"
            ),
            categories: summary.days.map(\.day.weekdayAndDay),
            series: [
                ChartSeries(
                    "Done",
                    summary.days.map { day in
                        ChartValue(
                            day.count.percent.map(Double.init),
                            text: day.count.percent.map { "\($0)% (\(day.count.done) of \(day.count.scheduled) done)" } ?? "nothing due"
                        )
                    }
                )
            ],
            maximum: 100,
            gapMark: summary.days.count <= markedGapsUpTo ? "–" : nil
        )
    }

    /// Each medication's and exercise's share of its scheduled doses and sessions logged as done.
    static func itemChart(_ summary: AdherenceSummary) -> BarChart {
        BarChart(
            ChartDescription(
                id: "items",
                title: "Adherence by medication and exercise, \(summary.from.displayed) to \(summary.through.displayed)",
                summary: "Each bar is the share of that medication’s or exercise’s scheduled doses and sessions logged as done.",
                valueTitle: "Doses and sessions done (%)",
                categoryTitle: "Medication or exercise"
            ),
            categories: summary.items.map(\.name),
            series: [
                ChartSeries(
                    "Done",
                    summary.items.map {
                        ChartValue($0.count.percent.map(Double.init), text: "\($0.count.percentText) (\($0.count.done) of \($0.count.scheduled))")
                    }
                )
            ],
            maximum: 100
        )
    }

    /// The page writes the table, with more columns than the chart draws.
    private static func besideTable(_ figure: ChartFigure) -> ChartFigure {
        var figure = figure
        figure.tableBeneath = false
        return figure
    }
}

/// One month as a calendar, each day shaded by its adherence band and labelled with its percentage.
struct AdherenceCalendar: Fragment {
    static let template = TemplateName.patientChartCalendar

    struct Cell: Sendable, Hashable, Encodable {
        let day: Int
        let iso: String
        let label: String
        let percentText: String
        let band: String
        let x: Int
        let y: Int
        let textX: Int
        let dayY: Int
        let valueY: Int
    }

    struct Heading: Sendable, Hashable, Encodable {
        let name: String
        let x: Int
    }

    struct LegendItem: Sendable, Hashable, Encodable {
        let band: String
        let title: String
        let x: Int
        let textX: Int
    }

    let title: String
    let titleID: String
    let monthName: String
    let cells: [Cell]
    let headings: [Heading]
    let legend: [LegendItem]
    let height: Int
    let legendY: Int
    let legendTextY: Int
    let width = 7 * Self.cellWidth + 20
    let cellWidth = Self.cellWidth - 4
    let cellHeight = Self.cellHeight - 4
    let previousPath: String?
    let nextPath: String?

    static let cellWidth = 110
    static let cellHeight = 64

    /// The shading band of a percentage; the legend names each, and every cell also shows its number.
    static func band(_ percent: Int?) -> String {
        guard let percent else { return "none" }
        switch percent {
        case 100: return "full"
        case 80..<100: return "high"
        case 50..<80: return "medium"
        default: return "low"
        }
    }

    init(
        month: CalendarDate,
        summary: AdherenceSummary,
        today: CalendarDate,
        previousPath: String?,
        nextPath: String?,
        titleID: String = "calendar-title"
    ) {
        self.titleID = titleID
        monthName = "\(CalendarDate.monthNames[month.month - 1]) \(month.year)"
        title = "Adherence each day of \(monthName)"
        self.previousPath = previousPath
        self.nextPath = nextPath
        let counts = Dictionary(summary.days.map { ($0.day.dayNumber, $0.count) }, uniquingKeysWith: { first, _ in first })
        let first = month.firstOfMonth
        let offset = first.weekdayFromMonday
        let days = CalendarDate.daysIn(month: month.month, year: month.year)
        headings = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].enumerated().map {
            Heading(name: $0.element, x: 10 + $0.offset * Self.cellWidth + Self.cellWidth / 2)
        }
        cells = (0..<days).map { index in
            let date = first.adding(days: index)
            let position = offset + index
            let x = 10 + (position % 7) * Self.cellWidth
            let y = 30 + (position / 7) * Self.cellHeight
            let count = counts[date.dayNumber]
            let percent = count?.percent
            return Cell(
                day: date.day,
                iso: date.iso,
                label: date.displayed,
                // Today is still under way: its figure so far says so.
                percentText: count == nil ? "" : (percent.map { "\($0)%\(date == today ? " so far" : "")" } ?? "none due"),
                band: count == nil ? "outside" : Self.band(percent),
                x: x,
                y: y,
                textX: x + 8,
                dayY: y + 20,
                valueY: y + 46
            )
        }
        let weeks = (offset + days + 6) / 7
        legendY = 30 + weeks * Self.cellHeight + 10
        legendTextY = legendY + 15
        height = legendY + 30
        legend = [("full", "100%"), ("high", "80–99%"), ("medium", "50–79%"), ("low", "Under 50%"), ("none", "Nothing due")]
            .enumerated().map { LegendItem(band: $0.element.0, title: $0.element.1, x: 10 + $0.offset * 150, textX: 10 + $0.offset * 150 + 26) }
    }
}
