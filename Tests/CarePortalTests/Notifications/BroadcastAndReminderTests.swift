import Foundation
import HTTPTypes
import Logging
import Testing
@testable import CarePortal
@testable import PortalPlatform

enum BroadcastSteps {
    static func form(
        title: String = "Group meets Thursday",
        body: String = "Same room, 6pm.",
        audience: String = "everyone",
        cohorts: [Int64] = [],
        when: String = "now",
        day: CalendarDate? = nil,
        time: String = "",
        step: String = "check"
    ) -> [(String, String)] {
        [
            ("title", title), ("body", body), ("audience", audience), ("when", when),
            ("send_on_day", day.map { String($0.day) } ?? ""), ("send_on_month", day.map { String($0.month) } ?? ""),
            ("send_on_year", day.map { String($0.year) } ?? ""), ("send_time", time), ("step", step)
        ]
            + cohorts.map { ("cohorts[]", String($0)) }
    }

    static func broadcastCount(_ portal: TestPortal) async throws -> Int {
        try await portal.database.read { db in try await db.count(in: "broadcasts") }
    }

    static func cohortID(_ portal: TestPortal, memberID: Int64) async throws -> Int64 {
        try #require(try await portal.database.read { db in try await MemberRepository().find(id: memberID, on: db) }).cohort.id
    }
}

