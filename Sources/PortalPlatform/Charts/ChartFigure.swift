import Foundation

/// A chart drawn on the server as SVG: the shapes and words the shared template (`partials/chart`) draws,
/// in the drawing's own units, with the table of the same numbers beneath it.
///
/// Made by one of the chart kinds (`BarChart`, `ColumnChart`, `LineChart`, `DivergingBarChart`), never
/// by hand, so that every chart has a title, a one-sentence summary, labelled axes, a legend that does not
/// rely on colour alone (each series has a pattern as well as a colour, and bars and lines carry their
/// own labels), and all of its text inside the drawing: a label too long for its room is shortened with
/// "…" and its whole text kept in the table and in the shape's tooltip.
package struct ChartFigure: Fragment {
    package static let template = TemplateName.chart
    /// Drawn each time: a chart shows numbers someone chose (a range, cohorts, a comparison) and is seldom
    /// asked for twice, while hashing its thousands of shapes to look it up cost as much as drawing it.
    package static let isRemembered = false

    /// A line: an axis, a grid line, a reference line, or a series drawn through its points.
    package struct Stroke: Sendable, Hashable, Encodable {
        package let path: String
        package let className: String
        package let colour: String?
        package let dashes: String?
    }

    /// A bar, or a legend's swatch.
    package struct Box: Sendable, Hashable, Encodable {
        package let x: Double
        package let y: Double
        package let width: Double
        package let height: Double
        package let fill: String
        package let tooltip: String?

        package init(x: Double, y: Double, width: Double, height: Double, fill: String, tooltip: String?) {
            self.x = ChartGeometry.rounded(x)
            self.y = ChartGeometry.rounded(y)
            self.width = ChartGeometry.rounded(max(0, width))
            self.height = ChartGeometry.rounded(max(0, height))
            self.fill = fill
            self.tooltip = tooltip
        }
    }

    /// A point of a line series, drawn as a shape of the series' own (circle, square, diamond, triangle).
    package struct Mark: Sendable, Hashable, Encodable {
        package let path: String
        package let colour: String
        package let tooltip: String
    }

    package struct Label: Sendable, Hashable, Encodable {
        package let x: Double
        package let y: Double
        package let text: String
        package let anchor: String
        package let className: String
        /// Degrees to turn the label about its own point (the vertical axis's title).
        package let rotation: Int?
        /// The whole text, where `text` had to be shortened to fit.
        package let fullText: String?

        package init(x: Double, y: Double, text: String, anchor: String, className: String, rotation: Int?, fullText: String?) {
            self.x = ChartGeometry.rounded(x)
            self.y = ChartGeometry.rounded(y)
            self.text = text
            self.anchor = anchor
            self.className = className
            self.rotation = rotation
            self.fullText = fullText
        }
    }

    /// A fill pattern of one series: its colour and its marks over a light ground.
    package struct Pattern: Sendable, Hashable, Encodable {
        package let id: String
        package let colour: String
        package let solid: Bool
        package let stripes: Bool
        package let reverseStripes: Bool
        package let dots: Bool
        package let grid: Bool
        package let rows: Bool
    }

    package let id: String
    package let title: String
    /// One sentence saying what the chart shows, read out by screen readers and shown beneath it.
    package let summary: String
    package let width: Double
    package let height: Double
    package let patterns: [Pattern]
    package let strokes: [Stroke]
    package let boxes: [Box]
    package let marks: [Mark]
    package let labels: [Label]
    package let table: ChartTable
    /// Where the same numbers download as CSV, if the page offers it.
    package let csvPath: String?
    /// False where the page shows the same numbers in a table of its own, right beneath the chart.
    package var tableBeneath = true

    init(
        _ description: ChartDescription,
        width: Double,
        height: Double,
        patterns: [Pattern],
        strokes: [Stroke],
        boxes: [Box],
        marks: [Mark],
        labels: [Label],
        table: ChartTable
    ) {
        id = description.id
        title = description.title
        summary = description.summary
        self.width = width
        self.height = height
        self.patterns = patterns
        self.strokes = strokes
        self.boxes = boxes
        self.marks = marks
        self.labels = labels
        self.table = table
        csvPath = description.csvPath
    }

    package var titleID: String { "\(id)-title" }
    package var summaryID: String { "\(id)-summary" }

    private enum CodingKeys: String, CodingKey {
        case id, title, summary, width, height, patterns, strokes, boxes, marks, labels, table, csvPath, tableBeneath, titleID, summaryID
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(summary, forKey: .summary)
        try container.encode(ChartGeometry.rounded(width), forKey: .width)
        try container.encode(ChartGeometry.rounded(height), forKey: .height)
        try container.encode(patterns, forKey: .patterns)
        try container.encode(strokes, forKey: .strokes)
        try container.encode(boxes, forKey: .boxes)
        try container.encode(marks, forKey: .marks)
        try container.encode(labels, forKey: .labels)
        try container.encode(table, forKey: .table)
        try container.encodeIfPresent(csvPath, forKey: .csvPath)
        try container.encode(tableBeneath, forKey: .tableBeneath)
        try container.encode(titleID, forKey: .titleID)
        try container.encode(summaryID, forKey: .summaryID)
    }
}

