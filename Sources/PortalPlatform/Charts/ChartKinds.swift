import Foundation

/// Horizontal bars, one group per category (a survey question's answers, the sections used most, the
/// cohorts): the category's name on the left, each bar's value at its end.
package struct BarChart: Sendable {
    package var description: ChartDescription
    package var categories: [String]
    package var series: [ChartSeries]
    /// The value axis's largest value, where it is known (100 for percentages); otherwise from the data.
    package var maximum: Double?

    package init(_ description: ChartDescription, categories: [String], series: [ChartSeries], maximum: Double? = nil) {
        self.description = description
        self.categories = categories
        self.series = series
        self.maximum = maximum
    }

    package var figure: ChartFigure {
        let g = ChartGeometry.self
        let patterns = g.patterns(chartID: description.id, count: series.count)
        let legend = g.legend(series.map(\.name), patterns: patterns, top: 10)
        let top = 10 + legend.height
        let labelRoom = min(300, max(60, categories.map { g.textWidth($0, size: g.labelSize) }.max() ?? 0))
        let plotLeft = 10 + labelRoom + 10
        let valueRoom = min(200, (series.flatMap(\.values).map { g.textWidth($0.text, size: g.labelSize) }.max() ?? 0) + 12)
        let plotRight = g.width - 10 - valueRoom
        let barHeight = 22.0
        let groupHeight = Double(max(1, series.count)) * (barHeight + 4) + 14
        let plotTop = top + 6
        let plotBottom = plotTop + groupHeight * Double(max(1, categories.count))
        let largest = series.flatMap(\.values).compactMap(\.number).max() ?? 0
        let ticks = g.ticks(upTo: max(maximum ?? 0, largest))
        let axisTop = ticks.last ?? 1
        let scale = { (value: Double) in plotLeft + (plotRight - plotLeft) * value / axisTop }

        var strokes: [ChartFigure.Stroke] = []
        var labels = legend.labels
        var boxes = legend.boxes
        for tick in ticks {
            let x = scale(tick)
            strokes.append(.init(path: g.line(x, plotTop, x, plotBottom), className: "chart__grid", colour: nil, dashes: nil))
            labels.append(
                g.label(
                    ChartFormat.decimal(tick, places: tick == tick.rounded() ? 0 : 1),
                    x: x,
                    y: plotBottom + 20,
                    anchor: "middle",
                    className: "chart__tick",
                    size: g.tickSize
                )
            )
        }
        for (row, category) in categories.enumerated() {
            let groupTop = plotTop + groupHeight * Double(row) + 7
            let groupMiddle = groupTop + (groupHeight - 14) / 2
            labels.append(g.label(category, x: plotLeft - 10, y: groupMiddle + 5, anchor: "end", room: labelRoom))
            for (index, run) in series.enumerated() where row < run.values.count {
                let value = run.values[row]
                let y = groupTop + Double(index) * (barHeight + 4)
                let end = scale(max(0, value.number ?? 0))
                let tooltip = series.count > 1 ? "\(category), \(run.name): \(value.text)" : "\(category): \(value.text)"
                if value.number != nil {
                    boxes.append(
                        .init(x: plotLeft, y: y, width: end - plotLeft, height: barHeight, fill: "url(#\(patterns[index].id))", tooltip: tooltip)
                    )
                }
                labels.append(g.label(value.text, x: end + 6, y: y + 16, className: "chart__value", room: g.width - 10 - end - 6))
            }
        }
        strokes.append(.init(path: g.line(plotLeft, plotTop, plotLeft, plotBottom), className: "chart__axis", colour: nil, dashes: nil))
        let height = plotBottom + 52
        labels.append(
            g.label(
                description.valueTitle,
                x: (plotLeft + plotRight) / 2,
                y: height - 10,
                anchor: "middle",
                className: "chart__axis-title",
                room: plotRight - plotLeft,
                size: g.titleSize
            )
        )
        return ChartFigure(
            description,
            width: g.width,
            height: height,
            patterns: patterns,
            strokes: strokes,
            boxes: boxes,
            marks: [],
            labels: labels,
            table: ChartTable.of(description, categories: categories, series: series)
        )
    }
}