@Suite struct BroadcastTests {
    @Test(arguments: TestEngines.all)
    func aBroadcastIsCheckedThenReachesExactlyItsCohortsAndIsAudited(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, wrenID) = try await FeedSteps.member(portal, "Wren")
            let (lark, _) = try await FeedSteps.member(portal, "Lark")
            let (heron, _) = try await FeedSteps.member(portal, "Heron", monthsAhead: 7)
            let cohort = try await BroadcastSteps.cohortID(portal, memberID: wrenID)
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get(SiteURL.broadcasts.path).text.contains("No broadcasts yet"))

            let empty = try await admin.post(SiteURL.newBroadcast.path, form: BroadcastSteps.form(title: "", body: "", audience: "cohorts", when: ""))
            #expect(empty.status == .unprocessableContent)
            for message in ["Enter a title", "Enter the message", "Choose at least one cohort", "Choose when to send it"] {
                #expect(empty.text.contains(message), "says \(message)")
            }
            #expect(empty.text.contains(##"href="#title""##), "the error summary links to the field")
            let longAgo = try await admin.post(
                SiteURL.newBroadcast.path,
                form: BroadcastSteps.form(
                    when: "later",
                    day: CalendarDate(portal.clock.now).adding(days: -1),
                    time: "09:00"
                )
            )
            #expect(longAgo.status == .unprocessableContent && longAgo.text.contains("Choose a time in the future"))
            #expect(longAgo.text.contains(#"value="Group meets Thursday""#), "what she typed is kept")

            let check = try await admin.post(SiteURL.newBroadcast.path, form: BroadcastSteps.form(audience: "cohorts", cohorts: [cohort]))
            #expect(check.status == .ok && check.text.contains("Check your broadcast") && check.text.contains("2 members would get it now"))
            #expect(try await BroadcastSteps.broadcastCount(portal) == 0, "checking sends nothing")
            let change = try await admin.post(
                SiteURL.newBroadcast.path,
                form: BroadcastSteps.form(audience: "cohorts", cohorts: [cohort], step: "change")
            )
            #expect(change.text.contains("Write a broadcast") && change.text.contains(#"value="\#(cohort)" checked"#))

            let sent = try await admin.post(
                SiteURL.newBroadcast.path,
                form: BroadcastSteps.form(audience: "cohorts", cohorts: [cohort], step: "send")
            )
            #expect(sent.status == .seeOther)
            for app in [wren, lark] {
                let entry = try #require(try await FeedSteps.entries(app, kind: "broadcast").first)
                #expect(entry["message"] as? String == "Group meets Thursday" && entry["body"] as? String == "Same room, 6pm.")
            }
            #expect(try await FeedSteps.entries(heron, kind: "broadcast").isEmpty, "another cohort's member gets nothing")
            let page = try await admin.get(try #require(sent.location))
            #expect(page.text.contains("Reached") && page.text.contains("2 members"))
            #expect(try await portal.auditEntries(action: .broadcastSent).count == 1)
        }
    }

    /// The list shows each broadcast's audience (its cohorts by name) and how many members it reached and
    /// how many of them read it, each read for the page's broadcasts together.
    @Test(arguments: TestEngines.all)
    func theListShowsEachBroadcastsCohortsAndHowManyReadIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, wrenID) = try await FeedSteps.member(portal, "Wren")
            let (lark, _) = try await FeedSteps.member(portal, "Lark")
            let (heron, heronID) = try await FeedSteps.member(portal, "Heron", monthsAhead: 6)
            let (soon, later) = (
                try await BroadcastSteps.cohortID(portal, memberID: wrenID), try await BroadcastSteps.cohortID(portal, memberID: heronID)
            )
            let names = try await portal.database.read { db in try await MemberRepository().cohorts(on: db) }
                .reduce(into: [Int64: String]()) { $0[$1.id] = $1.name }
            var (admin, _) = try await portal.signedIn(.administrator)
            for (title, audience, cohorts) in [
                ("To all", "everyone", [Int64]()), ("To both", "cohorts", [later, soon]), ("To one", "cohorts", [later])
            ] {
                let sent = try await admin.post(
                    SiteURL.newBroadcast.path,
                    form: BroadcastSteps.form(title: title, audience: audience, cohorts: cohorts, step: "send")
                )
                #expect(sent.status == .seeOther, "\(title)")
                portal.clock.advance(by: 60)
            }
            // Wren reads the two she was sent, Heron all three; Lark none.
            for app in [wren, heron] {
                #expect(try await app.send(.post, SiteURL.apiNotificationsReadAll.path, json: [:]).object["unread_count"] as? Int == 0)
            }
            #expect(try await FeedSteps.feed(lark).unread == 2)
            let rows = try await admin.get(SiteURL.broadcasts.path).tableRows
            let both = [soon, later].sorted().map { names[$0] ?? "" }.joined(separator: ", ")
            #expect(
                rows.map { $0.count == 6 ? [$0[0], $0[1], $0[4], $0[5]] : $0 } == [
                    ["To one", names[later] ?? "", "1 member", "1 member"],
                    ["To both", both, "3 members", "2 members"],
                    ["To all", "Every member", "3 members", "2 members"]
                ]
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func aScheduledBroadcastGoesOnceAtItsTimeAndACancelledOneNever(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await FeedSteps.member(portal, "Wren")
            var (admin, _) = try await portal.signedIn(.administrator)
            let clock = portal.portal.programSettings.current.clock
            let tomorrow = clock.date(of: portal.clock.now).adding(days: 1)
            let due = clock.instant(on: tomorrow, atMinute: 9 * 60)
            #expect(
                try await admin.post(SiteURL.newBroadcast.path, form: BroadcastSteps.form(when: "later", day: tomorrow, time: "09:00", step: "send"))
                    .status == .seeOther
            )
            let cancelled = try await admin.post(
                SiteURL.newBroadcast.path,
                form: BroadcastSteps.form(title: "Never", when: "later", day: tomorrow, time: "09:00", step: "send")
            )
            let cancelledID = try #require(cancelled.location.flatMap { Int64($0.split(separator: "/").last ?? "") })
            #expect(try await admin.get(SiteURL.broadcastCancel(cancelledID).path).text.contains("Cancel this broadcast?"))
            #expect(try await admin.post(SiteURL.broadcastCancel(cancelledID).path).status == .seeOther)
            #expect(try await portal.auditEntries(action: .broadcastCancelled).count == 1)

            let broadcasts = try FeedSteps.feature(portal).broadcasts
            portal.clock.advance(by: due.timeIntervalSince(portal.clock.now) - 1)
            #expect(try await broadcasts.sendDue() == 0, "not a second early")
            portal.clock.advance(by: 1)
            #expect(try await broadcasts.sendDue() == 1)
            #expect(try await broadcasts.sendDue() == 0, "once")
            let entries = try await FeedSteps.entries(wren, kind: "broadcast")
            #expect(entries.count == 1 && entries.first?["message"] as? String == "Group meets Thursday")
            (admin, _) = try await portal.signedIn(.administrator)
            #expect(
                try await admin.get(SiteURL.broadcastCancel(cancelledID).path).location == SiteURL.broadcast(cancelledID).path,
                "nothing to confirm for a broadcast already cancelled"
            )
            let page = try await admin.get(SiteURL.broadcast(cancelledID).path).text
            #expect(page.contains("Cancelled") && !page.contains("Cancel this broadcast"))
        }
    }

    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs PostgreSQL"))
    func twoServersSendAScheduledBroadcastOnce() async throws {
        try await TestPortal.run(.postgres) { first in
            let clock = first.clock
            var dependencies = Dependencies(now: { clock.now }, passwordHashCost: 4)
            dependencies.runsBackgroundJobs = false
            let second = try await buildApplication(
                settings: first.portal.settings,
                dependencies: dependencies,
                logger: Logger(label: "second-server")
            )
            var apps: [AppClient] = []
            for index in 0..<20 { apps.append(try await FeedSteps.member(first, "m\(index)").0) }
            let (_, staff) = try await first.signedIn(.administrator)
            let sendAt = clock.now.addingTimeInterval(60)
            _ = try await first.database.transaction { db in
                try await BroadcastRepository().insert(
                    NewBroadcast(title: "Once", body: "Only once.", cohortIDs: nil, sendAt: sendAt),
                    status: .scheduled,
                    sendAt: sendAt,
                    by: staff,
                    now: clock.now,
                    on: db
                )
            }
            clock.advance(by: 61)
            // The second server runs (its database connections with it) while both look for due broadcasts.
            try await second.application.test(.router) { _ in
                let a = try FeedSteps.feature(first).broadcasts
                let b = try #require(second.feature(NotificationsFeature.self)).broadcasts
                async let fromFirst = a.sendDue()
                async let fromSecond = b.sendDue()
                #expect(try await fromFirst + fromSecond == 1)
            }
            for app in apps { #expect(try await FeedSteps.entries(app, kind: "broadcast").count == 1) }
        }
    }
}

