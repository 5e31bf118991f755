import Foundation
import PortalPlatform

/// Daily adherence as bars under a 100% line: the geometry the template draws, in the SVG's units.
/// Each bar carries its day and percentage, and the table beneath holds the same numbers.
struct DailyAdherenceChart: Fragment {
    static let template = TemplateName.patientChartDaily

    struct Bar: Sendable, Hashable, Encodable {
        let iso: String
        let label: String
        let percent: Int
        let done: Int
        let scheduled: Int
        let x: Int
        let y: Int
        let width: Int
        let height: Int
    }

    struct NothingDue: Sendable, Hashable, Encodable {
        let label: String
        let x: Int
        let y: Int
    }

    struct Tick: Sendable, Hashable, Encodable {
        let label: String
        let position: Int
    }

    struct Row: Sendable, Hashable, Encodable {
        let date: String
        let scheduled: Int
        let done: Int
        let missed: Int
        let notLogged: Int
        let percent: String
    }

    let title: String
    let titleID: String
    let bars: [Bar]
    let nothingDue: [NothingDue]
    let xTicks: [Tick]
    let yTicks: [Tick]
    let rows: [Row]
    let width = Self.width
    let height = Self.height
    let plotLeft = Self.plotLeft
    let plotRight = Self.plotRight
    let plotTop = Self.plotTop
    let plotBottom = Self.plotBottom
    let xAxisTitleX = (Self.plotLeft + Self.plotRight) / 2
    let xAxisTitleY = Self.height - 6
    let yAxisTitleY = (Self.plotTop + Self.plotBottom) / 2

    static let width = 800
    static let height = 300
    static let plotLeft = 70
    static let plotRight = 780
    static let plotTop = 20
    static let plotBottom = 230

    /// The bar's height for a percentage: the chart's scale, which the tests check against the table.
    static func barHeight(percent: Int) -> Int { percent * (plotBottom - plotTop) / 100 }

    init(_ summary: AdherenceSummary, titleID: String = "daily-chart-title") {
        self.titleID = titleID
        title = "Daily adherence, \(summary.from.displayed) to \(summary.through.displayed)"
        let count = max(1, summary.days.count)
        let slot = Double(Self.plotRight - Self.plotLeft) / Double(count)
        let barWidth = max(1, Int(slot * 0.7))
        var bars: [Bar] = []
        var nothingDue: [NothingDue] = []
        var xTicks: [Tick] = []
        let every = max(1, Int((Double(count) / 8).rounded(.up)))
        for (index, day) in summary.days.enumerated() {
            let center = Self.plotLeft + Int(slot * (Double(index) + 0.5))
            if let percent = day.count.percent {
                let height = Self.barHeight(percent: percent)
                bars.append(
                    Bar(
                        iso: day.day.iso,
                        label: day.day.displayed,
                        percent: percent,
                        done: day.count.done,
                        scheduled: day.count.scheduled,
                        x: center - barWidth / 2,
                        y: Self.plotBottom - height,
                        width: barWidth,
                        height: height
                    )
                )
            } else if count <= 62 {
                nothingDue.append(NothingDue(label: day.day.displayed, x: center, y: Self.plotBottom - 4))
            }
            if index % every == 0 { xTicks.append(Tick(label: day.day.weekdayAndDay, position: center)) }
        }
        self.bars = bars
        self.nothingDue = nothingDue
        self.xTicks = xTicks
        yTicks = stride(from: 0, through: 100, by: 25).map { Tick(label: "\($0)%", position: Self.plotBottom - Self.barHeight(percent: $0)) }
        rows = summary.days.map {
            Row(
                date: $0.day.displayed,
                scheduled: $0.count.scheduled,
                done: $0.count.done,
                missed: $0.count.missed,
                notLogged: $0.count.notLogged,
                percent: $0.count.percentText
            )
        }
    }
}

/// Adherence per medication and per exercise as horizontal bars, each labelled with its percentage.
struct ItemAdherenceChart: Fragment {
    static let template = TemplateName.patientChartItems

    struct Bar: Sendable, Hashable, Encodable {
        let name: String
        let kind: String
        let percent: Int
        let percentText: String
        let scheduled: Int
        let done: Int
        let missed: Int
        let notLogged: Int
        let y: Int
        let labelY: Int
        let width: Int
        let valueX: Int
    }

    let title: String
    let titleID: String
    let bars: [Bar]
    let height: Int
    let width = 800
    let labelWidth = Self.labelWidth
    let barRight = Self.labelWidth + Self.barArea
    let axisY: Int
    let axisLabelY: Int
    let referenceLabelX = Self.labelWidth + Self.barArea

    static let labelWidth = 250
    static let barArea = 380
    static let rowHeight = 34

    static func barWidth(percent: Int) -> Int { percent * barArea / 100 }

    init(_ summary: AdherenceSummary, titleID: String = "items-chart-title") {
        self.titleID = titleID
        title = "Adherence by medication and exercise, \(summary.from.displayed) to \(summary.through.displayed)"
        bars = summary.items.enumerated().map { index, item in
            let percent = item.count.percent ?? 0
            let y = 30 + index * Self.rowHeight
            let width = Self.barWidth(percent: percent)
            return Bar(
                name: item.name,
                kind: item.kind.title,
                percent: percent,
                percentText: item.count.percentText,
                scheduled: item.count.scheduled,
                done: item.count.done,
                missed: item.count.missed,
                notLogged: item.count.notLogged,
                y: y,
                labelY: y + 18,
                width: width,
                valueX: Self.labelWidth + Self.barArea + 10
            )
        }
        axisY = 30 + bars.count * Self.rowHeight + 4
        axisLabelY = axisY + 20
        height = axisLabelY + 16
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
