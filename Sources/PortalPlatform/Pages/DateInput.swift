import Foundation

extension Character {
    package var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// What someone typed in the day, month and year boxes of a date input.
package struct DateInputValue: Sendable, Equatable {
    package enum Part: String, CaseIterable, Sendable {
        case day, month, year

        package var label: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
    }

    package var day: String
    package var month: String
    package var year: String

    package init(day: String?, month: String?, year: String?) {
        self.day = day?.trimmed ?? ""
        self.month = month?.trimmed ?? ""
        self.year = year?.trimmed ?? ""
    }

    package subscript(part: Part) -> String {
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
    package func date(named name: String, missing: String) -> Result<CalendarDate, DateInputProblem> {
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
package struct DateInputProblem: Error, Sendable, Equatable {
    package let message: String
    package let parts: [DateInputValue.Part]

    package init(message: String, parts: [DateInputValue.Part]) {
        self.message = message
        self.parts = parts
    }
}

/// The GOV.UK date input as the template shows it: a fieldset of day, month and year boxes, one error message.
///
/// Each box's id is `<name>_<part>`, as is the name it is posted under; the error summary links to the first box to correct.
package struct DateInputField: Sendable, Encodable {
    package struct Box: Sendable, Encodable {
        package let id: String
        package let label: String
        package let value: String
        package let widthClass: String
        package let hasError: Bool

        package init(id: String, label: String, value: String, widthClass: String, hasError: Bool) {
            self.id = id
            self.label = label
            self.value = value
            self.widthClass = widthClass
            self.hasError = hasError
        }
    }

    package let name: String
    package let legend: String
    package let hint: String?
    package let boxes: [Box]
    package let error: String?
    package let hasError: Bool
    package let describedBy: String?

    package init(
        _ name: String,
        legend: String,
        hint: String? = nil,
        value: DateInputValue = DateInputValue(day: nil, month: nil, year: nil),
        problem: DateInputProblem? = nil
    ) {
        self.name = name
        self.legend = legend
        self.hint = hint
        boxes = DateInputValue.Part.allCases.map { part in
            Box(
                id: Self.boxID(name, part),
                label: part.label,
                value: value[part],
                widthClass: part == .year ? "input--width-4" : "input--width-2",
                hasError: problem?.parts.contains(part) ?? false
            )
        }
        error = problem?.message
        hasError = problem != nil
        let ids = [hint == nil ? nil : "\(name)-hint", problem == nil ? nil : "\(name)-error"].compactMap { $0 }
        describedBy = ids.isEmpty ? nil : ids.joined(separator: " ")
    }

    package static func boxID(_ name: String, _ part: DateInputValue.Part) -> String { "\(name)_\(part.rawValue)" }

    /// Where the error summary sends the person: the first box to correct.
    package static func errorAnchor(_ name: String, _ problem: DateInputProblem) -> String {
        boxID(name, problem.parts.first ?? .day)
    }
}

extension FormErrors {
    /// Adds each field's problem in `order`. A date input's problem goes to its first box to correct: the
    /// page's own check of the boxes (in `dates`), or else a message about the date as a whole from
    /// `problems` (a date in the future, say), which is put in `dates` so the field shows it too.
    package mutating func add(_ problems: [String: String], in order: [String], dates: inout [String: DateInputProblem], dateFields: Set<String>) {
        for field in order {
            if dateFields.contains(field) {
                guard let problem = dates[field] ?? problems[field].map({ DateInputProblem(message: $0, parts: DateInputValue.Part.allCases) }) else {
                    continue
                }
                dates[field] = problem
                add(DateInputField.errorAnchor(field, problem), problem.message)
            } else if let problem = problems[field] {
                add(field, problem)
            }
        }
    }
}