/// Vertical columns along a run of categories, usually periods of time (days, weeks, months): side by
/// side for each series, or stacked into one column.
package struct ColumnChart: Sendable {
    package var description: ChartDescription
    package var categories: [String]
    package var series: [ChartSeries]
    package var stacked: Bool
    /// The value axis's largest value, where it is known (100 for percentages); otherwise from the data.
    package var maximum: Double?
    /// Written on the baseline where a value has no number (a dash where there was nothing to count),
    /// with the value's words as its tooltip, so a gap is not read as a zero; nil leaves gaps empty.
    package var gapMark: String?

    package init(
        _ description: ChartDescription,
        categories: [String],
        series: [ChartSeries],
        stacked: Bool = false,
        maximum: Double? = nil,
        gapMark: String? = nil
    ) {
        self.description = description
        self.categories = categories
        self.series = series
        self.stacked = stacked
        self.maximum = maximum
        self.gapMark = gapMark
    }

    package var figure: ChartFigure {
        let g = ChartGeometry.self
        let patterns = g.patterns(chartID: description.id, count: series.count)
        var axes = TimeAxes(description, categories: categories, series: series, stacked: stacked, endLabels: false, maximum: maximum)
        let slot = axes.slot
        let groupWidth = slot * 0.8
        var boxes = axes.boxes
        for (column, category) in categories.enumerated() {
            let left = axes.x(column) - groupWidth / 2
            var stackBase = 0.0
            for (index, run) in series.enumerated() where column < run.values.count {
                let value = run.values[column]
                let tooltip = series.count > 1 ? "\(category), \(run.name): \(value.text)" : "\(category): \(value.text)"
                if value.number == nil, let gapMark {
                    axes.labels.append(
                        ChartFigure.Label(
                            x: axes.x(column),
                            y: axes.plotBottom - 4,
                            text: gapMark,
                            anchor: "middle",
                            className: "chart__tick",
                            rotation: nil,
                            fullText: tooltip
                        )
                    )
                }
                guard let number = value.number, number > 0 else { continue }
                let fill = "url(#\(patterns[index].id))"
                if stacked {
                    let top = axes.y(stackBase + number)
                    boxes.append(.init(x: left, y: top, width: groupWidth, height: axes.y(stackBase) - top, fill: fill, tooltip: tooltip))
                    stackBase += number
                } else {
                    let width = groupWidth / Double(series.count)
                    let top = axes.y(number)
                    boxes.append(
                        .init(
                            x: left + width * Double(index),
                            y: top,
                            width: max(1, width - 1),
                            height: axes.plotBottom - top,
                            fill: fill,
                            tooltip: tooltip
                        )
                    )
                }
            }
        }
        axes.boxes = boxes
        return axes.figure(patterns: patterns, marks: [])
    }
}

