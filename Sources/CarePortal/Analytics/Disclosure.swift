import PortalPlatform

/// Small-number disclosure control: the one place every figure of the Analytics pages (graphs, their tables,
/// their CSV downloads, the overview's counts) is made from a count, following NHS Digital's rule for health
/// statistics (the HES Analysis Guide: small numbers suppressed, every other count rounded to a multiple of 5).
///
/// - A count from 0 to 4 is shown as "fewer than 5": a 0 shown as 0 would tell a reader that every other count
///   beside it is at least 1, which is what lets a sum pin them (seven days of 1 add up to 7, shown as 5).
/// - Every other count, totals included, is shown rounded down to a multiple of 5 (5 to 9 as 5, 10 to 14 as 10, …),
///   so a difference of two shown figures — two selections, a week against its days — never pins a small count.
///   Down rather than to the nearest: to the nearest, 4 and 4 make 8, shown as 10 (8 to 12), which pins both;
///   rounded down, only five hidden 4s adding up to 20 could be pinned by their sum.
/// - A table that shows totals is checked as an attacker would check it (`exposed`): where a count from 1 to 4
///   could still be worked out from the other figures and the totals, the smallest other figure of that row or
///   column is withheld too ("withheld"), and then the total, until nothing can be (`protect`).
/// - Percentages, shares, bar lengths and gaps are worked out from the figures shown, never from the counts
///   behind them, so a drawing says nothing its table does not.
enum Disclosure {
    static let threshold: Int64 = 5
    static let base: Int64 = 5
    static let fewerThanFive = "fewer than 5"
    /// A figure of 5 or more held back so that a small count beside it cannot be worked out.
    static let withheldText = "withheld"

    /// What a count is shown as.
    enum Figure: Sendable, Hashable {
        /// From 0 to 4.
        case small
        /// 5 or more, rounded down to a multiple of 5.
        case rounded(Int64)
        /// Held back beside a small count (complementary suppression), or a total no other figure could protect.
        case withheld

        /// The number shown, if one is.
        var shown: Int64? {
            switch self {
            case .rounded(let value): value
            case .small, .withheld: nil
            }
        }

        var text: String {
            switch self {
            case .small: Disclosure.fewerThanFive
            case .rounded(let value): ChartFormat.count(Int(value))
            case .withheld: Disclosure.withheldText
            }
        }

        var value: ChartValue { ChartValue(shown.map(Double.init), text: text) }

        /// Every count this figure may stand for, as a reader who knows this rule can tell.
        var possible: ClosedRange<Int64> {
            switch self {
            case .small: 0...(Disclosure.threshold - 1)
            case .rounded(let value): value...(value + Disclosure.base - 1)
            case .withheld: 0...Disclosure.unbounded
            }
        }
    }

    /// Larger than any count, small enough that sums of a few never overflow.
    static let unbounded: Int64 = 1 << 40

    static func figure(_ count: Int64) -> Figure {
        if count < threshold { return .small }
        return .rounded(count / base * base)
    }

    static func count(_ count: Int64) -> ChartValue { figure(count).value }

    /// `part` of `whole` as a percentage of the figures shown for them; withheld when either is not shown.
    static func share(_ part: Figure, of whole: Figure) -> ChartValue {
        guard let shownPart = part.shown, let shownWhole = whole.shown else {
            return ChartValue(nil, text: part == .small || whole == .small ? fewerThanFive : withheldText)
        }
        return .share(min(1, Double(shownPart) / Double(shownWhole)))
    }

    static func share(_ part: Int64, of whole: Int64) -> ChartValue { share(figure(part), of: figure(whole)) }

    /// The counts of a table and the totals shown with it (in the table, its drawing, its summary or elsewhere
    /// on the page): each row's total is the sum of its cells, each column's the sum of its cells.
    struct Table: Sendable {
        var cells: [[Int64]]
        var rowTotals: [Int64]?
        var columnTotals: [Int64]?
        /// Totals already held back (shared with another table that had to withhold them).
        var withheldRows: Set<Int> = []
        var withheldColumns: Set<Int> = []
        /// The totals can be read elsewhere (another graph or choice), so withholding one here would hide nothing:
        /// only cells are withheld.
        var totalsShownElsewhere = false

        init(cells: [[Int64]], rowTotals: [Int64]? = nil, columnTotals: [Int64]? = nil) {
            self.cells = cells
            self.rowTotals = rowTotals
            self.columnTotals = columnTotals
        }