@Suite struct CheckInReminderTests {
    @Test(arguments: TestEngines.all)
    func theDailyCheckInComesOnceAtHerTimeUnlessSheAlreadySharedHerMood(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await FeedSteps.member(portal, "Wren")
            let (lark, _) = try await FeedSteps.member(portal, "Lark")
            let clock = portal.portal.programSettings.current.clock
            let minute = clock.minuteOfDay(of: portal.clock.now)
            let soon = TimeOfDay(minutes: (minute + 5) % 1_440).text
            for app in [wren, lark] { #expect(try await FeedSteps.preferences(app, ["check_in_time": soon]).status == .ok) }
            #expect(try await lark.send(.post, SiteURL.apiMoods.path, json: ["mood": "happy", "client_id": "m1"]).status == .created)
            let reminders = try FeedSteps.feature(portal).checkIns

            #expect(try await reminders.writeDue() == 0, "not before her time")
            portal.clock.advance(by: 5 * 60 + 20)
            #expect(try await reminders.writeDue() == 1)
            portal.clock.advance(by: 10)
            #expect(try await reminders.writeDue() == 0, "once a day, however often the job runs")
            #expect(try await FeedSteps.entries(wren, kind: "check_in_reminder").count == 1)
            #expect(try await FeedSteps.entries(lark, kind: "check_in_reminder").isEmpty, "she already shared how she feels today")
            portal.clock.advance(by: 86_400 - 30)
            #expect(try await reminders.writeDue() == 2, "the next day, both")
        }
    }
}

@Suite struct CalendarTests {
    static func add(_ app: AppClient, _ json: [String: Any]) async throws -> AppResponse {
        try await app.send(.post, SiteURL.apiCalendarEvents.path, json: json)
    }

