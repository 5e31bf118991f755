import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct ChatTests {
    static func messages(_ response: AppResponse) -> [[String: Any]] {
        response.object["messages"] as? [[String: Any]] ?? []
    }

    static func post(_ app: AppClient, _ body: String, clientID: String = UUID().uuidString) async throws -> AppResponse {
        try await app.send(.post, SiteURL.apiChatMessages.path, json: ["body": body, "client_id": clientID])
    }

    @Test(arguments: TestEngines.all)
    func aMemberPostsOnceHoweverOftenHerAppRetriesAndHerCohortReadsIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, member) = try await AppClient.registered(portal, pseudonym: "Wren")
            let (lark, _) = try await AppClient.registered(portal, pseudonym: "Lark")
            let first = try await Self.post(wren, "Anyone else up at 3am? See https://example.org", clientID: "abc-1")
            #expect(first.status == .created)
            let again = try await Self.post(wren, "Anyone else up at 3am? See https://example.org", clientID: "abc-1")
            #expect(again.status == .ok && again.object["id"] as? Int == first.object["id"] as? Int, "a retried send never posts twice")

            let room = try await lark.get(SiteURL.apiChat.path)
            let messages = Self.messages(room)
            #expect(messages.count == 1)
            let message = try #require(messages.first)
            #expect((message["author"] as? [String: Any])?["pseudonym"] as? String == "Wren")
            #expect((message["author"] as? [String: Any])?["member_id"] as? Int == member["id"] as? Int)
            #expect((message["body_html"] as? String)?.contains(#"<a href="https://example.org""#) == true, "links are made clickable")
            #expect((room.object["room"] as? [String: Any])?["retention_hours"] as? Int == 24)

            let events = try await portal.database.read { db in
                try await MemberEvents().events(memberID: Int64(member["id"] as! Int), kind: .chatMessagePosted, on: db)
            }
            #expect(events.count == 1, "one event, with no text")
        }
    }

    @Test(arguments: TestEngines.all)
    func whatAMemberTypesIsEscaped(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await AppClient.registered(portal)
            #expect(try await Self.post(wren, #"<script>alert(1)</script><img src=x onerror=alert(2)>"#).status == .created)
            let html = try #require(Self.messages(try await wren.get(SiteURL.apiChat.path)).first?["body_html"] as? String)
            #expect(!html.contains("<script") && !html.contains("<img") && html.contains("&lt;script&gt;"))
            var (admin, _) = try await portal.signedIn(.administrator)
            let cohort = try await portal.database.read { db in try await ChatRepository().rooms(on: db) }.first!.cohort.id
            let page = try await admin.get(SiteURL.chatRoom(cohort).path).text
            #expect(!page.contains("<script>alert") && page.contains("&lt;script&gt;"))
        }
    }

    @Test(arguments: TestEngines.all)
    func bodiesAndClientIDsAreChecked(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await AppClient.registered(portal)
            let empty = try await Self.post(wren, "   ")
            #expect(empty.status == .unprocessableContent && empty.fieldErrors["body"] == "Write a message")
            let long = try await Self.post(wren, String(repeating: "a", count: 2_001))
            #expect(long.fieldErrors["body"] == "A message can be up to 2000 characters")
            #expect(try await Self.post(wren, String(repeating: "a", count: 2_000)).status == .created)
            let noID = try await wren.send(.post, SiteURL.apiChatMessages.path, json: ["body": "hello"])
            #expect(noID.fieldErrors["client_id"] != nil)
            #expect(Self.messages(try await wren.get(SiteURL.apiChat.path)).count == 1, "nothing else was posted")
        }
    }

    @Test(arguments: TestEngines.all)
    func aMemberSeesOnlyHerOwnCohortsRoom(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            let later = CalendarDate(portal.clock.now).adding(months: 7).iso
            let (heron, _) = try await AppClient.registered(portal, pseudonym: "Heron", ["due_date": later])
            let posted = try await Self.post(wren, "Due in four months here")
            let id = try #require(posted.object["id"] as? Int)
            #expect(Self.messages(try await heron.get(SiteURL.apiChat.path)).isEmpty)
            let report = try await heron.send(.post, SiteURL.apiChatMessageReports(Int64(id)).path, json: ["reason": "spam"])
            #expect(report.status == .notFound, "another cohort's message is not found")
            #expect(Self.messages(try await heron.get(SiteURL.apiChat.path + "?after=0")).isEmpty)
        }
    }

    @Test(arguments: TestEngines.all)
    func messagesVanishToTheSecondAndThePurgeDeletesThem(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await AppClient.registered(portal)
            #expect(try await Self.post(wren, "kept for exactly a day: marigold-7741").status == .created)
            portal.clock.advance(by: 24 * 3_600 - 0.001)
            #expect(Self.messages(try await wren.get(SiteURL.apiChat.path)).count == 1)
            portal.clock.advance(by: 0.001)
            #expect(Self.messages(try await wren.get(SiteURL.apiChat.path)).isEmpty, "gone the instant its day is over, before any purge")
            #expect(Self.messages(try await wren.get(SiteURL.apiChat.path + "?after=0")).isEmpty)
            let chat = try #require(portal.app.feature(ChatFeature.self)).chat
            #expect(try await chat.purge() == 1)
            let left = try await portal.database.read { db in try await db.count(in: "chat_messages") { $0 } }
            #expect(left == 0)
        }
    }

    @Test func aPurgedMessageIsNotLeftInAnyFileOfTheSQLiteDatabase() async throws {
        try await TestPortal.run(.sqlite) { portal in
            let (wren, _) = try await AppClient.registered(portal)
            let secret = "my clinic is on Larkspur Street, room 4417"
            for index in 0..<20 {
                #expect(try await Self.post(wren, "\(secret) #\(index)").status == .created)
                portal.clock.advance(by: 1)
            }
            portal.clock.advance(by: 25 * 3_600)
            let chat = try #require(portal.app.feature(ChatFeature.self)).chat
            // A reader's open connection, as the server always has, does not keep the text in the log.
            _ = try await portal.database.read { db in try await db.count(in: "members") }
            #expect(try await chat.purge() == 20)
            #expect(!portal.database.owesCheckpoint)
            // Every file of the database: the main file, its write-ahead log, its shared index, any journal.
            let path = URL(fileURLWithPath: try #require(portal.portal.settings.databaseURL.components(separatedBy: "sqlite://").last))
            let files = try FileManager.default.contentsOfDirectory(atPath: path.deletingLastPathComponent().path)
                .filter { $0.hasPrefix(path.lastPathComponent) }
            #expect(files.contains(path.lastPathComponent))
            for file in files {
                let bytes = try Data(contentsOf: path.deletingLastPathComponent().appendingPathComponent(file))
                #expect(bytes.range(of: Data("Larkspur".utf8)) == nil, "\(file) still holds the text")
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func shorteningTheWindowHidesOlderMessagesAtOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await AppClient.registered(portal)
            #expect(try await Self.post(wren, "from three hours ago").status == .created)
            portal.clock.advance(by: 3 * 3_600)
            #expect(try await Self.post(wren, "just now").status == .created)
            var (admin, _) = try await portal.signedIn(.administrator)
            let rooms = try await portal.database.read { db in try await ChatRepository().rooms(on: db) }
            let settings = try await admin.get(SiteURL.chatSettings.path)
            #expect(settings.text.contains("does not bring back messages already deleted"))
            let saved = try await admin.post(
                SiteURL.chatSettings.path,
                form: [("default_retention", "2")] + rooms.map { ("cohort_\($0.cohort.id)", "") }
            )
            #expect(saved.status == .seeOther)
            let texts = Self.messages(try await wren.get(SiteURL.apiChat.path)).compactMap { $0["body_text"] as? String }
            #expect(texts == ["just now"])
            let entry = try #require(try await portal.auditEntries(action: .chatSettingsChanged).first)
            #expect(entry.detail?.contains("default 24 hours → 2 hours") == true)

            // A room of its own: one hour; and a bad choice is refused with nothing changed.
            let cohort = try #require(rooms.first).cohort.id
            let refused = try await admin.post(SiteURL.chatSettings.path, form: [("default_retention", "5"), ("cohort_\(cohort)", "1")])
            #expect(refused.status == .unprocessableContent && refused.text.contains("Choose how long messages stay visible"))
            #expect(try await portal.database.read { db in try await ChatRepository().defaultRetention(on: db) } == .twoHours)
        }
    }

    @Test(arguments: TestEngines.all)
    func postingIsLimitedToABurstOfTenThenOneASecondOnEveryServer(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, registered) = try await AppClient.registered(portal)
            for index in 0..<10 { #expect(try await Self.post(wren, "burst \(index)").status == .created) }
            let refused = try await Self.post(wren, "one too many")
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "1")
            #expect(refused.errorCode == "too_fast")
            portal.clock.advance(by: 1)
            #expect(try await Self.post(wren, "a second later").status == .created)
            #expect(try await Self.post(wren, "and at once again").status == .tooManyRequests)

            // A second server on the same database counts against the same allowance.
            let other = Chat(portal: portal.portal, listeners: ChatListeners())
            let memberID = Int64(try #require(registered["id"] as? Int))
            let member = try #require(try await portal.database.read { db in try await MemberRepository().find(id: memberID, on: db) })
            await #expect(throws: APIError.self) { try await other.post("through the other server", clientID: "other-1", by: member) }
            portal.clock.advance(by: 2)
            #expect(try await other.post("two seconds on", clientID: "other-2", by: member).isNew)
            #expect(try await Self.post(wren, "and here").status == .created)
            #expect(try await Self.post(wren, "but no more").status == .tooManyRequests)

            // Full allowances are forgotten; a waiting one is kept.
            try await portal.database.write { db in
                try await SharedRateLimit.chatPosts.forgetFull(now: portal.clock.now.addingTimeInterval(9), on: db)
            }
            #expect(try await portal.database.read { db in try await db.count(in: "rate_buckets") } == 1)
            try await portal.database.write { db in
                try await SharedRateLimit.chatPosts.forgetFull(now: portal.clock.now.addingTimeInterval(11), on: db)
            }
            #expect(try await portal.database.read { db in try await db.count(in: "rate_buckets") } == 0)
        }
    }

    @Test(arguments: TestEngines.all)
    func moodsAreRecordedSharedAndFollowedUp(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, member) = try await AppClient.registered(portal, pseudonym: "Wren")
            let list = try await wren.get(SiteURL.apiMoods.path).object["moods"] as? [[String: Any]] ?? []
            #expect(list.count == 8 && list.filter { $0["group"] as? String == "negative" }.count == 4)

            let happy = try await wren.send(.post, SiteURL.apiMoods.path, json: ["mood": "happy", "client_id": "m1"])
            #expect(happy.status == .created && (happy.object["follow_up"] as? [String: Any])?["kind"] as? String == "none")

            var (admin, _) = try await portal.signedIn(.administrator)
            let rooms = try await portal.database.read { db in try await ChatRepository().rooms(on: db) }
            _ = try await admin.post(
                SiteURL.chatSettings.path,
                form: [
                    ("default_retention", "24"), ("reading_title", "Feeling flat in pregnancy"), ("reading_url", "https://example.org/flat")
                ] + rooms.map { ("cohort_\($0.cohort.id)", "") }
            )
            let neutral = try await wren.send(.post, SiteURL.apiMoods.path, json: ["mood": "indifferent", "client_id": "m2"])
            let reading = (neutral.object["follow_up"] as? [String: Any])?["reading"] as? [String: Any]
            #expect(reading?["url"] as? String == "https://example.org/flat")

            let low = try await wren.send(.post, SiteURL.apiMoods.path, json: ["mood": "overwhelmed", "client_id": "m3"])
            let followUp = try #require(low.object["follow_up"] as? [String: Any])
            #expect(followUp["kind"] as? String == "help")
            #expect((followUp["helplines"] as? [[String: Any]])?.contains { $0["phone"] as? String == "988" } == true)

            let again = try await wren.send(.post, SiteURL.apiMoods.path, json: ["mood": "overwhelmed", "client_id": "m3"])
            #expect(again.status == .created)
            let moods = try await portal.database.read { db in
                try await MemberEvents().events(memberID: Int64(member["id"] as! Int), kind: .moodRecorded, on: db)
            }
            #expect(moods.map(\.label) == ["happy", "indifferent", "overwhelmed"], "a retried mood is recorded once")
            let shared = Self.messages(try await wren.get(SiteURL.apiChat.path))
            #expect(shared.count == 3 && shared.allSatisfy { $0["kind"] as? String == "mood" })
            #expect((shared.first?["mood"] as? [String: Any])?["group"] as? String == "negative")

            let bad = try await wren.send(.post, SiteURL.apiMoods.path, json: ["mood": "grumpy", "client_id": "m4"])
            #expect(bad.status == .unprocessableContent && bad.fieldErrors["mood"] != nil)
        }
    }

    /// A mood's follow-up recommends real modules (DR5.FR7.1): published ones an administrator ticked for that
    /// kind of day and meant for her week, the reading link only when none fits; the web app links to them.
    @Test(arguments: TestEngines.all)
    func aMoodsFollowUpRecommendsModulesTaggedForThatDayAndHerWeek(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            _ = try await admin.post(
                SiteURL.chatSettings.path,
                form: [
                    ("default_retention", "24"), ("reading_title", "Feeling flat in pregnancy"), ("reading_url", "https://example.org/flat")
                ]
            )
            _ = try await admin.get(SiteURL.newLearningModule.path)
            func module(_ title: String, stage: String, status: String = "published", after: [String]) async throws {
                var form: [(String, String)] = [
                    ("title", title), ("summary", "About \(title)."), ("body", "Text."), ("category", "Wellbeing"), ("position", "1"),
                    ("video_id", ""), ("links", ""), ("stage", stage), ("status", status), ("intent", "save")
                ]
                if stage == "weeks" { form += [("week_from", "1"), ("week_to", "2")] }
                form += after.map { ("after_\($0)", "yes") }
                #expect(try await admin.post(SiteURL.newLearningModule.path, form: form).status == .seeOther, "\(title)")
            }
            try await module("Slow breathing", stage: "all", after: ["neutral"])
            try await module("When days are hard", stage: "all", after: ["negative"])
            try await module("Not her weeks", stage: "weeks", after: ["neutral", "negative"])
            try await module("Still a draft", stage: "all", status: "draft", after: ["neutral"])
            let edit = try await admin.get(
                SiteURL.learningModule(
                    try #require(
                        try await portal.database.read { db in
                            try await LearningContentRepository().modules(on: db)
                        }.first { $0.title == "Slow breathing" }?.id
                    )
                ).path
            ).text
            #expect(edit.contains(#"id="after_neutral" name="after_neutral" type="checkbox" value="yes" checked"#), "the tick is kept")

            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            func followUp(_ mood: String) async throws -> [String: Any] {
                let shared = try await wren.send(.post, SiteURL.apiMoods.path, json: ["mood": mood, "client_id": UUID().uuidString])
                #expect(shared.status == .created, "\(shared.text)")
                return shared.object["follow_up"] as? [String: Any] ?? [:]
            }
            let ordinary = try await followUp("indifferent")
            #expect((ordinary["modules"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Slow breathing"], "\(ordinary)")
            #expect(ordinary["reading"] == nil, "the reading link only when no module fits")
            let hard = try await followUp("sad")
            #expect(
                (hard["modules"] as? [[String: Any]])?.map { $0["title"] as? String } == ["When days are hard"] && hard["kind"] as? String == "help"
            )
            let good = try await followUp("happy")
            #expect((good["modules"] as? [[String: Any]])?.isEmpty == true)

            // With no module for a neutral day, the reading link comes back.
            let slow = try #require(
                try await portal.database.read { db in try await LearningContentRepository().modules(on: db) }.first { $0.title == "Slow breathing" }
            )
            var untagged = slow
            untagged.moodGroups = []
            _ = try await portal.database.write { db in try await LearningContentRepository().save(untagged, now: portal.clock.now, on: db) }
            let fallback = try await followUp("indifferent")
            #expect(
                (fallback["modules"] as? [[String: Any]])?.isEmpty == true
                    && (fallback["reading"] as? [String: Any])?["url"] as? String == "https://example.org/flat"
            )

            // The web app's page after a hard day links to the module, which opens for her.
            var browser = Visitor(portal: portal)
            _ = try await browser.signInToApp(.member, identifier: "Wren", password: MemberAppPagesTests.password)
            let form = try await browser.get(SiteURL.appMood.path)
            let page = try await browser.post(
                SiteURL.appMood.path,
                form: [("client_id", try #require(MemberAppPagesTests.hidden("client_id", in: form.text))), ("mood", "angry")]
            )
            let hardModule = try #require(
                try await portal.database.read { db in try await LearningContentRepository().modules(on: db) }.first {
                    $0.title == "When days are hard"
                }
            )
            #expect(page.text.contains(SiteURL.appLearningModule(hardModule.id).path) && page.text.contains("When days are hard"))
            #expect(try await browser.get(SiteURL.appLearningModule(hardModule.id).path).status == .ok)
        }
    }

    @Test(arguments: TestEngines.all)
    func anAdministratorRemovesAReportedMessageAndMutesItsAuthor(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, member) = try await AppClient.registered(portal, pseudonym: "Wren")
            let (lark, _) = try await AppClient.registered(portal, pseudonym: "Lark")
            let id = Int64(try #require(try await Self.post(wren, "buy my pills cheap").object["id"] as? Int))
            let kept = Int64(try #require(try await Self.post(wren, "feeling kicks today").object["id"] as? Int))
            #expect(try await lark.send(.post, SiteURL.apiChatMessageReports(id).path, json: ["reason": "Selling something"]).status == .noContent)
            #expect(try await lark.send(.post, SiteURL.apiChatMessageReports(kept).path, json: ["reason": "not sure"]).status == .noContent)
            #expect(try await lark.send(.post, SiteURL.apiChatMessageReports(kept).path, json: ["reason": ""]).status == .unprocessableContent)

            var (admin, _) = try await portal.signedIn(.administrator)
            let queue = try await admin.get(SiteURL.chatReports.path).text
            #expect(queue.contains("buy my pills cheap") && queue.contains("Selling something"))
            #expect(try await admin.get(SiteURL.chat.path).text.contains("Reports waiting for review (2)"))
            #expect(try await admin.post(SiteURL.chatReportKeep(kept).path).status == .seeOther)

            let noReason = try await admin.post(SiteURL.chatMessageRemove(id).path, form: [("reason", "")])
            #expect(noReason.status == .unprocessableContent && noReason.text.contains("Enter the reason"))
            #expect(try await admin.post(SiteURL.chatMessageRemove(id).path, form: [("reason", "Selling medicines")]).status == .seeOther)
            let shown = Self.messages(try await lark.get(SiteURL.apiChat.path)).first { $0["id"] as? Int == Int(id) }
            #expect(
                shown?["removed"] as? Bool == true && shown?["body_text"] == nil && shown?["removed_notice"] as? String == "Removed by a moderator"
            )
            #expect(try await admin.get(SiteURL.chatReports.path).text.contains("No reports are waiting"))
            #expect(try await portal.auditEntries(action: .chatMessageRemoved).count == 1)
            #expect(try await portal.auditEntries(action: .chatReportKept).count == 1)

            let memberID = Int64(member["id"] as! Int)
            #expect(try await admin.post(SiteURL.chatMemberMute(memberID).path, form: [("length", "hour")]).status == .unprocessableContent)
            #expect(
                try await admin.post(SiteURL.chatMemberMute(memberID).path, form: [("length", "hour"), ("reason", "Selling")]).status == .seeOther
            )
            let muted = try await Self.post(wren, "let me post")
            #expect(muted.status == .forbidden && muted.errorCode == "muted")
            #expect((muted.error["message"] as? String)?.contains("you can still read it") == true)
            #expect((try await wren.get(SiteURL.apiChat.path).object["room"] as? [String: Any])?["muted"] as? Bool == true)
            portal.clock.advance(by: 3_601)
            #expect(try await Self.post(wren, "back again").status == .created)
            (admin, _) = try await portal.signedIn(.administrator)

            #expect(
                try await admin.post(SiteURL.chatMemberMute(memberID).path, form: [("length", "until-unmuted"), ("reason", "Again")]).status
                    == .seeOther
            )
            portal.clock.advance(by: 6 * 86_400)
            #expect(try await Self.post(wren, "still muted?").status == .forbidden)
            (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.chatMemberUnmute(memberID).path).status == .seeOther)
            #expect(try await Self.post(wren, "free").status == .created)
            #expect(try await portal.auditEntries(action: .chatMemberMuted).count == 2)
            #expect(try await portal.auditEntries(action: .chatMemberUnmuted).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func viewingARoomIsAuditedAndItsListRefreshes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            #expect(try await Self.post(wren, "first").status == .created)
            var (admin, _) = try await portal.signedIn(.administrator)
            let room = try #require(try await portal.database.read { db in try await ChatRepository().rooms(on: db) }.first)
            let page = try await admin.get(SiteURL.chatRoom(room.cohort.id).path)
            #expect(page.text.contains("first") && page.text.contains("/static/js/chat-room.js"))
            #expect(try await portal.auditEntries(action: .chatRoomViewed).count == 1)
            #expect(try await Self.post(wren, "second").status == .created)
            let list = try await admin.get(SiteURL.chatRoomMessages(room.cohort.id).path).text
            #expect(list.contains("second") && !list.contains("<html"))
        }
    }

    @Test(arguments: TestEngines.all)
    func aDeletedMembersMessagesGoWithHerAccount(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, member) = try await AppClient.registered(portal, pseudonym: "Wren")
            let (lark, _) = try await AppClient.registered(portal, pseudonym: "Lark")
            #expect(try await Self.post(wren, "mine").status == .created)
            try await portal.database.transaction { db in try await MemberRepository().delete(id: Int64(member["id"] as! Int), on: db) }
            #expect(Self.messages(try await lark.get(SiteURL.apiChat.path)).isEmpty)
        }
    }
}