        /// Each row's sum as its total.
        static func summedByRow(_ cells: [[Int64]]) -> Table {
            Table(cells: cells, rowTotals: cells.map { $0.reduce(0, +) })
        }
    }

    /// A table's figures, safe to show together.
    struct Protected: Sendable, Equatable {
        var cells: [[Figure]]
        var rowTotals: [Figure]?
        var columnTotals: [Figure]?
    }

    /// The figures of `table`, with as few more withheld as it takes for no small count to be worked out.
    static func protect(_ table: Table) -> Protected {
        var protected = Protected(
            cells: table.cells.map { $0.map(figure) },
            rowTotals: table.rowTotals.map { totals in totals.indices.map { table.withheldRows.contains($0) ? .withheld : figure(totals[$0]) } },
            columnTotals: table.columnTotals.map { totals in
                totals.indices.map { table.withheldColumns.contains($0) ? .withheld : figure(totals[$0]) }
            }
        )
        while let (row, column) = exposed(protected).first {
            // The row's or the column's smallest other figure shown; then its total.
            var lines: [[(Int, Int)]] = []
            let mayWithholdTotals = !table.totalsShownElsewhere
            if protected.rowTotals?[row].shown != nil { lines.append(protected.cells[row].indices.map { (row, $0) }) }
            if protected.columnTotals?[column].shown != nil { lines.append(protected.cells.indices.map { ($0, column) }) }
            let candidates = lines.flatMap { $0 }.filter { protected.cells[$0.0][$0.1].shown != nil }
            if let next = candidates.min(by: { (protected.cells[$0.0][$0.1].shown ?? 0) < (protected.cells[$1.0][$1.1].shown ?? 0) }) {
                protected.cells[next.0][next.1] = .withheld
            } else if mayWithholdTotals, protected.rowTotals?[row].shown != nil {
                protected.rowTotals?[row] = .withheld
            } else if mayWithholdTotals, protected.columnTotals?[column].shown != nil {
                protected.columnTotals?[column] = .withheld
            } else {
                // Only a total that is itself small remains, which cannot pin a count: never reached, and never looped on.
                break
            }
        }
        return protected
    }

    /// The small counts of `table` a reader could pin to one value from its figures and totals: each figure
    /// stands for the counts it may be (`Figure.possible`), and each row and column must add up to its total;
    /// the ranges are narrowed by each sum in turn until nothing changes.
    static func exposed(_ table: Protected) -> [(Int, Int)] {
        var ranges = table.cells.map { $0.map(\.possible) }
        var rowRanges = table.rowTotals?.map(\.possible)
        var columnRanges = table.columnTotals?.map(\.possible)
        var changed = true
        var rounds = 0
        // Each round narrows some range of whole numbers; the bound only guards against figures that contradict each other.
        while changed && rounds < 10_000 {
            changed = false
            rounds += 1
            for row in ranges.indices {
                guard let total = rowRanges?[row] else { break }
                var line = ranges[row]
                let narrowed = narrow(&line, total: total)
                if line != ranges[row] || narrowed != total { changed = true }
                ranges[row] = line
                rowRanges?[row] = narrowed
            }
            for column in ranges.first?.indices ?? 0..<0 {
                guard let total = columnRanges?[column] else { break }
                var line = ranges.map { $0[column] }
                let narrowed = narrow(&line, total: total)
                for row in ranges.indices where ranges[row][column] != line[row] {
                    ranges[row][column] = line[row]
                    changed = true
                }
                if narrowed != total { changed = true }
                columnRanges?[column] = narrowed
            }
        }
        var pinned: [(Int, Int)] = []
        for row in ranges.indices {
            for column in ranges[row].indices where table.cells[row][column] == .small && ranges[row][column].count == 1 {
                pinned.append((row, column))
            }
        }
        return pinned
    }

    /// Narrows each part's range, and the total's, by the parts adding up to the total.
    private static func narrow(_ parts: inout [ClosedRange<Int64>], total: ClosedRange<Int64>) -> ClosedRange<Int64> {
        let low = parts.reduce(0) { $0 + $1.lowerBound }, high = parts.reduce(0) { $0 + $1.upperBound }
        let sum = max(total.lowerBound, low)...max(max(total.lowerBound, low), min(total.upperBound, high))
        for index in parts.indices {
            let part = parts[index]
            let otherLow = low - part.lowerBound, otherHigh = high - part.upperBound
            let lower = max(part.lowerBound, sum.lowerBound - otherHigh)
            let upper = min(part.upperBound, sum.upperBound - otherLow)
            parts[index] = lower...max(lower, upper)
        }
        return sum
    }
}
