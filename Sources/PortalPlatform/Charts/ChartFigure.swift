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
            Row(cells: texts.enumerated().map { index, text in
                Cell(text: text, numeric: index < columns.count && columns[index].numeric, header: index == 0)
            })
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