/// Lines through a run of categories, usually periods of time; each series has its own colour, dash and
/// point shape, and its name is written at the end of its line as well as in the legend.
package struct LineChart: Sendable {
    package var description: ChartDescription
    package var categories: [String]
    package var series: [ChartSeries]
    /// The value axis's largest value, where it is known (100 for percentages); otherwise from the data.
    package var maximum: Double?

    package init(_ description: ChartDescription, categories: [String], series: [ChartSeries], maximum: Double? = nil) {
        self.description = description
        self.categories = categories
        self.series = series
        self.maximum = maximum
    }

    static let dashes: [String?] = [nil, "9 5", "3 4", "12 4 3 4", "6 3", "2 2"]

    package var figure: ChartFigure {
        let g = ChartGeometry.self
        let patterns = g.patterns(chartID: description.id, count: series.count)
        var axes = TimeAxes(description, categories: categories, series: series, stacked: false, endLabels: true, maximum: maximum)
        var marks: [ChartFigure.Mark] = []
        var endPoints: [(index: Int, y: Double)] = []
        for (index, run) in series.enumerated() {
            let colour = g.colours[index % g.colours.count]
            var path = ""
            var penDown = false
            var last: Double?
            for (column, value) in run.values.enumerated() where column < categories.count {
                guard let number = value.number else {
                    penDown = false
                    continue
                }
                let x = axes.x(column)
                let y = axes.y(number)
                path += (penDown ? "L" : "M") + "\(g.number(x)) \(g.number(y))"
                penDown = true
                last = y
                let tooltip = series.count > 1 ? "\(categories[column]), \(run.name): \(value.text)" : "\(categories[column]): \(value.text)"
                marks.append(.init(path: Self.shape(index, x: x, y: y), colour: colour, tooltip: tooltip))
            }
            if !path.isEmpty {
                axes.strokes.append(.init(path: path, className: "chart__series", colour: colour, dashes: Self.dashes[index % Self.dashes.count]))
            }
            if let last { endPoints.append((index, last)) }
        }
        if series.count > 1 {
            let placed = g.spread(endPoints.map { $0.y + 5 }, gap: 18, top: axes.plotTop + 5, bottom: axes.plotBottom + 5)
            for (position, end) in zip(placed, endPoints) {
                axes.labels.append(
                    g.label(
                        series[end.index].name,
                        x: axes.plotRight + 8,
                        y: position,
                        className: "chart__value",
                        room: g.width - 10 - axes.plotRight - 8
                    )
                )
            }
        }
        return axes.figure(patterns: patterns, marks: marks)
    }

    /// The point shape of series `index`: circle, square, diamond, triangle, then again.
    static func shape(_ index: Int, x: Double, y: Double) -> String {
        let n = ChartGeometry.number
        switch index % 4 {
        case 0: return "M\(n(x - 4.5)) \(n(y))a4.5 4.5 0 1 0 9 0a4.5 4.5 0 1 0 -9 0Z"
        case 1: return "M\(n(x - 4)) \(n(y - 4))h8v8h-8Z"
        case 2: return "M\(n(x)) \(n(y - 5.5))l5.5 5.5l-5.5 5.5l-5.5 -5.5Z"
        default: return "M\(n(x)) \(n(y - 5.5))l5.5 9.5h-11Z"
        }
    }
}

/// The axes that column and line charts share: categories along the bottom, values up the side.
struct TimeAxes {
    let categories: [String]
    let plotLeft: Double
    let plotRight: Double
    let plotTop: Double
    let plotBottom: Double
    let height: Double
    let topValue: Double
    let series: [ChartSeries]
    let description: ChartDescription
    var strokes: [ChartFigure.Stroke] = []
    var boxes: [ChartFigure.Box] = []
    var labels: [ChartFigure.Label] = []