    @Test(arguments: TestEngines.all)
    func herCalendarIsHersAloneAndBadEventsAreRefused(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await FeedSteps.member(portal, "Wren")
            let (lark, _) = try await FeedSteps.member(portal, "Lark")
            let day = CalendarDate(portal.clock.now).adding(days: 2).iso
            let created = try await Self.add(
                wren,
                ["kind": "appointment", "title": "Scan", "date": day, "times": ["10:30"], "note": "Bring the letter"]
            )
            #expect(created.status == .created)
            let id = Int64(try #require(created.object["id"] as? Int))
            #expect(created.object["next_occurrence_at"] is String && created.object["repeats"] as? String == "never")

            for path in [SiteURL.apiCalendarEvent(id).path] {
                #expect(try await lark.get(path).status == .notFound)
                #expect(
                    try await lark.send(.put, path, json: ["kind": "other", "title": "Mine now", "date": day, "times": ["09:00"]]).status == .notFound
                )
                #expect(try await lark.send(.delete, path).status == .notFound)
            }
            let hers = try await lark.get(SiteURL.apiCalendarEvents.path).object["events"] as? [Any]
            #expect(hers?.isEmpty == true, "another member's calendar shows none of hers")

            for (bad, field) in [
                (["kind": "party", "title": "x", "date": day, "times": ["09:00"]], "kind"),
                (["kind": "other", "title": "", "date": day, "times": ["09:00"]], "title"),
                (["kind": "other", "title": "x", "date": "14/03/2027", "times": ["09:00"]], "date"),
                (["kind": "other", "title": "x", "date": day, "times": ["9am"]], "times"),
                (["kind": "other", "title": "x", "date": day, "times": ["09:00", "21:00"]], "times"),
                (["kind": "medication", "title": "x", "date": day, "times": ["09:00"], "repeats": "daily", "until": "2020-01-01"], "until")
            ] as [([String: Any], String)] {
                let refused = try await Self.add(wren, bad)
                #expect(refused.status == .unprocessableContent && refused.fieldErrors[field] != nil, "\(bad): \(refused.text)")
            }
            let changed = try await wren.send(
                .put,
                SiteURL.apiCalendarEvent(id).path,
                json: ["kind": "appointment", "title": "Scan at the hospital", "date": day, "times": ["11:00"]]
            )
            #expect(changed.status == .ok && changed.object["times"] as? [String] == ["11:00"])
            let list = try await wren.get(SiteURL.apiCalendarEvents.path + "?from=\(day)&to=\(day)").object
            #expect((list["occurrences"] as? [[String: Any]])?.map { $0["time"] as? String } == ["11:00"])
            #expect(try await wren.get(SiteURL.apiCalendarEvents.path + "?from=\(day)&to=2099-01-01").status == .badRequest)
            #expect(try await wren.send(.delete, SiteURL.apiCalendarEvent(id).path).status == .noContent)
            #expect(try await wren.get(SiteURL.apiCalendarEvent(id).path).status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func aDailyMedicationKeepsItsTimeAcrossDaylightSavingAndEachReminderComesOnce(engine: Database.Engine) async throws {
        // Thursday 11 March 2027, 06:00 in New York: the clocks go forward on Sunday the 14th.
        let start = ISO8601DateFormatter().date(from: "2027-03-11T11:00:00Z")!
        try await TestPortal.run(engine, clock: TestClock(start)) { portal in
            let (wren, _) = try await FeedSteps.member(portal, "Wren")
            #expect(try await FeedSteps.preferences(wren, ["reminder_lead_minutes": 30]).status == .ok)
            let created = try await Self.add(
                wren,
                ["kind": "medication", "title": "Folate", "date": "2027-03-11", "times": ["08:00"], "repeats": "daily", "until": "2027-03-16"]
            )
            #expect(created.status == .created)
            let list = try await wren.get(SiteURL.apiCalendarEvents.path + "?from=2027-03-12&to=2027-03-15").object
            let times = (list["occurrences"] as? [[String: Any]])?.compactMap { $0["at"] as? String }
            #expect(
                times == ["2027-03-12T13:00:00Z", "2027-03-13T13:00:00Z", "2027-03-14T12:00:00Z", "2027-03-15T12:00:00Z"],
                "08:00 on the wall clock each day, whatever the offset"
            )

            let calendar = try #require(portal.app.feature(CalendarFeature.self)).calendar
            // 07:29: a minute before her 30-minute lead.
            portal.clock.advance(by: 89 * 60)
            #expect(try await calendar.remindDue() == 0)
            portal.clock.advance(by: 60)
            #expect(try await calendar.remindDue() == 1)
            // The job stopped and started again (a new server, the same database) around the time: still once.
            #expect(try await MemberCalendar(portal: portal.portal).remindDue() == 0)
            let reminders = try await FeedSteps.entries(wren, kind: "calendar_reminder")
            #expect(reminders.count == 1 && reminders.first?["message"] as? String == "Folate at 08:00")

            // Through the weekend to Monday 07:35 EDT, the job running every ten minutes.
            var told = 1
            let monday = ISO8601DateFormatter().date(from: "2027-03-15T11:35:00Z")!
            while portal.clock.now < monday {
                portal.clock.advance(by: 600)
                told += try await calendar.remindDue()
            }
            let days = try await FeedSteps.entries(wren, kind: "calendar_reminder").compactMap { $0["created_at"] as? String }
            #expect(
                days.map { $0.prefix(13) } == ["2027-03-15T11", "2027-03-14T11", "2027-03-13T12", "2027-03-12T12", "2027-03-11T12"],
                "each 30 minutes before 08:00 on the wall clock"
            )
            #expect(told == 5, "one reminder a day from the 11th to the 15th, none twice")
        }
    }
}
