import Foundation

/// A day on the calendar with no time or zone, such as a date of birth; stored as `YYYY-MM-DD`.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    /// Nil unless the three numbers name a real day: no 31 April, and 29 February only in leap years.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              let date = Self.calendar.date(from: DateComponents(year: year, month: month, day: day))
        else { return nil }
        let components = Self.calendar.dateComponents([.year, .month, .day], from: date)
        guard components.year == year, components.month == month, components.day == day else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `instant` falls on in UTC, the zone the portal shows times in.
    public init(_ instant: Date) {
        let components = Self.calendar.dateComponents([.year, .month, .day], from: instant)
        year = components.year!
        month = components.month!
        day = components.day!
    }

    /// Reads `YYYY-MM-DD`, as stored.
    public init?(iso: String) {
        let parts = iso.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.map(\.count) == [4, 2, 2], parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// `YYYY-MM-DD`, as stored.
    public var iso: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    public var description: String { iso }

    /// "27 March 1980", as the portal shows dates.
    public var displayed: String {
        "\(day) \(Self.monthNames[month - 1]) \(year)"
    }

    /// The same day `years` later (earlier when negative); 29 February becomes 28 February outside leap years.
    public func adding(years: Int) -> CalendarDate {
        CalendarDate(year: year + years, month: month, day: day) ?? CalendarDate(year: year + years, month: month, day: day - 1)!
    }

    /// The day after this one.
    public var nextDay: CalendarDate {
        let date = Self.calendar.date(from: DateComponents(year: year, month: month, day: day))!
        return CalendarDate(Self.calendar.date(byAdding: .day, value: 1, to: date)!)
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// What someone typed in the day, month and year boxes of a date input.
struct DateInputValue: Sendable, Equatable {
    enum Part: String, CaseIterable, Sendable {
        case day, month, year

        var label: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
    }

    var day: String
    var month: String
    var year: String

    init(day: String?, month: String?, year: String?) {
        self.day = day?.trimmed ?? ""
        self.month = month?.trimmed ?? ""
        self.year = year?.trimmed ?? ""
    }

    subscript(part: Part) -> String {
        switch part {
        case .day: day
        case .month: month
        case .year: year
        }
    }

    /// The date typed, or what to tell the person (in the GOV.UK Design System's words) and which boxes to correct.
    ///
    /// - Parameters:
    ///   - name: how the message names the date, such as "Date of birth".
    ///   - missing: the message when nothing was typed, such as "Enter their date of birth".
    func date(named name: String, missing: String) -> Result<CalendarDate, DateInputProblem> {
        let empty = Part.allCases.filter { self[$0].isEmpty }
        if empty.count == Part.allCases.count { return .failure(DateInputProblem(message: missing, parts: empty)) }
        if !empty.isEmpty {
            let list = empty.map(\.rawValue).joined(separator: " and ")
            return .failure(DateInputProblem(message: "\(name) must include a \(list)", parts: empty))
        }
        let notNumbers = Part.allCases.filter { !self[$0].allSatisfy(\.isASCIIDigit) || self[$0].count > 4 }
        if !notNumbers.isEmpty { return .failure(DateInputProblem(message: "\(name) must be a real date", parts: notNumbers)) }
        if year.count != 4 { return .failure(DateInputProblem(message: "Year must include 4 numbers", parts: [.year])) }
        let (dayNumber, monthNumber, yearNumber) = (Int(day)!, Int(month)!, Int(year)!)
        if !(1...12).contains(monthNumber) { return .failure(DateInputProblem(message: "\(name) must be a real date", parts: [.month])) }
        guard let date = CalendarDate(year: yearNumber, month: monthNumber, day: dayNumber) else {
            return .failure(DateInputProblem(message: "\(name) must be a real date", parts: [.day]))
        }
        return .success(date)
    }
}

/// Why a date input was not accepted, and which of its boxes to correct.
struct DateInputProblem: Error, Sendable, Equatable {
    let message: String
    let parts: [DateInputValue.Part]
}

/// The GOV.UK date input as the template shows it: a fieldset of day, month and year boxes, one error message.
///
/// Each box's id is `<name>_<part>`, as is the name it is posted under; the error summary links to the first box to correct.
struct DateInputField: Sendable {
    struct Box: Sendable {
        let id: String
        let label: String
        let value: String
        let widthClass: String
        let hasError: Bool
    }

    let name: String
    let legend: String
    let hint: String?
    let boxes: [Box]
    let error: String?
    let hasError: Bool
    let describedBy: String?

    init(_ name: String, legend: String, hint: String? = nil, value: DateInputValue = DateInputValue(day: nil, month: nil, year: nil),
         problem: DateInputProblem? = nil) {
        self.name = name
        self.legend = legend
        self.hint = hint
        boxes = DateInputValue.Part.allCases.map { part in
            Box(
                id: Self.boxID(name, part), label: part.label, value: value[part],
                widthClass: part == .year ? "input--width-4" : "input--width-2",
                hasError: problem?.parts.contains(part) ?? false
            )
        }
        error = problem?.message
        hasError = problem != nil
        let ids = [hint == nil ? nil : "\(name)-hint", problem == nil ? nil : "\(name)-error"].compactMap { $0 }
        describedBy = ids.isEmpty ? nil : ids.joined(separator: " ")
    }

    static func boxID(_ name: String, _ part: DateInputValue.Part) -> String { "\(name)_\(part.rawValue)" }

    /// Where the error summary sends the person: the first box to correct.
    static func errorAnchor(_ name: String, _ problem: DateInputProblem) -> String {
        boxID(name, problem.parts.first ?? .day)
    }
}
