import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct PointsLedgerTests {
    /// 30 November 2026, 23:59:59.999 in New York (EST, UTC-5), and the first moment of December.
    static let lastMoment = Date(timeIntervalSince1970: 1_796_101_200 - 0.001)
    static let firstMoment = Date(timeIntervalSince1970: 1_796_101_200)

    @Test func theBoundaryIsLocalMidnightOnTheLastDayOfTheMonth() {
        let clock = ProgramClock(timeZone: TimeZone(identifier: "America/New_York")!)
        #expect(clock.date(of: Self.lastMoment).iso == "2026-11-30")
        #expect(clock.date(of: Self.firstMoment).iso == "2026-12-01")
        #expect(clock.instant(startOf: CalendarDate(year: 2026, month: 12, day: 1)!) == Self.firstMoment)
    }

    @Test(arguments: TestEngines.all)
    func pointsCountInTheMonthTheyWereEarnedAndNeverTwiceForOneActivity(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let clock = portal.portal.programSettings.current.clock
            let ledger = PointsLedger()
            let wren = AppAccountRef.member(1), lark = AppAccountRef.member(2)
            let module = PointsAward(reason: "module_completed", reference: "12", amount: 10, period: .month)
            let outcomes = try await portal.database.transaction { db -> [Bool] in
                let daily = PointsAward(reason: "daily_sign_in", reference: clock.date(of: Self.firstMoment).iso, amount: 1, period: .day)
                return [
                    try await ledger.award(module, to: wren, at: Self.lastMoment, clock: clock, on: db),
                    // The same module in the same month earns once.
                    try await ledger.award(module, to: wren, at: Self.lastMoment.addingTimeInterval(-3_600), clock: clock, on: db),
                    // A new month, a new chance.
                    try await ledger.award(module, to: wren, at: Self.firstMoment, clock: clock, on: db),
                    // Another member's is hers.
                    try await ledger.award(module, to: lark, at: Self.lastMoment, clock: clock, on: db),
                    try await ledger.award(daily, to: wren, at: Self.firstMoment, clock: clock, on: db),
                    try await ledger.award(daily, to: wren, at: Self.firstMoment.addingTimeInterval(600), clock: clock, on: db)
                ]
            }
            #expect(outcomes == [true, false, true, true, true, false])
            let (november, december, history) = try await portal.database.read { db in
                (
                    try await ledger.balance(of: wren, month: "2026-11", on: db), try await ledger.balance(of: wren, month: "2026-12", on: db),
                    try await ledger.history(of: wren, page: PageRequest(number: 1), on: db)
                )
            }
            #expect(november == 10 && december == 11, "the balance resets at local midnight, and nothing is lost: November's line is still there")
            #expect(history.totalCount == 3 && history.items.map(\.month) == ["2026-12", "2026-12", "2026-11"])
        }
    }

    /// Every account's kept balance, and the sum of its lines, by "role:id".
    static func balances(on db: any SQLDatabase) async throws -> (kept: [String: Int], summed: [String: Int]) {
        func keyed(_ rows: [any SQLRow]) throws -> [String: Int] {
            try Dictionary(
                uniqueKeysWithValues: rows.map { row in
                    (
                        "\(try row.decode(column: "account_role", as: String.self)):\(try row.decode(column: "account_id", as: Int64.self))",
                        try row.decode(column: "balance", as: Int.self)
                    )
                }
            )
        }
        return (
            try keyed(try await db.raw("SELECT account_role, account_id, balance FROM points_balances").all()),
            try keyed(
                try await db.raw(
                    """
                    SELECT account_role, account_id, CAST(SUM(amount) AS BIGINT) AS balance FROM points_ledger GROUP BY account_role, account_id
                    """
                ).all()
            )
        )
    }

    @Test(arguments: TestEngines.all)
    func theKeptBalanceIsTheSumOfHerLinesAfterAwardsSpendsRefusalsAndDeletions(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let clock = portal.portal.programSettings.current.clock
            let ledger = PointsLedger()
            let now = portal.clock.now
            let wren = AppAccountRef.member(1), lark = AppAccountRef.member(2), margaret = AppAccountRef.pharmacyCustomer(1)
            func check(_ step: String, _ expected: [String: Int]) async throws {
                let (kept, summed) = try await portal.database.read { db in try await Self.balances(on: db) }
                #expect(kept == summed, "after \(step)")
                #expect(kept == expected, "after \(step)")
            }
            let awarded = try await portal.database.transaction { db in
                let module = PointsAward(reason: "module_completed", reference: "12", amount: 10, period: .month)
                return [
                    try await ledger.award(module, to: wren, at: now, clock: clock, on: db),
                    try await ledger.award(module, to: wren, at: now, clock: clock, on: db),
                    try await ledger.award(
                        PointsAward(reason: "daily_sign_in", reference: "today", amount: 1, period: .day),
                        to: wren,
                        at: now,
                        clock: clock,
                        on: db
                    ),
                    try await ledger.award(
                        PointsAward(reason: "gift", reference: "a", amount: 40, period: .day),
                        to: margaret,
                        at: now,
                        clock: clock,
                        on: db
                    )
                ]
            }
            #expect(awarded == [true, false, true, true], "the same module in the same month earns once")
            try await check("awards", ["member:1": 11, "pharmacy_customer:1": 40])

            let spent = try await portal.database.transaction { db in
                [
                    try await ledger.spend(30, reason: "voucher", reference: "A", from: margaret, at: now, clock: clock, on: db),
                    try await ledger.spend(30, reason: "voucher", reference: "B", from: margaret, at: now, clock: clock, on: db),
                    try await ledger.spend(5, reason: "voucher", reference: "C", from: wren, at: now, clock: clock, on: db),
                    try await ledger.spend(1, reason: "voucher", reference: "D", from: lark, at: now, clock: clock, on: db)
                ]
            }
            #expect(spent == [10, nil, 6, nil], "each spend answers what is left, and one the balance cannot cover writes nothing")
            try await check("spends and refusals", ["member:1": 6, "pharmacy_customer:1": 10])

            // Eight spends of 2 at once against her 10: five are made, each leaving a different balance.
            let left = try await withThrowingTaskGroup(of: Int?.self) { group in
                for n in 0..<8 {
                    group.addTask {
                        try await portal.database.transaction { db in
                            try await ledger.spend(2, reason: "voucher", reference: "at once \(n)", from: margaret, at: now, clock: clock, on: db)
                        }
                    }
                }
                return try await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(left.compactMap { $0 }.sorted() == [0, 2, 4, 6, 8] && left.filter { $0 == nil }.count == 3)
            try await check("spends at once", ["member:1": 6, "pharmacy_customer:1": 0])

            try await portal.database.transaction { db in try await ledger.forget(margaret, on: db) }
            try await check("deleting her account", ["member:1": 6])

            // Migration 53's sum of the lines already there gives the same.
            try await portal.database.transaction { db in
                try await db.delete(from: "points_balances").run()
                try await PointsLedger.keepBalances(on: db)
            }
            try await check("summing afresh", ["member:1": 6])
        }
    }

    @Test(arguments: TestEngines.all)
    func herDailyPointComesWithTheAppOnceADayAndShowsAtOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, clock: TestClock(Self.lastMoment.addingTimeInterval(-7_200))) { portal in
            let (wren, member) = try await AppClient.registered(portal, pseudonym: "Wren")
            var points = try await wren.get(SiteURL.apiPoints.path).object
            #expect(points["month"] as? String == "2026-11" && points["balance"] as? Int == 1, "registering is her first use today: \(points)")
            #expect(points["resets_at"] as? String == "2026-12-01T05:00:00Z")
            // Signing in again the same day earns nothing more.
            #expect(try await wren.send(.post, "/api/v1/sessions", json: ["pseudonym": "Wren", "password": "Sunrise#2027"]).status == .created)
            #expect(try await wren.get(SiteURL.apiPoints.path).object["balance"] as? Int == 1)
            // Past local midnight her token's next renewal is her first use of the new day.
            portal.clock.advance(by: Self.firstMoment.timeIntervalSince(portal.clock.now) + 3_600)
            points = try await wren.get(SiteURL.apiPoints.path).object
            #expect(points["month"] as? String == "2026-12" && points["balance"] as? Int == 1, "December starts again")
            #expect((points["history"] as? [[String: Any]])?.compactMap { $0["day"] as? String } == ["2026-12-01", "2026-11-30"])
            let id = Int64(try #require(member["id"] as? Int))
            let events = try await portal.database.read { db in try await MemberEvents().events(memberID: id, kind: .dailySignIn, on: db) }
            #expect(events.count == 2 && events.allSatisfy { $0.number == 1 })

            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.memberDelete(id).path).status == .seeOther)
            let left = try await portal.database.read { db in try await db.count(in: "points_ledger") { $0.where("account_id", .equal, id) } }
            #expect(left == 0, "a deleted member's points go with her")
        }
    }

    @Test(arguments: TestEngines.all)
    func administratorsSetWhatActivitiesEarn(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let page = try await admin.get(SiteURL.learning.path).text
            #expect(page.contains("Using the app, once a day") && page.contains("37 weeks have nothing written yet"))
            let bad = try await admin.post(
                SiteURL.pointsRules.path,
                form: [
                    ("daily_sign_in", "two"), ("video_watched", "3"), ("module_completed", "101"), ("survey_completed", "5")
                ]
            )
            #expect(bad.status == .unprocessableContent && bad.text.contains("Enter a whole number of points from 0 to 100"))
            #expect(bad.text.contains(#"value="two""#))
            #expect(try await portal.database.read { db in try await PointsRulesRepository().rules(on: db) } == .defaults, "nothing changed")
            #expect(
                try await admin.post(
                    SiteURL.pointsRules.path,
                    form: [
                        ("daily_sign_in", "2"), ("video_watched", "3"), ("module_completed", "12"), ("survey_completed", "5")
                    ]
                ).status == .seeOther
            )
            #expect(try await portal.database.read { db in try await PointsRulesRepository().rules(on: db) }.dailySignIn == 2)
            #expect(try await portal.auditEntries(action: .pointsRulesChanged).count == 1)
            let (wren, _) = try await AppClient.registered(portal)
            #expect(try await wren.get(SiteURL.apiPoints.path).object["balance"] as? Int == 2)
        }
    }
}

