import Foundation
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct DeskRepliesCacheTests {
    /// The database raises a thread's replies version whenever anything its replies show changes,
    /// whatever code changes it; another thread's stays as it was, and so does hers when something the
    /// replies do not show changes.
    @Test(arguments: TestEngines.all)
    func everythingTheRepliesShowRaisesTheThreadsRepliesVersion(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (heron, member) = try await AppClient.registered(portal, pseudonym: "Heron")
            let memberID = Int64(try #require(member["id"] as? Int))
            let (wren, otherMember) = try await AppClient.registered(portal, pseudonym: "Wren")
            let thread = try await DeskSteps.ask(heron, title: "Can methadone affect my baby?")
            let other = try await DeskSteps.ask(wren, title: "Is nausea normal at 10 weeks?")
            var (doctor, account) = try await portal.signedIn(.medicalProfessional)
            let desk = DeskRepository(engine: engine)
            func versions() async throws -> (Int64, Int64) {
                try await portal.database.read { db in
                    (
                        try #require(try await desk.findThread(id: thread, on: db)).repliesVersion,
                        try #require(try await desk.findThread(id: other, on: db)).repliesVersion
                    )
                }
            }
            var (last, untouched) = try await versions()
            func expectRaised(_ change: String) async throws {
                let (now, otherNow) = try await versions()
                #expect(now > last, "\(change)")
                #expect(otherNow == untouched, "\(change) left the other thread's alone")
                last = now
            }
            func change(_ sql: SQLQueryString) async throws {
                try await portal.database.write { db in try await db.raw(sql).run() }
            }

            let replyID = try await DeskSteps.reply(&doctor, thread: thread, body: "Keep taking it; stopping suddenly is the risk.")
            try await expectRaised("a reply added through the portal")
            let replied = try await heron.send(.post, SiteURL.apiThreadReplies(thread).path, json: ["body": "Thank you, that helps."])
            #expect(replied.status == .created)
            try await expectRaised("a reply added through the member API")
            try await change("UPDATE desk_replies SET body_html = '<p>Changed</p>' WHERE id = \(bind: replyID)")
            try await expectRaised("a reply changed")
            try await change("UPDATE members SET avatar = 'bird' WHERE id = \(bind: memberID)")
            try await expectRaised("her avatar changed")
            try await change("UPDATE members SET pseudonym = 'Egret' WHERE id = \(bind: memberID)")
            try await expectRaised("her pseudonym changed")
            try await change("UPDATE staff_accounts SET username = 'dr.changed' WHERE id = \(bind: account.id)")
            try await expectRaised("the replying medical professional's username changed")
            try await change(
                """
                INSERT INTO staff_profiles (account_id, first_name, last_name, date_of_birth, avatar)
                VALUES (\(bind: account.id), 'Ada', 'Lovelace', '1980-01-01', 'sun')
                """
            )
            try await expectRaised("the medical professional's profile, with its avatar, added")
            try await change("UPDATE staff_profiles SET avatar = 'leaf' WHERE account_id = \(bind: account.id)")
            try await expectRaised("the medical professional's avatar changed")

            try await change("UPDATE members SET last_active_at = last_active_at + 1 WHERE id = \(bind: memberID)")
            try await change("UPDATE staff_accounts SET updated_at = updated_at + 1 WHERE id = \(bind: account.id)")
            #expect(try await versions().0 == last, "what replies do not show changed, and the version stood")

            try await change("DELETE FROM desk_replies WHERE id = \(bind: replyID)")
            try await expectRaised("a reply removed")
            try await change("DELETE FROM members WHERE id = \(bind: Int64(try #require(otherMember["id"] as? Int)))")
            #expect(try await portal.database.read { db in try await desk.findThread(id: other, on: db) } == nil)
            try await change("DELETE FROM members WHERE id = \(bind: memberID)")
            #expect(
                try await portal.database.read { db in try await desk.findThread(id: thread, on: db) } == nil,
                "removing her removed her question, and her replies with it"
            )
        }
    }

    /// Replies are kept under the version they were read at and found again while it stands; a change
    /// made by any server (here, straight in the database) moves it, and the next page shows the change.
    @Test(arguments: TestEngines.all)
    func keptRepliesAreShownUntilTheVersionMovesWhoeverChangedThem(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (heron, member) = try await AppClient.registered(portal, pseudonym: "Heron")
            let memberID = Int64(try #require(member["id"] as? Int))
            let thread = try await DeskSteps.ask(heron, title: "Can methadone affect my baby?")
            #expect(
                try await heron.send(.post, SiteURL.apiThreadReplies(thread).path, json: ["body": "My clinic splits my dose."]).status == .created
            )
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            try await DeskSteps.reply(&doctor, thread: thread, body: "Split doses are common in the third trimester.")

            let desk = try #require(portal.app.feature(InformationDeskFeature.self)).desk
            let before = try #require(try await portal.database.read { db in try await desk.repository.findThread(id: thread, on: db) })
            let first = try await portal.database.read { db in try await desk.replies(of: before, on: db) }
            #expect(first.map(\.body.text) == ["My clinic splits my dose.", "Split doses are common in the third trimester."])
            #expect(try await doctor.get(SiteURL.deskThread(thread).path).text.contains("Heron"))

            try await portal.database.write { db in
                try await db.raw("UPDATE members SET pseudonym = 'Egret' WHERE id = \(bind: memberID)").run()
            }
            let kept = try await portal.database.read { db in try await desk.replies(of: before, on: db) }
            #expect(kept.first?.author.pseudonymForTests == "Heron", "read under the old version, the kept replies are found")

            let page = try await doctor.get(SiteURL.deskThread(thread).path).text
            #expect(page.contains("Egret") && !page.contains("Heron"), "the page read the new version and the replies again")
            let api = try await DeskSteps.thread(heron, thread)
            #expect("\(api)".contains("Egret") && !"\(api)".contains("Heron"))
        }
    }

    @Test func forgetsEverythingPastItsBudget() {
        let cache = VersionedCache<Int, String>(budget: 10) { $0.count }
        cache.remember("abcd", for: 1)
        cache.remember("efgh", for: 2)
        #expect(cache.value(for: 1) == "abcd" && cache.value(for: 2) == "efgh")
        cache.remember("ijkl", for: 2)
        #expect(cache.value(for: 1) == "abcd", "replacing a value spends only the difference")
        cache.remember("mnop", for: 3)
        #expect(cache.value(for: 1) == nil && cache.value(for: 2) == nil, "past the budget, everything else is forgotten")
        #expect(cache.value(for: 3) == "mnop")
        cache.remember(String(repeating: "x", count: 11), for: 4)
        #expect(cache.value(for: 4) == nil && cache.value(for: 3) == "mnop", "a value bigger than the budget is not kept")
    }
}

extension DeskAuthor {
    var pseudonymForTests: String? {
        if case .member(_, let pseudonym, _) = self { pseudonym } else { nil }
    }
}