    init(_ description: ChartDescription, categories: [String], series: [ChartSeries], stacked: Bool, endLabels: Bool, maximum: Double?) {
        let g = ChartGeometry.self
        self.description = description
        self.categories = categories
        let patterns = g.patterns(chartID: description.id, count: series.count)
        let legend = g.legend(series.map(\.name), patterns: patterns, top: 10)
        boxes = legend.boxes
        labels = legend.labels
        let largest: Double =
            if stacked {
                categories.indices.map { column in
                    series.reduce(0) { $0 + max(0, (column < $1.values.count ? $1.values[column].number : nil) ?? 0) }
                }.max() ?? 0
            } else {
                series.flatMap(\.values).compactMap(\.number).max() ?? 0
            }
        let ticks = g.ticks(upTo: max(maximum ?? 0, largest))
        topValue = ticks.last ?? 1
        let tickTexts = ticks.map { ChartFormat.decimal($0, places: $0 == $0.rounded() ? 0 : 1) }
        let tickRoom = tickTexts.map { g.textWidth($0, size: g.tickSize) }.max() ?? 0
        plotLeft = 10 + 22 + tickRoom + 10
        let endRoom =
            endLabels && series.count > 1
            ? min(180, (series.map { g.textWidth($0.name, size: g.labelSize) }.max() ?? 0) + 16) : 10
        plotRight = g.width - 10 - endRoom
        plotTop = 10 + legend.height + 10
        plotBottom = plotTop + 240
        height = plotBottom + 64
        self.series = series

        let scale = { [plotTop, plotBottom, topValue] (value: Double) in plotBottom - (plotBottom - plotTop) * value / topValue }
        let axis = g.verticalValueAxis(
            ticks: ticks,
            format: { ChartFormat.decimal($0, places: $0 == $0.rounded() ? 0 : 1) },
            scale: scale,
            left: plotLeft,
            right: plotRight
        )
        strokes += axis.strokes
        labels += axis.labels
        strokes.append(.init(path: g.line(plotLeft, plotBottom, plotRight, plotBottom), className: "chart__axis", colour: nil, dashes: nil))
        strokes.append(.init(path: g.line(plotLeft, plotTop, plotLeft, plotBottom), className: "chart__axis", colour: nil, dashes: nil))
        let slot = (plotRight - plotLeft) / Double(max(1, categories.count))
        let stride = g.labelStride(categories, length: plotRight - plotLeft, size: g.tickSize)
        for (column, category) in categories.enumerated() where column % stride == 0 {
            let x = plotLeft + slot * (Double(column) + 0.5)
            let room = min(slot * Double(stride) - 6, 2 * min(x - 10, g.width - 10 - x))
            labels.append(g.label(category, x: x, y: plotBottom + 20, anchor: "middle", className: "chart__tick", room: room, size: g.tickSize))
        }
        labels.append(
            g.label(
                description.categoryTitle,
                x: (plotLeft + plotRight) / 2,
                y: height - 12,
                anchor: "middle",
                className: "chart__axis-title",
                room: plotRight - plotLeft,
                size: g.titleSize
            )
        )
        let middle = (plotTop + plotBottom) / 2
        labels.append(
            g.label(
                description.valueTitle,
                x: 20,
                y: middle,
                anchor: "middle",
                className: "chart__axis-title",
                room: plotBottom - plotTop,
                size: g.titleSize,
                rotation: -90
            )
        )
    }

    var slot: Double { (plotRight - plotLeft) / Double(max(1, categories.count)) }

    func x(_ column: Int) -> Double { plotLeft + slot * (Double(column) + 0.5) }

    func y(_ value: Double) -> Double { plotBottom - (plotBottom - plotTop) * max(0, value) / topValue }

    func figure(patterns: [ChartFigure.Pattern], marks: [ChartFigure.Mark]) -> ChartFigure {
        ChartFigure(
            description,
            width: ChartGeometry.width,
            height: height,
            patterns: patterns,
            strokes: strokes,
            boxes: boxes,
            marks: marks,
            labels: labels,
            table: ChartTable.of(description, categories: categories, series: series)
        )
    }
}