/// What every chart says of itself, whatever its kind: its name in the page, the words that
/// introduce it to a reader (and a screen reader), and what its two dimensions are called.
package struct ChartDescription: Sendable {
    /// Unique in the page: the drawing's, its patterns' and its table's ids start with it.
    package var id: String
    package var title: String
    /// One sentence saying what the chart shows.
    package var summary: String
    /// What the values measure ("Members", "Visits"): the value axis's title, or the table's value column.
    package var valueTitle: String
    /// What names each category or row ("Answer", "Day"): the table's first column.
    package var categoryTitle: String
    /// Where the same numbers download as CSV, if the page offers it.
    package var csvPath: String?

    package init(id: String, title: String, summary: String, valueTitle: String, categoryTitle: String, csvPath: String? = nil) {
        self.id = id
        self.title = title
        self.summary = summary
        self.valueTitle = valueTitle
        self.categoryTitle = categoryTitle
        self.csvPath = csvPath
    }
}

/// The table beneath a chart: the same numbers, for those who would rather read, and for screen readers.
package struct ChartTable: Sendable, Hashable, Encodable {
    package struct Column: Sendable, Hashable, Encodable {
        package let title: String
        package let numeric: Bool

        package init(_ title: String, numeric: Bool = true) {
            self.title = title
            self.numeric = numeric
        }
    }

    package struct Cell: Sendable, Hashable, Encodable {
        package let text: String
        package let numeric: Bool
        package let header: Bool
    }

    package struct Row: Sendable, Hashable, Encodable {
        package let cells: [Cell]
    }

    package let caption: String
    package let columns: [Column]
    package let rows: [Row]

    /// `rows` hold one text per column; the first column names the row.
    package init(caption: String, columns: [Column], rows: [[String]]) {
        self.caption = caption
        self.columns = columns
        self.rows = rows.map { texts in
            Row(
                cells: texts.enumerated().map { index, text in
                    Cell(text: text, numeric: index < columns.count && columns[index].numeric, header: index == 0)
                }
            )
        }
    }
}

extension TemplateName {
    package static let chart = TemplateName("partials/chart")
}

/// One value of a series: the number drawn, and the words shown for it (in labels, tooltips and the
/// table). A value may be withheld (`nil`), as small counts are, and then only its words are shown.
package struct ChartValue: Sendable, Hashable {
    package let number: Double?
    package let text: String

    package init(_ number: Double?, text: String) {
        self.number = number
        self.text = text
    }

    /// A count, shown as a whole number with thousands separated.
    package static func count(_ count: Int) -> ChartValue {
        ChartValue(Double(count), text: ChartFormat.count(count))
    }

    /// A share from 0 to 1, shown as a whole percentage.
    package static func share(_ share: Double) -> ChartValue {
        ChartValue(share * 100, text: ChartFormat.percent(share))
    }

    /// A number shown with `decimals` places.
    package static func number(_ number: Double, decimals: Int = 1) -> ChartValue {
        ChartValue(number, text: ChartFormat.decimal(number, places: decimals))
    }
}

/// A named run of values, one per category, drawn in one colour and pattern.
package struct ChartSeries: Sendable, Hashable {
    package let name: String
    package let values: [ChartValue]

    package init(_ name: String, _ values: [ChartValue]) {
        self.name = name
        self.values = values
    }
}

/// How chart numbers are written, the same in labels, tables and CSV.
package enum ChartFormat {
    package static func count(_ count: Int) -> String {
        let digits = String(abs(count))
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return count < 0 ? "-" + grouped : grouped
    }

    package static func percent(_ share: Double) -> String {
        "\(Int((share * 100).rounded()))%"
    }

    package static func decimal(_ number: Double, places: Int) -> String {
        String(format: "%.\(max(0, places))f", number)
    }
}