@Suite struct BabyWeekTests {
    @Test func herWeekIsCountedBackFromHerDueDate() {
        let due = CalendarDate(year: 2027, month: 5, day: 1)!
        #expect(BabyWeek.week(dueDate: due, today: due) == 41, "the due date begins week 41")
        #expect(BabyWeek.week(dueDate: due, today: due.adding(days: -1)) == 40)
        #expect(BabyWeek.week(dueDate: due, today: due.adding(days: -7)) == 40)
        #expect(BabyWeek.week(dueDate: due, today: due.adding(days: -8)) == 39)
        #expect(BabyWeek.week(dueDate: due, today: due.adding(days: -280)) == 1)
        #expect(
            BabyWeek.trimester(of: 13) == 1 && BabyWeek.trimester(of: 14) == 2 && BabyWeek.trimester(of: 27) == 2 && BabyWeek.trimester(of: 28) == 3
        )
        #expect(BabyWeekContent.weeks.map(\.week) == Array(BabyWeek.weeks), "the demo content covers every week")
    }

    @Test(arguments: TestEngines.all)
    func aMemberReadsHerWeekAndAdministratorsWriteIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            // Due in 12 weeks and a day: she is in week 28.
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren", ["due_date": today.adding(days: 85).iso])
            #expect(try await wren.get(SiteURL.apiBabyWeek.path).status == .notFound, "nothing written for her week yet")

            let empty = try await admin.post(SiteURL.babyWeek(28).path, form: [("size", ""), ("mother", ""), ("baby", "")])
            #expect(empty.status == .unprocessableContent)
            #expect(empty.text.contains("size, like the size of a lime") && empty.text.contains("Enter what the mother may be experiencing"))
            #expect(
                try await admin.post(
                    SiteURL.babyWeek(28).path,
                    form: [
                        ("size", "About the size of an eggplant"), ("mother", "Get to know your baby's movements."), ("baby", "The baby can blink.")
                    ]
                ).status == .seeOther
            )
            #expect(try await admin.get(SiteURL.babyWeek(41).path).status == .notFound)
            #expect(try await portal.auditEntries(action: .babyWeekChanged).count == 1)

            let week = try await wren.get(SiteURL.apiBabyWeek.path).object
            #expect(week["week"] as? Int == 28 && week["trimester"] as? Int == 3 && week["size"] as? String == "About the size of an eggplant")
            #expect(week["days_to_go"] as? Int == 85)
            #expect(try await wren.get(SiteURL.apiBabyWeek.path + "?week=3").status == .badRequest)
            #expect(try await wren.get(SiteURL.apiBabyWeek.path + "?week=29").status == .notFound)
        }
    }
}
