import Foundation
import PortalPlatform

/// A woman enrolled in the study by staff, known by the study id they chose.
struct StudyParticipant: Sendable, Equatable {
    enum Status: String, Sendable, CaseIterable {
        case active
        /// Her login has stopped; her data stays for the study.
        case withdrawn

        var title: String { self == .active ? "Active" : "Withdrawn" }
        var tagTone: TableRows.TagTone { self == .active ? .green : .grey }
        var tagClass: String { tagTone.tagClass }
    }

    let id: Int64
    let studyCode: String
    let arm: String?
    let email: String?
    let enrolledOn: CalendarDate
    let withdrawnOn: CalendarDate?
    let status: Status
    let username: String
    let mustChangePassword: Bool
    let lastActiveAt: Date?
    let createdAt: Date
    /// Her claim token, when she was enrolled with one rather than a one-time password.
    var claim: StudyClaim? = nil

    /// The days she is in the study up to `today`: from enrolment to the day before she withdrew.
    func days(through today: CalendarDate) -> ClosedRange<Int>? {
        let last = min(today.dayNumber, (withdrawnOn?.dayNumber ?? Int.max) - 1)
        guard last >= enrolledOn.dayNumber else { return nil }
        return enrolledOn.dayNumber...last
    }
}

/// One of the study's daily to-dos, asked of every participant on each day from `startsOn` to `endsOn`.
/// Changing an item that has already been asked ends it today and starts its replacement tomorrow, so
/// what a past day asked never changes.
struct StudyTodoItem: Sendable, Equatable {
    let id: Int64
    let title: String
    let startsOn: CalendarDate
    let endsOn: CalendarDate?
    let position: Int
    let replacesID: Int64?

    func applies(on day: CalendarDate) -> Bool { applies(onDayNumber: day.dayNumber) }

    func applies(onDayNumber day: Int) -> Bool {
        startsOn.dayNumber <= day && (endsOn.map { day <= $0.dayNumber } ?? true)
    }

    /// "From the start of the study", "From 3 March 2027 to 31 March 2027".
    var period: String {
        let start = startsOn.year <= 1970 ? "From the start of the study" : "From \(startsOn.displayed)"
        return endsOn.map { "\(start) to \($0.displayed)" } ?? start
    }
}

/// The day-by-day outcome of the to-dos: a closed day (before today on the program's clock) with no
/// mark for an item counts as not done.
struct StudySchedule: Sendable {
    let items: [StudyTodoItem]

    init(items: [StudyTodoItem]) {
        self.items = items.sorted { ($0.position, $0.id) < ($1.position, $1.id) }
    }

    func items(on day: CalendarDate) -> [StudyTodoItem] { items.filter { $0.applies(on: day) } }

    func items(onDayNumber day: Int) -> [StudyTodoItem] { items.filter { $0.applies(onDayNumber: day) } }

    /// Her figures over the closed days of `days`, and whether today (open) is all done so far.
    func statistics(days: ClosedRange<Int>?, today: CalendarDate, marks: Set<StudyMark>) -> StudyStatistics {
        var perItem: [Int64: (offered: Int, done: Int)] = [:]
        var closedDays = 0, allDoneDays = 0
        var completeByDay: [Int: Bool] = [:]
        if let days {
            for day in days {
                let asked = items(onDayNumber: day)
                let done = asked.filter { marks.contains(StudyMark(itemID: $0.id, dayNumber: day)) }
                let complete = !asked.isEmpty && done.count == asked.count
                completeByDay[day] = complete
                guard day < today.dayNumber else { continue }
                closedDays += 1
                if complete { allDoneDays += 1 }
                for item in asked {
                    var counts = perItem[item.id] ?? (0, 0)
                    counts.offered += 1
                    if done.contains(item) { counts.done += 1 }
                    perItem[item.id] = counts
                }
            }
        }
        // The streak runs back from yesterday; today adds to it once everything today is done.
        var streak = 0
        var day = today.dayNumber - 1
        while completeByDay[day] == true { streak += 1; day -= 1 }
        if completeByDay[today.dayNumber] == true { streak += 1 }
        return StudyStatistics(
            closedDays: closedDays,
            allDoneDays: allDoneDays,
            currentStreak: streak,
            items: items.compactMap { item in perItem[item.id].map { .init(item: item, offeredDays: $0.offered, doneDays: $0.done) } }
        )
    }
}

/// An item marked done on a day.
struct StudyMark: Sendable, Hashable {
    let itemID: Int64
    let dayNumber: Int
}

struct StudyStatistics: Sendable {
    struct Item: Sendable {
        let item: StudyTodoItem
        let offeredDays: Int
        let doneDays: Int
    }

    let closedDays: Int
    let allDoneDays: Int
    let currentStreak: Int
    let items: [Item]
}

/// Rules for what staff and participants type.
enum StudyRules {
    static let studyCodeMaximumLength = 20
    static let armMaximumLength = 40
    static let titleMaximumLength = 80
    static let contactMaximumLength = 20_000

    /// The key two study ids must not share: upper case, so "nu-017" and "NU-017" are one participant.
    static func studyCodeKey(_ code: String) -> String { code.trimmed.uppercased() }

    static func studyCodeProblem(_ code: String) -> String? {
        if code.isEmpty { return "Enter the participant's study id, like NU-017" }
        if code.count > studyCodeMaximumLength { return "Study id must be \(studyCodeMaximumLength) characters or fewer" }
        let allowed = code.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)
        }
        if !allowed { return "Study id must only include letters a to z, numbers, hyphens, underscores and full stops" }
        return nil
    }

    /// Her username for the app: the study id in lower case.
    static func username(for code: String) -> String { code.trimmed.lowercased() }

    /// A one-time password for staff to give her, from the injected randomness: 12 letters and digits
    /// people do not confuse, in groups of three to read out.
    static func oneTimePassword(_ randomBytes: @Sendable (Int) -> [UInt8]) -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        // 248 is the largest multiple of 31 below 256, so each letter is equally likely.
        var letters: [Character] = []
        while letters.count < 12 {
            for byte in randomBytes(16) where byte < 248 && letters.count < 12 { letters.append(alphabet[Int(byte) % alphabet.count]) }
        }
        return stride(from: 0, to: 12, by: 3).map { String(letters[$0..<$0 + 3]) }.joined(separator: "-")
    }
}