/// Answers on an ordered scale (a 1–5 Likert question), one bar per question: the share of answers
/// below the middle of the scale drawn to the left of a centre line, above it to the right, and the middle
/// split across it.
package struct DivergingBarChart: Sendable {
    package struct Row: Sendable, Hashable {
        package let label: String
        /// Answers at each level of the scale, lowest first.
        package let counts: [Int]
        /// What is shown for each level and for the row's total where the counts may not be shown as they are
        /// (small-count control): the bar and its percentages are drawn from these figures alone; a level
        /// without a number draws no bar for the row, and a total without one draws nothing but its words.
        package let figures: (levels: [ChartValue], total: ChartValue)?

        package init(label: String, counts: [Int]) {
            self.label = label
            self.counts = counts
            figures = nil
        }

        package init(label: String, levels: [ChartValue], total: ChartValue) {
            self.label = label
            counts = levels.map { Int($0.number ?? 0) }
            figures = (levels, total)
        }

        /// Each level's figure and the total's: the counts themselves where no figures were given.
        var shown: (levels: [ChartValue], total: ChartValue) {
            figures ?? (counts.map { .count($0) }, .count(counts.reduce(0, +)))
        }

        package static func == (lhs: Row, rhs: Row) -> Bool {
            lhs.label == rhs.label && lhs.counts == rhs.counts && lhs.figures?.levels == rhs.figures?.levels
                && lhs.figures?.total == rhs.figures?.total
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(label)
            hasher.combine(counts)
            hasher.combine(figures?.levels)
            hasher.combine(figures?.total)
        }
    }

    /// The horizontal axis's title where the rows are answers to questions.
    package static let shareOfAnswers = "Share of answers: lower on the scale to the left, higher to the right"

    /// Its `valueTitle` says what the horizontal axis measures (`shareOfAnswers`, for questions).
    package var description: ChartDescription
    /// The scale's levels, lowest first ("Strongly disagree" … "Strongly agree").
    package var levels: [String]
    package var rows: [Row]
    /// Small-cell suppression: a count from 1 to `below - 1` is shown as `text` in the table (and its
    /// download) and draws no segment; a row with fewer answers than `below` in all draws no bar at all.
    package var withheld: (below: Int, text: String)?

    package init(_ description: ChartDescription, levels: [String], rows: [Row], withheld: (below: Int, text: String)? = nil) {
        self.description = description
        self.levels = levels
        self.rows = rows
        self.withheld = withheld
    }

    private func isWithheld(_ count: Int) -> Bool { withheld.map { count > 0 && count < $0.below } ?? false }

    /// A row's figures: those given, or its counts with any small one (and a small total) withheld.
    private func shownRow(_ row: Row) -> (levels: [ChartValue], total: ChartValue) {
        if let figures = row.figures { return figures }
        let total = row.counts.reduce(0, +)
        guard let withheld else { return row.shown }
        if isWithheld(total) { return (row.counts.map { _ in ChartValue(nil, text: withheld.text) }, ChartValue(nil, text: withheld.text)) }
        return (row.counts.map { isWithheld($0) ? ChartValue(nil, text: withheld.text) : .count($0) }, .count(total))
    }

    package var figure: ChartFigure {
        let g = ChartGeometry.self
        let patterns = g.patterns(chartID: description.id, count: levels.count)
        let legend = g.legend(levels, patterns: patterns, top: 10)
        var boxes = legend.boxes
        var labels = legend.labels
        var strokes: [ChartFigure.Stroke] = []
        let labelRoom = min(260, max(60, rows.map { g.textWidth($0.label, size: g.labelSize) }.max() ?? 0))
        let plotLeft = 10 + labelRoom + 10
        let plotRight = g.width - 20
        let centre = (plotLeft + plotRight) / 2
        let half = (plotRight - plotLeft) / 2
        let plotTop = 10 + legend.height + 6
        let rowHeight = 34.0
        let plotBottom = plotTop + rowHeight * Double(max(1, rows.count))
        let middle = levels.count % 2 == 1 ? levels.count / 2 : nil
        let lowCount = levels.count / 2
        // The rows that show words across the centre instead of a bar.
        var noted: [Int] = []

        for (index, row) in rows.enumerated() {
            let (figures, total) = shownRow(row)
            let y = plotTop + rowHeight * Double(index) + 6
            labels.append(g.label(row.label, x: plotLeft - 10, y: y + 16, anchor: "end", room: labelRoom))
            guard let whole = total.number else {
                labels.append(g.label("\(total.text) answers", x: centre, y: y + 16, anchor: "middle", className: "chart__value"))
                noted.append(index)
                continue
            }
            guard whole > 0 else {
                labels.append(g.label("No answers yet", x: centre, y: y + 16, anchor: "middle", className: "chart__value"))
                noted.append(index)
                continue
            }
            // A row with a count not shown draws no bar: its gap, or the others' lengths, would show it.
            guard figures.allSatisfy({ $0.number != nil }) else {
                let words =
                    figures.allSatisfy { $0.number == nil || $0.number == 0 } && withheld != nil
                    ? "Each count is \(withheld!.text)" : "Counts withheld: the numbers are in the table"
                labels.append(g.label(words, x: centre, y: y + 16, anchor: "middle", className: "chart__value", room: half * 2))
                noted.append(index)
                continue
            }
            let shown = figures.reduce(0) { $0 + ($1.number ?? 0) }
            let shares = figures.map { shown > 0 ? ($0.number ?? 0) / shown : 0 }
            // Left of the centre: the middle level's half, then the low levels outwards.
            var left = centre - (middle.map { shares[$0] / 2 } ?? 0) * half
            var segments: [(level: Int, x: Double, width: Double)] = []
            if let middle { segments.append((middle, left, shares[middle] * half)) }
            var x = left
            for level in (0..<lowCount).reversed() {
                x -= shares[level] * half
                segments.append((level, x, shares[level] * half))
            }
            left = centre + (middle.map { shares[$0] / 2 } ?? 0) * half
            x = left
            for level in (levels.count - lowCount)..<levels.count {
                segments.append((level, x, shares[level] * half))
                x += shares[level] * half
            }
            for segment in segments where segment.width > 0 {
                let tooltip = "\(row.label), \(levels[segment.level]): \(figures[segment.level].text) (\(ChartFormat.percent(shares[segment.level])))"
                boxes.append(
                    .init(x: segment.x, y: y, width: segment.width, height: 22, fill: "url(#\(patterns[segment.level].id))", tooltip: tooltip)
                )
            }
        }
        // The centre line and the grid stop at the rows that show words, so no line runs through them.
        var spans: [ClosedRange<Double>] = []
        var spanTop = plotTop
        for index in noted {
            let rowTop = plotTop + rowHeight * Double(index)
            if rowTop > spanTop { spans.append(spanTop...rowTop) }
            spanTop = rowTop + rowHeight
        }
        if plotBottom > spanTop { spans.append(spanTop...plotBottom) }
        for tick in [-1.0, -0.5, 0, 0.5, 1] {
            let x = centre + tick * half
            let path = spans.map { g.line(x, $0.lowerBound, x, $0.upperBound) }.joined()
            if !path.isEmpty { strokes.append(.init(path: path, className: tick == 0 ? "chart__axis" : "chart__grid", colour: nil, dashes: nil)) }
            labels.append(
                g.label(ChartFormat.percent(abs(tick)), x: x, y: plotBottom + 20, anchor: "middle", className: "chart__tick", size: g.tickSize)
            )
        }
        let height = plotBottom + 52
        labels.append(
            g.label(
                description.valueTitle,
                x: (plotLeft + plotRight) / 2,
                y: height - 10,
                anchor: "middle",
                className: "chart__axis-title",
                room: plotRight - plotLeft,
                size: g.titleSize
            )
        )
        let table = ChartTable(
            caption: description.title,
            columns: [ChartTable.Column(description.categoryTitle, numeric: false)] + levels.map { ChartTable.Column($0) } + [
                ChartTable.Column("Answers")
            ],
            rows: rows.map { row in
                let (figures, total) = shownRow(row)
                if total.number == nil, withheld.map({ total.text == $0.text }) ?? true {
                    return [row.label] + figures.map { _ in total.text } + [total.text]
                }
                let shown = figures.reduce(0) { $0 + ($1.number ?? 0) }
                let complete = figures.allSatisfy { $0.number != nil }
                return [row.label]
                    + figures.map { figure in
                        guard let number = figure.number, complete, shown > 0 else { return figure.text }
                        return "\(figure.text) (\(ChartFormat.percent(number / shown)))"
                    } + [total.text]
            }
        )
        return ChartFigure(
            description,
            width: g.width,
            height: height,
            patterns: patterns,
            strokes: strokes,
            boxes: boxes,
            marks: [],
            labels: labels,
            table: table
        )
    }
}

