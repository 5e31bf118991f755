import Foundation
@testable import CarePortal

/// Someone outside the project trying to work out the counts the Analytics pages hide, from what they show: every
/// figure read as the counts it may stand for (a number that is not a multiple of 5 cannot have been rounded, so it
/// is taken as exact), and every sum the pages let them form (a row against its total, a week against its days, all
/// members against each cohort, a period against its halves) used to narrow them, until nothing changes. Written
/// apart from `Disclosure`, so that it checks it rather than repeats it.
struct DisclosureAttacker {
    static let unbounded: Int64 = 1 << 40

    /// Whether the pages round counts down to a multiple of 5 (as they do since issue 52): a multiple of 5 may then
    /// stand for up to 4 more; before, every number shown was exact.
    var rounded = true

    init(rounded: Bool = true) {
        self.rounded = rounded
    }

    /// What one shown text says the count behind it may be; nil for a text that is no count. `zeroPossible`: a
    /// hidden count that may be 0 (a table whose total is fewer than 5 hides its zeros too).
    func possible(_ text: String, zeroPossible: Bool = false) -> ClosedRange<Int64>? {
        let trimmed = text.split(separator: " (").first.map(String.init) ?? text
        // Since issue 52 a 0 is shown as "fewer than 5" too; before, 0 was shown as 0.
        if trimmed == "fewer than 5" { return (zeroPossible || rounded ? 0 : 1)...4 }
        if trimmed == "withheld" { return 0...Self.unbounded }
        guard let number = Int64(trimmed.replacingOccurrences(of: ",", with: "")) else { return nil }
        if number == 0 { return 0...0 }
        return rounded && number % 5 == 0 ? number...(number + 4) : number...number
    }

    private(set) var ranges: [String: ClosedRange<Int64>] = [:]
    private(set) var hidden: Set<String> = []
    private var sums: [(parts: [String], total: String)] = []
    /// Figures whose readings contradict each other: a sum formed wrongly, which would make the walk prove nothing.
    private(set) var contradictions: Set<String> = []

    /// Records what a figure showed; the same figure seen twice (two choices showing it) narrows to both.
    mutating func saw(_ key: String, _ text: String, zeroPossible: Bool = false) {
        guard let range = possible(text, zeroPossible: zeroPossible) else { return }
        if text.hasPrefix("fewer than 5") { hidden.insert(key) }
        if let known = ranges[key] {
            let lower = max(known.lowerBound, range.lowerBound), upper = min(known.upperBound, range.upperBound)
            if lower > upper { contradictions.insert(key) } else { ranges[key] = lower...upper }
        } else {
            ranges[key] = range
        }
    }

    /// `parts` add up to `total`.
    mutating func adds(_ parts: [String], to total: String) {
        sums.append((parts, total))
    }

    /// The hidden counts pinned to one value, each with the value; and the figures found to contradict each other.
    func solve() -> (pinned: [String: Int64], contradictions: Set<String>) {
        var ranges = ranges
        var contradictions: Set<String> = []
        var changed = true
        var rounds = 0
        func narrow(_ key: String, to range: ClosedRange<Int64>) {
            let known = ranges[key] ?? 0...Self.unbounded
            let lower = max(known.lowerBound, range.lowerBound), upper = min(known.upperBound, range.upperBound)
            guard lower <= upper else {
                contradictions.insert(key)
                return
            }
            if lower...upper != known {
                ranges[key] = lower...upper
                changed = true
            }
        }
        while changed && rounds < 1_000 {
            changed = false
            rounds += 1
            for sum in sums {
                let parts = sum.parts.map { ranges[$0] ?? 0...Self.unbounded }
                let total = ranges[sum.total] ?? 0...Self.unbounded
                let low = parts.reduce(0) { $0 + $1.lowerBound }, high = parts.reduce(0) { $0 + $1.upperBound }
                narrow(sum.total, to: low...max(low, high))
                let sumRange = ranges[sum.total] ?? total
                for (index, key) in sum.parts.enumerated() {
                    let part = parts[index]
                    let lower = max(0, sumRange.lowerBound - (high - part.upperBound))
                    let upper = max(lower, min(Self.unbounded, sumRange.upperBound - (low - part.lowerBound)))
                    narrow(key, to: lower...upper)
                }
            }
        }
        var pinned: [String: Int64] = [:]
        for key in hidden where ranges[key]?.count == 1 { pinned[key] = ranges[key]!.lowerBound }
        return (pinned, contradictions.union(self.contradictions))
    }
}