extension ChartFigure {
    /// The chart written in Swift: the markup of its template, `partials/chart` (which stays the
    /// reference, and a test holds the two equal), with every text escaped by `HTMLEscaping`. A
    /// year's moods by day are some 4,000 boxes and a table of 365 rows, which the template took tens
    /// of milliseconds to write.
    package func drawnHTML() -> String? {
        func text(_ value: String) -> String { HTMLEscaping.escape(value) }
        func number(_ value: Double) -> String { "\(value)" }
        var html = ""
        html.reserveCapacity(
            1_024 + boxes.count * 160 + labels.count * 120 + strokes.count * 100 + table.rows.count * 80 * max(1, table.columns.count)
        )
        let width = number(ChartGeometry.rounded(self.width)), height = number(ChartGeometry.rounded(self.height))
        html += #"<figure class="chart" data-chart-figure="\#(text(id))">"# + "\n"
        html +=
            #"<svg class="chart__svg" role="img" aria-labelledby="\#(text(titleID)) \#(text(summaryID))" viewBox="0 0 \#(width) \#(height)" width="100%" preserveAspectRatio="xMinYMin meet" data-chart="\#(text(id))">"#
            + "\n"
        html += #"  <title id="\#(text(titleID))">\#(text(title))</title>"# + "\n"
        html += #"  <desc id="\#(text(summaryID))">\#(text(summary))</desc>"# + "\n"
        html += "  <defs>\n"
        for pattern in patterns {
            let colour = text(pattern.colour)
            html += #"    <pattern id="\#(text(pattern.id))" width="8" height="8" patternUnits="userSpaceOnUse">"# + "\n"
            if pattern.solid {
                html += #"      <rect width="8" height="8" fill="\#(colour)"></rect>"# + "\n"
            } else {
                html +=
                    ##"      <rect width="8" height="8" fill="#ffffff"></rect><rect width="8" height="8" fill="\##(colour)" fill-opacity="0.25"></rect>"##
                    + "\n"
            }
            if pattern.stripes { html += #"      <path d="M-2 2L2 -2M0 8L8 0M6 10L10 6" stroke="\#(colour)" stroke-width="2.5"></path>"# + "\n" }
            if pattern.reverseStripes {
                html += #"      <path d="M-2 6L2 10M0 0L8 8M6 -2L10 2" stroke="\#(colour)" stroke-width="2.5"></path>"# + "\n"
            }
            if pattern.dots { html += #"      <circle cx="4" cy="4" r="2.4" fill="\#(colour)"></circle>"# + "\n" }
            if pattern.grid { html += #"      <path d="M0 4H8M4 0V8" stroke="\#(colour)" stroke-width="2"></path>"# + "\n" }
            if pattern.rows { html += #"      <path d="M0 2H8M0 6H8" stroke="\#(colour)" stroke-width="2"></path>"# + "\n" }
            html += "    </pattern>\n"
        }
        html += "  </defs>\n"
        for stroke in strokes {
            html += #"  <path d="\#(text(stroke.path))" class="\#(text(stroke.className))" fill="none""#
            if let colour = stroke.colour { html += #" stroke="\#(text(colour))""# }
            if let dashes = stroke.dashes { html += #" stroke-dasharray="\#(text(dashes))""# }
            html += "></path>\n"
        }
        // The elements a chart has thousands of (a stacked column per day for a year and more) are written
        // piece by piece into the one string: an interpolated line would be a string of its own first.
        for box in boxes {
            html += #"  <rect x=""#; html += number(box.x)
            html += #"" y=""#; html += number(box.y)
            html += #"" width=""#; html += number(box.width)
            html += #"" height=""#; html += number(box.height)
            html += #"" fill=""#; html += text(box.fill)
            html += #"" class="chart__box">"#
            if let tooltip = box.tooltip {
                html += "<title>"; html += text(tooltip); html += "</title>"
            }
            html += "</rect>\n"
        }
        for mark in marks {
            html += #"  <path d=""#; html += text(mark.path)
            html += #"" fill=""#; html += text(mark.colour)
            html += #"" class="chart__mark"><title>"#; html += text(mark.tooltip)
            html += "</title></path>\n"
        }
        for label in labels {
            let x = number(label.x), y = number(label.y)
            html += #"  <text x=""#; html += x
            html += #"" y=""#; html += y
            html += #"" text-anchor=""#; html += text(label.anchor)
            html += #"" class=""#; html += text(label.className)
            html += "\""
            if let rotation = label.rotation { html += #" transform="rotate(\#(rotation) \#(x) \#(y))""# }
            html += ">"; html += text(label.text)
            if let fullText = label.fullText {
                html += "<title>"; html += text(fullText); html += "</title>"
            }
            html += "</text>\n"
        }
        html += "</svg>\n"
        html += "<figcaption>\(text(summary))"
        if !tableBeneath { html += " The same numbers are in the table below." }
        if let csvPath { html += #" <a class="link" href="\#(text(csvPath))">Download these numbers (CSV)</a>"# }
        html += "</figcaption>\n</figure>\n"
        guard tableBeneath else { return html }
        let caption = text(table.caption)
        html += #"<details class="details">"# + "\n"
        html += #"<summary class="details__summary">\#(text(title)): the numbers as a table</summary>"# + "\n"
        html += #"<div class="details__text">"# + "\n"
        html += #"<div class="table-wrapper" role="region" aria-label="\#(caption)" tabindex="0">"# + "\n"
        html += #"<table class="table" data-chart-table="\#(text(id))">"# + "\n"
        html += #"  <caption class="table__caption visually-hidden">\#(caption)</caption>"# + "\n"
        html += "  <thead><tr>"
        for column in table.columns {
            html += #"<th class="table__header\#(column.numeric ? " table__header--numeric" : "")" scope="col">\#(text(column.title))</th>"#
        }
        html += "</tr></thead>\n  <tbody>\n"
        for row in table.rows {
            html += "  <tr>"
            for cell in row.cells {
                if cell.header {
                    html += #"<th class="table__cell" scope="row">"#; html += text(cell.text); html += "</th>"
                } else {
                    html += cell.numeric ? #"<td class="table__cell table__cell--numeric">"# : #"<td class="table__cell">"#
                    html += text(cell.text); html += "</td>"
                }
            }
            html += "</tr>\n"
        }
        html += "  </tbody>\n</table>\n</div>\n</div>\n</details>\n"
        return html
    }
}
