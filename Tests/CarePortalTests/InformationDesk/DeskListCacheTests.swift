import Foundation
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct DeskListCacheTests {
    /// The database raises the desk's list version whenever anything the list shows or counts may
    /// have changed, whatever code changes it, and leaves it alone when what changed is not on the list.
    @Test(arguments: TestEngines.all)
    func everythingTheListShowsRaisesItsVersion(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (heron, member) = try await AppClient.registered(portal, pseudonym: "Heron")
            let memberID = Int64(try #require(member["id"] as? Int))
            let desk = DeskRepository(engine: engine)
            func version() async throws -> Int64 {
                try await portal.database.read { db in try await desk.listVersion(on: db) }
            }
            var last = try await version()
            func expectRaised(_ change: String) async throws {
                let now = try await version()
                #expect(now > last, "\(change)")
                last = now
            }
            func change(_ sql: SQLQueryString) async throws {
                try await portal.database.write { db in try await db.raw(sql).run() }
            }

            let thread = try await DeskSteps.ask(heron, title: "Can methadone affect my baby?")
            try await expectRaised("a question asked")
            var (doctor, account) = try await portal.signedIn(.medicalProfessional)
            let replyID = try await DeskSteps.reply(&doctor, thread: thread, body: "Keep taking it; stopping suddenly is the risk.")
            try await expectRaised("a reply, which answered the question")
            try await change("UPDATE desk_replies SET body_text = 'Changed' WHERE id = \(bind: replyID)")
            try await expectRaised("a reply changed (search reads replies' words)")
            try await change("UPDATE desk_threads SET title = 'Changed' WHERE id = \(bind: thread)")
            try await expectRaised("a question changed")
            try await change("UPDATE members SET pseudonym = 'Egret' WHERE id = \(bind: memberID)")
            try await expectRaised("the asker's pseudonym changed")
            try await change("UPDATE members SET avatar = 'bird' WHERE id = \(bind: memberID)")
            try await expectRaised("the asker's avatar changed")

            try await change("UPDATE members SET last_active_at = last_active_at + 1 WHERE id = \(bind: memberID)")
            try await change("UPDATE staff_accounts SET updated_at = updated_at + 1 WHERE id = \(bind: account.id)")
            #expect(try await version() == last, "what the list does not show changed, and the version stood")

            try await change("DELETE FROM desk_threads WHERE id = \(bind: thread)")
            try await expectRaised("a question removed")
        }
    }

    /// A page of the list and its counts are kept under the version they were read at and found again
    /// while it stands; a change made by any server (here, straight in the database) moves it, and the
    /// next page, of the staff list or the member API, shows the change.
    @Test(arguments: TestEngines.all)
    func keptPagesAreShownUntilTheVersionMovesWhoeverChangedThem(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (heron, member) = try await AppClient.registered(portal, pseudonym: "Heron")
            let memberID = Int64(try #require(member["id"] as? Int))
            let thread = try await DeskSteps.ask(heron, title: "Can methadone affect my baby?")
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            let desk = try #require(portal.app.feature(InformationDeskFeature.self)).desk
            let query = DeskListQuery()

            let first = try await portal.database.read { db in try await desk.list(query, on: db) }
            #expect(first.page.items.map(\.id) == [thread] && first.counts.waiting == 1)
            #expect(try await doctor.get(SiteURL.desk.path).text.contains("Heron"))

            // Read under the version the first list was read at, the kept page is what is found.
            let version = try await portal.database.read { db in try await desk.repository.listVersion(on: db) }
            try await portal.database.write { db in
                try await db.raw("UPDATE members SET pseudonym = 'Egret' WHERE id = \(bind: memberID)").run()
            }
            let kept = try #require(
                desk.caches.list.pages.value(for: DeskListCache.pageKey(query, counts: DeskListCache.countsKey(query, version: version)))
            )
            #expect(kept.items.first?.author.pseudonymForTests == "Heron")

            let page = try await doctor.get(SiteURL.desk.path).text
            #expect(page.contains("Egret") && !page.contains("Heron"), "the page read the new version and the list again")

            let waitingPath = SiteURL.apiThreads.path + "?filter=waiting"
            #expect(try await heron.get(waitingPath).object["total_count"] as? Int == 1)
            try await portal.database.write { db in
                try await db.raw("UPDATE desk_threads SET answered_at = created_at WHERE id = \(bind: thread)").run()
            }
            let answered = try await doctor.get(SiteURL.desk.path).text
            #expect(answered.contains("No questions here right now"), "the answered question left the waiting list at once")
            #expect(answered.contains("Answered&nbsp;<span class=\"count\">(1)</span>"), "and the counts moved with it")
            let api = try await heron.get(waitingPath).object
            #expect((api["threads"] as? [Any])?.isEmpty == true && api["total_count"] as? Int == 0, "the member API read it again too")
        }
    }

    /// Two transactions that change questions in opposite orders finish, one after the other: the
    /// version row is taken last, when each commits, never while one still waits for a question the
    /// other holds (PostgreSQL; SQLite runs one writer at a time).
    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs CAREPORTAL_TEST_POSTGRES_URL"))
    func transactionsChangingQuestionsInOppositeOrdersDoNotDeadlock() async throws {
        try await TestPortal.run(.postgres) { portal in
            let (heron, _) = try await AppClient.registered(portal, pseudonym: "Heron")
            let one = try await DeskSteps.ask(heron, title: "Can methadone affect my baby?")
            let two = try await DeskSteps.ask(heron, title: "Is nausea normal at 10 weeks?")
            let before = try await portal.database.read { db in try await DeskRepository(engine: .postgres).listVersion(on: db) }
            let (firstHolds, firstHolding) = AsyncStream.makeStream(of: Void.self)
            let (secondHolds, secondHolding) = AsyncStream.makeStream(of: Void.self)
            func touch(_ id: Int64, _ db: any SQLDatabase) async throws {
                // Were the version row taken with the question, the second would wait for it while the first
                // waits for the second: a wait PostgreSQL cannot see as a deadlock, so it is bounded here.
                try await db.raw("SET LOCAL lock_timeout = '5s'").run()
                try await db.raw("UPDATE desk_threads SET title = title || '.' WHERE id = \(bind: id)").run()
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { firstHolding.finish() }
                    try await portal.database.transaction { db in
                        try await touch(one, db)
                        firstHolding.yield()
                        for await _ in secondHolds { break }
                        try await touch(two, db) // waits until the second commits
                    }
                }
                group.addTask {
                    defer { secondHolding.finish() }
                    for await _ in firstHolds { break }
                    try await portal.database.transaction { db in
                        try await touch(two, db)
                        secondHolding.yield()
                        try await Task.sleep(for: .milliseconds(200)) // the first is now waiting for question two
                    }
                }
                try await group.waitForAll()
            }
            let after = try await portal.database.read { db in try await DeskRepository(engine: .postgres).listVersion(on: db) }
            #expect(after == before + 2, "each transaction raised the version once, when it committed")
        }
    }
}
