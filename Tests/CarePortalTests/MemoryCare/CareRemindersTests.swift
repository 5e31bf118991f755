import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Reminders fall due at her local time across daylight saving, reach her feed once whatever the servers
/// do, never carry a secured memory's words, and an appointment or to-do still open tells the caregivers
/// who see her reminders.
@Suite struct CareRemindersTests {
    let clock = ProgramClock(timeZone: TimeZone(identifier: "America/New_York")!)

    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func remindersKeepHerLocalTimeAcrossDaylightSaving() {
        // 1 November 2026: clocks go back from 2:00 EDT to 1:00 EST. 14 March 2027: forward from 2:00 EST to 3:00 EDT.
        let daily = { (after: String) in
            ReminderSchedule.next(reminderAt: "2026-10-30T09:00", recurrence: .daily, days: [], after: self.utc(after), clock: self.clock)
        }
        #expect(daily("2026-10-30T00:00:00Z") == utc("2026-10-30T13:00:00Z"))
        #expect(daily("2026-10-31T13:00:00Z") == utc("2026-11-01T14:00:00Z"), "09:00 EST is an hour later in UTC")
        #expect(daily("2026-11-01T14:00:00Z") == utc("2026-11-02T14:00:00Z"))
        #expect(daily("2026-10-01T00:00:00Z") == utc("2026-10-30T13:00:00Z"), "nothing before her first day")

        let weekly = ReminderSchedule.next(
            reminderAt: "2027-03-08T02:30",
            recurrence: .weekly,
            days: ["sun", "wed"],
            after: utc("2027-03-11T00:00:00Z"),
            clock: clock
        )
        #expect(weekly == utc("2027-03-14T07:30:00Z"), "2:30 does not happen on 14 March: it comes when the clock says 3:30")
        let monthly = ReminderSchedule.next(
            reminderAt: "2027-01-31T08:00",
            recurrence: .monthly,
            days: [],
            after: utc("2027-02-01T00:00:00Z"),
            clock: clock
        )
        #expect(monthly == utc("2027-02-28T13:00:00Z"), "the 31st, in a shorter month, is its last day")
        #expect(
            ReminderSchedule.next(reminderAt: "2027-01-31T08:00", recurrence: .monthly, days: [], after: utc("2027-02-28T13:00:00Z"), clock: clock)
                == utc("2027-03-31T12:00:00Z")
        )
        #expect(
            ReminderSchedule.next(reminderAt: "2026-10-30T09:00", recurrence: .none, days: [], after: utc("2026-10-30T13:00:00Z"), clock: clock)
                == nil
        )
    }

    /// `minutes` from now on the program's clock, as her app writes a local time.
    static func local(_ portal: TestPortal, inMinutes minutes: Int) -> String {
        let clock = portal.portal.programSettings.current.clock
        let instant = portal.clock.now.addingTimeInterval(TimeInterval(minutes * 60))
        let minute = clock.minuteOfDay(of: instant)
        return "\(clock.date(of: instant).iso)T\(minute / 600)\(minute / 60 % 10):\(minute % 60 / 10)\(minute % 10)"
    }

    static func feed(_ client: AppClient, _ kind: CareAccountKind) async throws -> [String] {
        let page = try await client.get(SiteURL.care(.apiNotifications(kind)).path)
        #expect(page.status == .ok, "\(page.text)")
        return (page.object["notifications"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    @Test(arguments: TestEngines.all)
    func aDueReminderReachesHerFeedOnceAndAnOpenPlanTellsCaregiversWhoSeeHerReminders(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let (ruth, _) = try await CareFixtures.caregiver(portal)
            let (sam, _) = try await CareFixtures.caregiver(portal, email: "sam@example.org", name: "Sam")
            try await CareFixtures.unlock(eleanor)
            _ = try await CareFixtures.link(eleanor, ruth, scopes: ["reminders"])
            _ = try await CareFixtures.link(eleanor, sam, scopes: ["location"])
            let reminder = Self.local(portal, inMinutes: 30)
            let tablets = try CareFixtures.id(
                try await CareFixtures.memory(
                    eleanor,
                    [
                        "type": "simple_todo", "title": "Take the blue tablets", "category": "health", "reminder_at": reminder, "recurrence": "daily",
                        "status": "open"
                    ]
                )
            )
            let bins = try CareFixtures.id(
                try await CareFixtures.memory(
                    eleanor,
                    [
                        "type": "simple_todo", "title": "Bins out", "category": "home", "reminder_at": reminder, "status": "open"
                    ]
                )
            )
            try await CareFixtures.memory(
                eleanor,
                [
                    "type": "simple_password", "title": "Pension login", "category": "money", "reminder_at": reminder, "fields": ["password": "x"]
                ]
            )
            let reminders = CareReminders(portal: portal.portal)
            #expect(try await reminders.sendDue() == 0, "nothing is due yet")
            portal.clock.advance(by: 31 * 60)
            // Two servers' jobs at once write each reminder once.
            async let first = reminders.sendDue()
            async let second = CareReminders(portal: portal.portal).sendDue()
            _ = try await (first, second)
            let hers = try await Self.feed(eleanor, .careReceiver)
            #expect(
                hers.sorted() == ["A reminder about one of your secured memories", "Reminder: Bins out", "Reminder: Take the blue tablets"],
                "\(hers)"
            )
            #expect(!hers.contains { $0.contains("Pension") }, "a secured memory's words never reach the feed or a phone")
            // The daily one moves to tomorrow at the same local time; the one-off has none left.
            let next = try await portal.database.read { db in
                try await db.select().columns("id", "next_reminder_at").from("care_memories").where("id", .in, [tablets, bins]).all()
                    .map { (try $0.decode(column: "id", as: Int64.self), try $0.decode(column: "next_reminder_at", as: Int64?.self)) }
            }
            let clock = portal.portal.programSettings.current.clock
            let tomorrow = try #require(next.first { $0.0 == tablets }?.1).map(Date.init(millisecondsSince1970:))
            #expect(clock.minuteOfDay(of: tomorrow!) == clock.minuteOfDay(of: portal.clock.now.addingTimeInterval(-60)))
            #expect(next.first { $0.0 == bins }?.1 == nil)

            // She marks the bins done; the tablets stay open. Two hours on, Ruth (who sees her reminders) hears of the tablets only.
            let done = try await eleanor.send(
                .put,
                SiteURL.care(.apiMemory(bins)).path,
                json: [
                    "version": 1, "type": "simple_todo", "title": "Bins out", "category": "home", "reminder_at": reminder, "status": "done"
                ]
            )
            #expect(done.status == .ok, "\(done.text)")
            portal.clock.advance(by: CareReminders.followUpWindow)
            _ = try await reminders.sendDue()
            _ = try await reminders.sendDue()
            #expect(try await Self.feed(ruth, .caregiver) == ["Eleanor has not marked “Take the blue tablets” done yet"])
            #expect(try await Self.feed(sam, .caregiver).isEmpty, "his link does not grant her reminders")
            #expect(try await Self.feed(eleanor, .careReceiver).count == 3)

            // Each marks her own feed read: one entry, then the rest; nobody marks another's.
            let entries = try await eleanor.get(SiteURL.care(.apiNotifications(.careReceiver)).path).object["notifications"] as? [[String: Any]] ?? []
            let newest = Int64(try #require(entries.first?["id"] as? Int))
            #expect(try await ruth.send(.post, SiteURL.care(.apiNotificationRead(.caregiver, newest)).path).status == .notFound)
            #expect(try await eleanor.send(.post, SiteURL.care(.apiNotificationRead(.careReceiver, newest)).path).status == .noContent)
            #expect(try await eleanor.get(SiteURL.care(.apiNotifications(.careReceiver)).path).object["unread_count"] as? Int == 2)
            let marked = try await eleanor.send(.post, SiteURL.care(.apiNotificationsReadAll(.careReceiver)).path, json: ["up_to_id": newest])
            #expect(marked.object["marked"] as? Int == 2 && marked.object["unread_count"] as? Int == 0, "\(marked.text)")
            let caregivers = try await ruth.send(.post, SiteURL.care(.apiNotificationsReadAll(.caregiver)).path, json: [:])
            #expect(caregivers.object["marked"] as? Int == 1 && caregivers.object["unread_count"] as? Int == 0, "\(caregivers.text)")
        }
    }
}
