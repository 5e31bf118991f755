import Foundation
import PortalPlatform
import SQLKit

/// One week of pregnancy in the app's "your baby this week": the baby's size against a fruit or
/// vegetable, what the mother may be feeling, and what is happening to the baby.
struct BabyWeek: Sendable, Equatable {
    static let weeks = 4...40

    var week: Int
    var size: String
    var mother: String
    var baby: String
    var updatedAt: Date?

    var trimester: Int { Self.trimester(of: week) }

    /// Weeks 1–13 are the first trimester, 14–27 the second, 28 onwards the third.
    static func trimester(of week: Int) -> Int { week <= 13 ? 1 : week <= 27 ? 2 : 3 }

    static func trimesterTitle(_ trimester: Int) -> String { ["First", "Second", "Third"][trimester - 1] + " trimester" }

    /// The week of pregnancy she is in on `today`, counted back from her due date (which is the first day
    /// of week 41): 280 days before it is day one of week 1.
    static func week(dueDate: CalendarDate, today: CalendarDate) -> Int {
        let daysPregnant = 280 - (dueDate.dayNumber - today.dayNumber)
        return daysPregnant / 7 + 1
    }
}

/// The only place the weeks' SQL lives.
struct BabyWeekRepository: Sendable {
    func all(on db: any SQLDatabase) async throws -> [BabyWeek] {
        try await db.select().columns("week", "size", "mother", "baby", "updated_at").from("baby_weeks").orderBy("week").all().map(decode)
    }

    func find(week: Int, on db: any SQLDatabase) async throws -> BabyWeek? {
        try await db.select().columns("week", "size", "mother", "baby", "updated_at").from("baby_weeks").where("week", .equal, week).first().map(
            decode
        )
    }

    func save(_ week: BabyWeek, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "baby_weeks").columns("week", "size", "mother", "baby", "updated_at")
            .values(SQLBind(week.week), SQLBind(week.size), SQLBind(week.mother), SQLBind(week.baby), SQLBind(now.millisecondsSince1970))
            .onConflict(with: ["week"]) {
                $0.set(excludedValueOf: "size").set(excludedValueOf: "mother").set(excludedValueOf: "baby").set(excludedValueOf: "updated_at")
            }
            .run()
    }

    private func decode(_ row: any SQLRow) throws -> BabyWeek {
        BabyWeek(
            week: try row.decode(column: "week", as: Int.self),
            size: try row.decode(column: "size", as: String.self),
            mother: try row.decode(column: "mother", as: String.self),
            baby: try row.decode(column: "baby", as: String.self),
            updatedAt: Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self))
        )
    }
}