extension ChartTable {
    /// A category per row and a series per column.
    package static func of(_ description: ChartDescription, categories: [String], series: [ChartSeries]) -> ChartTable {
        ChartTable(
            caption: description.title,
            columns: [Column(description.categoryTitle, numeric: false)] + series.map { Column($0.name) },
            rows: categories.enumerated().map { row, category in
                [category] + series.map { row < $0.values.count ? $0.values[row].text : "" }
            }
        )
    }
}

/// A small line of one series with no axes, for an overview (the administrators' home): its first and last
/// categories beneath the line and its latest value above it, all inside the drawing, and the same numbers
/// in the table beneath, so the line is never the only way to read them.
package struct Sparkline: Sendable {
    /// Its `valueTitle` is the table's heading for the values ("Members active").
    package var description: ChartDescription
    package var categories: [String]
    package var values: [ChartValue]

    package static let width = 320.0
    package static let height = 96.0

    package init(_ description: ChartDescription, categories: [String], values: [ChartValue]) {
        self.description = description
        self.categories = categories
        self.values = values
    }

    package var figure: ChartFigure {
        let g = ChartGeometry.self
        let width = Self.width, height = Self.height
        let left = 8.0, right = width - 8, top = 30.0, bottom = height - 26
        let count = min(categories.count, values.count)
        let numbers = values.prefix(count).compactMap(\.number)
        let highest = max(numbers.max() ?? 0, 1)
        let step = count > 1 ? (right - left) / Double(count - 1) : 0
        func x(_ index: Int) -> Double { count > 1 ? left + step * Double(index) : (left + right) / 2 }
        func y(_ value: Double) -> Double { bottom - (bottom - top) * max(0, value) / highest }
        let colour = g.colours[0]
        var strokes = [
            ChartFigure.Stroke(path: "M\(g.number(left)) \(g.number(bottom))H\(g.number(right))", className: "chart__axis", colour: nil, dashes: nil)
        ]
        var path = ""
        var penDown = false
        var marks: [ChartFigure.Mark] = []
        for index in 0..<count {
            guard let number = values[index].number else {
                penDown = false
                continue
            }
            path += (penDown ? "L" : "M") + "\(g.number(x(index))) \(g.number(y(number)))"
            penDown = true
            if index == count - 1 {
                marks.append(
                    .init(path: LineChart.shape(0, x: x(index), y: y(number)), colour: colour, tooltip: "\(categories[index]): \(values[index].text)")
                )
            }
        }
        if !path.isEmpty { strokes.append(.init(path: path, className: "chart__series", colour: colour, dashes: nil)) }
        var labels: [ChartFigure.Label] = []
        if let latest = values.prefix(count).last {
            labels.append(g.label("Latest: \(latest.text)", x: left, y: 18, className: "chart__value", room: width - 2 * left, size: g.labelSize))
        }
        if let first = categories.first, count > 0 {
            labels.append(g.label(first, x: left, y: height - 6, className: "chart__label", room: width / 2 - left - 4, size: g.labelSize))
        }
        if count > 1, let last = categories.prefix(count).last {
            labels.append(
                g.label(last, x: right, y: height - 6, anchor: "end", className: "chart__label", room: width / 2 - left - 4, size: g.labelSize)
            )
        }
        let table = ChartTable(
            caption: description.title,
            columns: [.init(description.categoryTitle, numeric: false), .init(description.valueTitle)],
            rows: (0..<count).map { [categories[$0], values[$0].text] }
        )
        return ChartFigure(
            description,
            width: width,
            height: height,
            patterns: [],
            strokes: strokes,
            boxes: [],
            marks: marks,
            labels: labels,
            table: table
        )
    }
}
