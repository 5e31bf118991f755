import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The shared chart module: what it draws matches the numbers, every word stays inside the drawing, and
/// everything a person typed is escaped.
@Suite struct ChartTests {
    static let longName = "Due September 2027 — the cohort with the longest name anyone has ever given a cohort"

    /// Where a label's text starts and ends along x, by the same estimate the charts lay out with.
    static func extent(_ label: ChartFigure.Label) -> ClosedRange<Double> {
        let size =
            label.className == "chart__tick"
            ? ChartGeometry.tickSize
            : label.className == "chart__axis-title" ? ChartGeometry.titleSize : ChartGeometry.labelSize
        let width = ChartGeometry.textWidth(label.text, size: size)
        if label.rotation != nil { return (label.x - size)...(label.x + size) }
        switch label.anchor {
        case "end": return (label.x - width)...label.x
        case "middle": return (label.x - width / 2)...(label.x + width / 2)
        default: return label.x...(label.x + width)
        }
    }

    /// Coordinates are written from their whole tenths: the same text Foundation's "%.1f" gives the rounded value.
    @Test func coordinatesAreWrittenAsFoundationWouldWriteThemToOneDecimalPlace() {
        var values: [Double] = [
            0, 0.04, 0.05, 0.06, -0.04, -0.05, -0.06, 0.25, -0.25, 1.15, 2.35, -2.35, 99.95, 123.456, -123.456, 640, 1e9 + 0.3, -0.5
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { values.append(Double.random(in: -2_000...2_000, using: &generator)) }
        for tenths in -30_000...30_000 { values.append(Double(tenths) / 10) }
        for value in values {
            let rounded = (value * 10).rounded() / 10
            let expected = rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
            #expect(ChartGeometry.number(value) == expected, "\(value)")
        }
    }

    static func expectEveryLabelInside(_ figure: ChartFigure, sourceLocation: SourceLocation = #_sourceLocation) {
        for label in figure.labels {
            let span = extent(label)
            #expect(
                span.lowerBound >= 0 && span.upperBound <= figure.width,
                "\(figure.id): \"\(label.text)\" spans \(span) of \(figure.width) \(label)",
                sourceLocation: sourceLocation
            )
            #expect(
                label.y > 0 && label.y <= figure.height,
                "\(figure.id): \"\(label.text)\" at y \(label.y) \(figure.labels)",
                sourceLocation: sourceLocation
            )
        }
        for box in figure.boxes {
            #expect(
                box.x >= 0 && box.x + box.width <= figure.width + 0.1 && box.y >= 0 && box.y + box.height <= figure.height,
                "\(figure.id): a box at \(box.x), \(box.y) leaves the drawing",
                sourceLocation: sourceLocation
            )
        }
    }

    @Test func barLengthsAreProportionalToTheirValues() throws {
        let figure = BarChart(
            ChartDescription(id: "t", title: "Answers", summary: "How members answered.", valueTitle: "Members", categoryTitle: "Answer"),
            categories: ["Yes", "No", "Not sure"],
            series: [ChartSeries("Members", [.count(10), .count(5), .count(0)])]
        ).figure
        let bars = figure.boxes.filter { $0.tooltip != nil }
        #expect(bars.count == 3)
        #expect(abs(bars[0].width - 2 * bars[1].width) < 0.3)
        #expect(bars[2].width == 0)
        #expect(figure.table.rows.map { $0.cells.map(\.text) } == [["Yes", "10"], ["No", "5"], ["Not sure", "0"]])
        #expect(figure.labels.contains { $0.text == "Yes" } && figure.labels.contains { $0.text == "10" })
        Self.expectEveryLabelInside(figure)
    }

    @Test func aLabelTooLongForItsRoomIsShortenedAndKeptWhole() {
        let figure = BarChart(
            ChartDescription(id: "long", title: "Members per cohort", summary: "Members.", valueTitle: "Members", categoryTitle: "Cohort"),
            categories: [Self.longName, "Due May 2027"],
            series: [ChartSeries("Members", [.count(1_234_567), .count(3)]), ChartSeries("Active", [.count(12), .count(1)])]
        ).figure
        let shortened = figure.labels.first { $0.fullText == Self.longName }
        #expect(shortened?.text.hasSuffix("…") == true)
        #expect(figure.table.rows[0].cells[0].text == Self.longName)
        #expect(figure.table.rows[0].cells[1].text == "1,234,567")
        // Two series: a legend names both, each with its own pattern.
        #expect(figure.patterns.count == 2 && Set(figure.patterns.map(\.id)).count == 2)
        #expect(figure.labels.contains { $0.text == "Active" })
        Self.expectEveryLabelInside(figure)
    }

    @Test func stackedColumnsAddUpAndGroupedColumnsStandSideBySide() {
        let days = (1...90).map { "Nov \($0)" }
        let series = [
            ChartSeries("Positive", days.indices.map { .count($0 % 7) }),
            ChartSeries("Negative", days.indices.map { .count($0 % 3) })
        ]
        let stacked = ColumnChart(
            ChartDescription(id: "moods", title: "Moods by day", summary: "Moods.", valueTitle: "Moods shared", categoryTitle: "Day"),
            categories: days,
            series: series,
            stacked: true
        ).figure
        // Day 6 has 6 + 0; day 5 has 5 + 2: the stack's top is the sum, on the same scale.
        let day5 = stacked.boxes.filter { $0.tooltip?.hasPrefix("Nov 6,") == true }
        #expect(day5.count == 2)
        let day6 = stacked.boxes.filter { $0.tooltip?.hasPrefix("Nov 7,") == true }
        #expect(day6.count == 1)
        let unit = day6[0].height / 6
        #expect(abs(day5.map(\.height).reduce(0, +) - 7 * unit) < 0.5)
        // Ninety days: not every day is labelled, but the labels shown never crowd out of the drawing.
        #expect(stacked.labels.filter { $0.className == "chart__tick" && $0.text.hasPrefix("Nov") }.count < 90)
        Self.expectEveryLabelInside(stacked)

        let grouped = ColumnChart(
            ChartDescription(id: "g", title: "Moods", summary: "Moods.", valueTitle: "Moods shared", categoryTitle: "Day"),
            categories: Array(days.prefix(3)),
            series: series
        ).figure
        let first = grouped.boxes.filter { $0.tooltip?.hasPrefix("Nov 2,") == true }
        #expect(first.count == 2 && first[0].x < first[1].x)
        Self.expectEveryLabelInside(grouped)
    }

    @Test func aColumnWithoutANumberIsMarkedAndAKnownMaximumTopsTheAxis() {
        let figure = ColumnChart(
            ChartDescription(id: "gaps", title: "Done each day", summary: "Done.", valueTitle: "Done (%)", categoryTitle: "Day"),
            categories: ["Mon", "Tue", "Wed"],
            series: [ChartSeries("Done", [.number(50, decimals: 0), ChartValue(nil, text: "nothing due"), .number(25, decimals: 0)])],
            maximum: 100,
            gapMark: "–"
        ).figure
        let marks = figure.labels.filter { $0.text == "–" }
        #expect(marks.map(\.fullText) == ["Tue: nothing due"], "the gap is marked, its words in the tooltip")
        #expect(figure.labels.contains { $0.className == "chart__tick" && $0.text == "100" }, "the axis reaches 100 though no value does")
        let columns = figure.boxes.filter { $0.tooltip != nil }
        #expect(columns.map(\.tooltip) == ["Mon: 50", "Wed: 25"])
        #expect(abs(columns[0].height - 2 * columns[1].height) <= 0.1)
        Self.expectEveryLabelInside(figure)

        let unmarked = ColumnChart(
            ChartDescription(id: "plain", title: "Done each day", summary: "Done.", valueTitle: "Done", categoryTitle: "Day"),
            categories: ["Mon", "Tue"],
            series: [ChartSeries("Done", [.count(3), ChartValue(nil, text: "fewer than 5")])]
        ).figure
        #expect(!unmarked.labels.contains { $0.fullText?.hasPrefix("Tue") == true }, "without a mark a gap stays empty")

        let bars = BarChart(
            ChartDescription(id: "share", title: "Done by item", summary: "Done.", valueTitle: "Done (%)", categoryTitle: "Item"),
            categories: ["A", "B"],
            series: [ChartSeries("Done", [.number(40, decimals: 0), .number(20, decimals: 0)])],
            maximum: 100
        ).figure
        #expect(bars.labels.contains { $0.className == "chart__tick" && $0.text == "100" })
    }

    @Test func linesBreakWhereAValueIsWithheldAndNameThemselves() {
        let figure = LineChart(
            ChartDescription(
                id: "share",
                title: "Share of negative moods",
                summary: "The share of negative moods.",
                valueTitle: "Share of moods (%)",
                categoryTitle: "Week"
            ),
            categories: ["Week 1", "Week 2", "Week 3", "Week 4"],
            series: [
                ChartSeries("This period", [.share(0.2), ChartValue(nil, text: "fewer than 5"), .share(0.4), .share(0.1)]),
                ChartSeries("The period before", [.share(0.3), .share(0.3), .share(0.3), .share(0.3)])
            ],
            maximum: 100
        ).figure
        let line = figure.strokes.first { $0.className == "chart__series" }!
        #expect(line.path.filter { $0 == "M" }.count == 2, "the line is lifted over the withheld week")
        #expect(figure.marks.count == 7)
        #expect(figure.table.rows[1].cells.map(\.text) == ["Week 2", "fewer than 5", "30%"])
        #expect(figure.labels.contains { $0.text == "The period before" }, "each line is named where it ends")
        #expect(Set(figure.strokes.filter { $0.className == "chart__series" }.map { $0.dashes ?? "" }).count == 2)
        Self.expectEveryLabelInside(figure)
    }

    @Test func divergingBarsPutLowAnswersLeftAndHighAnswersRightOfTheCentre() throws {
        let figure = DivergingBarChart(
            ChartDescription(
                id: "likert",
                title: "How supported do you feel?",
                summary: "Answers on a scale of 1 to 5.",
                valueTitle: DivergingBarChart.shareOfAnswers,
                categoryTitle: "Question"
            ),
            levels: ["1 Not at all", "2", "3", "4", "5 Very"],
            rows: [.init(label: "Supported by the group", counts: [2, 2, 2, 2, 2]), .init(label: "No one yet", counts: [0, 0, 0, 0, 0])]
        ).figure
        let bars = figure.boxes.filter { $0.tooltip?.hasPrefix("Supported") == true }
        #expect(bars.count == 5)
        let centre = (bars.map(\.x).min()! + bars.map { $0.x + $0.width }.max()!) / 2
        let low = bars.first { $0.tooltip!.contains("1 Not at all") }!
        let high = bars.first { $0.tooltip!.contains("5 Very") }!
        let middle = bars.first { $0.tooltip!.contains(", 3:") }!
        #expect(low.x + low.width <= centre && high.x >= centre)
        #expect(middle.x < centre && middle.x + middle.width > centre)
        let note = try #require(figure.labels.first { $0.text == "No answers yet" })
        // The centre line and the grid run past the row with words, not through them.
        let lines = figure.strokes.filter { ["chart__axis", "chart__grid"].contains($0.className) }
        #expect(lines.count == 5)
        for line in lines {
            let ends = line.path.split { !"0123456789.-".contains($0) }.compactMap { Double($0) }
            let spans = stride(from: 0, to: ends.count - 3, by: 4).map { min(ends[$0 + 1], ends[$0 + 3])...max(ends[$0 + 1], ends[$0 + 3]) }
            #expect(!spans.isEmpty && spans.allSatisfy { !$0.contains(note.y) && !$0.contains(note.y - 12) }, "\(line.path)")
            #expect(spans.contains { $0.contains(bars[0].y + 11) }, "it runs across the row with a bar: \(line.path)")
        }
        #expect(figure.table.rows[0].cells.map(\.text) == ["Supported by the group", "2 (20%)", "2 (20%)", "2 (20%)", "2 (20%)", "2 (20%)", "10"])
        Self.expectEveryLabelInside(figure)
    }

    @Test func anEmptyChartStillHasAnAxis() {
        let figure = ColumnChart(
            ChartDescription(id: "empty", title: "Nothing yet", summary: "No data.", valueTitle: "Count", categoryTitle: "Day"),
            categories: [],
            series: []
        ).figure
        #expect(figure.strokes.contains { $0.className == "chart__axis" })
        Self.expectEveryLabelInside(figure)
    }

    @Test(arguments: TestEngines.all)
    func whatPeopleTypedIsEscapedInTheDrawingAndTheTable(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let html = portal.portal.pages.html(
                BarChart(
                    ChartDescription(
                        id: "x",
                        title: "Cohort <b>\"names\"</b>",
                        summary: "It's <i>escaped</i>.",
                        valueTitle: "Members",
                        categoryTitle: "Cohort"
                    ),
                    categories: ["<script>alert(1)</script>"],
                    series: [ChartSeries("A&B", [.count(3)])]
                ).figure
            ).markup
            #expect(!html.contains("<script>") && !html.contains("<b>") && !html.contains("<i>"))
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(html.contains("aria-labelledby=\"x-title x-summary\""))
            #expect(html.contains("<desc id=\"x-summary\">It&#39;s &lt;i&gt;escaped&lt;/i&gt;.</desc>"))
            #expect(html.contains("<th class=\"table__cell\" scope=\"row\">&lt;script&gt;"))
        }
    }

    /// Charts are written in Swift (`ChartFigure.drawnHTML`); the shared template stays the reference
    /// for their markup, and the two write the same elements, attributes and text.
    @Test(arguments: TestEngines.all)
    func theDrawnChartIsWhatItsTemplateWrites(engine: Database.Engine) async throws {
        let days = (1...40).map { "Nov \($0) <\"&'>" }
        var withoutTable = BarChart(
            ChartDescription(
                id: "b",
                title: "Cohort <b>\"names\"</b>",
                summary: "It's <i>escaped</i>.",
                valueTitle: "Members",
                categoryTitle: "Cohort"
            ),
            categories: [Self.longName, "<script>"],
            series: [ChartSeries("A&B", [.count(3), .count(7)]), ChartSeries("C", [.count(1), ChartValue(nil, text: "fewer than 5")])]
        ).figure
        withoutTable.tableBeneath = false
        let figures = [
            withoutTable,
            ColumnChart(
                ChartDescription(
                    id: "moods",
                    title: "Moods by day",
                    summary: "Moods.",
                    valueTitle: "Moods shared",
                    categoryTitle: "Day",
                    csvPath: "/analytics/moods.csv?by=day&x=\"1\""
                ),
                categories: days,
                series: (0..<8).map { index in ChartSeries("Mood \(index)", days.indices.map { .count(($0 + index) % 9) }) },
                stacked: true
            ).figure,
            LineChart(
                ChartDescription(id: "share", title: "Share", summary: "The share.", valueTitle: "Share of moods (%)", categoryTitle: "Week"),
                categories: ["Week 1", "Week 2", "Week 3"],
                series: [
                    ChartSeries("This period", [.share(0.2), ChartValue(nil, text: "fewer than 5"), .share(0.4)]),
                    ChartSeries("Before", [.share(0.3), .share(0.3), .share(0.3)])
                ],
                maximum: 100
            ).figure,
            DivergingBarChart(
                ChartDescription(
                    id: "likert",
                    title: "How supported?",
                    summary: "Answers 1 to 5.",
                    valueTitle: DivergingBarChart.shareOfAnswers,
                    categoryTitle: "Question"
                ),
                levels: ["1 Not at all", "2", "3", "4", "5 Very"],
                rows: [.init(label: "Supported", counts: [2, 1, 0, 3, 4])]
            ).figure
        ]
        // Whitespace between elements is the template's layout, not markup.
        @Sendable func markup(_ html: String) -> String {
            html.replacingOccurrences(of: #">\s+<"#, with: "><", options: .regularExpression).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try await TestPortal.run(engine) { portal in
            let pages = portal.portal.pages
            let remembered = pages.fragments.count
            for figure in figures {
                let template = try #require(pages.library.render(TemplateValues.box(figure), withTemplate: ChartFigure.template.rawValue))
                let drawn = try #require(figure.drawnHTML())
                #expect(markup(drawn) == markup(template), "\(figure.id)")
                #expect(pages.html(figure).markup == drawn, "pages draw charts in Swift")
            }
            #expect(pages.fragments.count == remembered, "charts are drawn each time, not kept in the fragment cache")
        }
    }
}
