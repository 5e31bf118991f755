import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Pushes handed to the gateway, kept for the test to read; fails while `failing` is set.
final class RecordingPushSender: PushSender {
    struct Refused: Error {}
    private let state = Mutex<(pushes: [Push], failing: Bool)>(([], false))
    var pushes: [Push] { state.withLock { $0.pushes } }
    func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }

    func send(_ push: Push) async throws {
        try state.withLock { state in
            if state.failing { throw Refused() }
            state.pushes.append(push)
        }
    }
}

enum FeedSteps {
    static func feed(_ app: AppClient) async throws -> (entries: [[String: Any]], unread: Int) {
        let response = try await app.get(SiteURL.apiNotifications.path)
        #expect(response.status == .ok, "the feed: \(response.text)")
        return (response.object["notifications"] as? [[String: Any]] ?? [], response.object["unread_count"] as? Int ?? -1)
    }

    static func entries(_ app: AppClient, kind: String) async throws -> [[String: Any]] {
        try await feed(app).entries.filter { $0["kind"] as? String == kind }
    }

    static func preferences(_ app: AppClient, _ json: [String: Any]) async throws -> AppResponse {
        try await app.send(.put, SiteURL.apiNotificationPreferences.path, json: json)
    }

    /// A member due `monthsAhead` months from now, so in a cohort of that month.
    static func member(_ portal: TestPortal, _ name: String, monthsAhead: Int = 4) async throws -> (AppClient, Int64) {
        let due = CalendarDate(portal.clock.now).adding(months: monthsAhead).iso
        let (app, member) = try await AppClient.registered(portal, pseudonym: name, ["due_date": due])
        return (app, Int64(try #require(member["id"] as? Int)))
    }

    static func feature(_ portal: TestPortal) throws -> NotificationsFeature {
        try #require(portal.app.feature(NotificationsFeature.self))
    }
}

@Suite struct NotificationsTests {
    @Test(arguments: TestEngines.all)
    func aDeskReplyReachesHerFeedOnceInTheShapeTheAppKnowsWithReadState(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (asker, _) = try await FeedSteps.member(portal, "Wren")
            let (other, _) = try await FeedSteps.member(portal, "Lark")
            let thread = try await DeskSteps.ask(asker, title: "Sleep")
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            let reply = try await DeskSteps.reply(&doctor, thread: thread, body: "Try a pillow between your knees.")

            var (entries, unread) = try await FeedSteps.feed(asker)
            #expect(entries.count == 1 && unread == 1)
            let entry = try #require(entries.first)
            // Every field the desk's entries had before the feed carried other kinds is still there.
            #expect(entry["kind"] as? String == "reply" && entry["message"] as? String == "Someone replied to your question.")
            #expect(
                entry["thread_id"] as? Int == Int(thread) && entry["thread_title"] as? String == "Sleep" && entry["reply_id"] as? Int == Int(reply)
            )
            #expect(entry["read"] as? Bool == false && entry["created_at"] is String)
            #expect((entry["subject"] as? [String: Any])?["type"] as? String == "thread")
            #expect(try await asker.get(SiteURL.apiNotificationsUnreadCount.path).object["unread_count"] as? Int == 1)

            let id = Int64(try #require(entry["id"] as? Int))
            #expect(try await other.send(.post, SiteURL.apiNotificationRead(id).path).status == .notFound, "another member cannot touch her entry")
            #expect(try await asker.send(.post, SiteURL.apiNotificationRead(id).path).status == .noContent)
            (entries, unread) = try await FeedSteps.feed(asker)
            #expect(unread == 0 && entries.first?["read"] as? Bool == true)

            let second = try await DeskSteps.reply(&doctor, thread: thread, body: "And rest when you can.")
            _ = try await DeskSteps.reply(&doctor, thread: thread, body: "Tell your midwife too.")
            let newest = try await FeedSteps.feed(asker).entries
            #expect(newest.count == 3 && newest.first?["reply_id"] as? Int != Int(second), "newest first")
            // The app marks read what it showed; what arrived after stays unread.
            let shown = try #require(newest.first { $0["reply_id"] as? Int == Int(second) }?["id"] as? Int)
            let marked = try await asker.send(.post, SiteURL.apiNotificationsReadAll.path, json: ["up_to_id": shown])
            #expect(marked.object["marked"] as? Int == 1 && marked.object["unread_count"] as? Int == 1)
            #expect(try await asker.send(.post, SiteURL.apiNotificationsReadAll.path, json: [:]).object["unread_count"] as? Int == 0)
            #expect(try await FeedSteps.feed(other).entries.isEmpty)
        }
    }

    @Test(arguments: TestEngines.all)
    func choicesPerKindAreKeptCheckedAndRespected(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await FeedSteps.member(portal, "Wren")
            let (lark, _) = try await FeedSteps.member(portal, "Lark")
            let (heron, _) = try await FeedSteps.member(portal, "Heron")
            let before = try await wren.get(SiteURL.apiNotificationPreferences.path).object
            let kinds = try #require(before["kinds"] as? [[String: Any]])
            #expect(kinds.contains { $0["kind"] as? String == "reply" && $0["on"] as? Bool == true })
            #expect(kinds.contains { $0["kind"] as? String == "desk_new_question" && $0["on"] as? Bool == false }, "new questions are opt-in")
            #expect(kinds.contains { $0["kind"] as? String == "calendar_reminder" } && kinds.contains { $0["kind"] as? String == "broadcast" })
            #expect(before["check_in_time"] as? String == "19:00" && before["reminder_lead_minutes"] as? Int == 60)
            #expect(before["time_zone"] as? String == "America/New_York")

            for bad: [String: Any] in [
                ["kinds": [["kind": "gossip", "on": true]]], ["kinds": [["kind": "reply"]]],
                ["reminder_lead_minutes": 7], ["check_in_time": "7pm"], ["check_in_time": "24:00"]
            ] {
                let refused = try await FeedSteps.preferences(wren, bad)
                #expect(refused.status == .unprocessableContent && !refused.fieldErrors.isEmpty, "\(bad) is refused: \(refused.text)")
            }
            #expect(
                try await wren.get(SiteURL.apiNotificationPreferences.path).text == (try await wren.get(SiteURL.apiNotificationPreferences.path).text)
            )
            #expect(
                NSDictionary(dictionary: try await wren.get(SiteURL.apiNotificationPreferences.path).object) == NSDictionary(dictionary: before),
                "a refused change changes nothing"
            )

            let saved = try await FeedSteps.preferences(
                wren,
                [
                    "kinds": [["kind": "reply", "on": false], ["kind": "desk_new_question", "on": true]],
                    "reminder_lead_minutes": 30, "check_in_time": "08:15"
                ]
            )
            #expect(saved.status == .ok)
            #expect(saved.object["check_in_time"] as? String == "08:15" && saved.object["reminder_lead_minutes"] as? Int == 30)
            let partial = try await FeedSteps.preferences(wren, ["check_in_time": "09:00"])
            #expect(
                (partial.object["kinds"] as? [[String: Any]])?.first { $0["kind"] as? String == "reply" }?["on"] as? Bool == false,
                "what she leaves out stays as it was"
            )

            // Replies switched off: none written. New questions switched on: hers only.
            let thread = try await DeskSteps.ask(wren, title: "Cravings")
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            _ = try await DeskSteps.reply(&doctor, thread: thread, body: "Talk to your counsellor.")
            #expect(try await FeedSteps.entries(wren, kind: "reply").isEmpty)
            _ = try await DeskSteps.ask(lark, title: "Swelling")
            let told = try await FeedSteps.entries(wren, kind: "desk_new_question")
            #expect(told.count == 1 && told.first?["thread_title"] as? String == "Swelling")
            #expect(try await FeedSteps.entries(heron, kind: "desk_new_question").isEmpty, "she did not opt in")
            #expect(try await FeedSteps.entries(lark, kind: "desk_new_question").isEmpty, "the asker is not told of her own question")
        }
    }

    @Test(arguments: TestEngines.all)
    func aRemovedChatMessageIsExplainedInHerFeedAndPushesCarryNothingOfIt(engine: Database.Engine) async throws {
        let sender = RecordingPushSender()
        try await TestPortal.run(engine, pushSender: sender) { portal in
            let (wren, wrenID) = try await FeedSteps.member(portal, "Wren")
            let (lark, larkID) = try await FeedSteps.member(portal, "Lark")
            let registered = try await wren.send(.post, SiteURL.apiPushTokens.path, json: ["token": "apns-token-0123456789abcdef", "platform": "ios"])
            #expect(registered.status == .created)
            #expect(
                try await wren.send(.post, SiteURL.apiPushTokens.path, json: ["token": "bad token!", "platform": "ios"]).status
                    == .unprocessableContent
            )
            #expect(
                try await wren.send(.post, SiteURL.apiPushTokens.path, json: ["token": "abc", "platform": "blackberry"]).status
                    == .unprocessableContent
            )

            let secret = "My methadone dose went up to 90mg"
            let posted = try await ChatTests.post(wren, secret)
            let id = Int64(try #require(posted.object["id"] as? Int))
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(
                try await admin.post(SiteURL.chatMessageRemove(id).path, form: [("reason", "Dose details belong with your clinic")]).status
                    == .seeOther
            )

            let removed = try #require(try await FeedSteps.entries(wren, kind: "chat_message_removed").first)
            #expect(removed["reason"] as? String == "Dose details belong with your clinic")
            #expect((removed["subject"] as? [String: Any])?["type"] as? String == "chat")
            #expect(removed["thread_id"] == nil, "only the desk's entries name a thread")
            #expect(try await FeedSteps.entries(lark, kind: "chat_activity").count == 1, "the rest of her cohort hears there is something new")
            #expect(try await FeedSteps.entries(wren, kind: "chat_activity").isEmpty, "not of her own message")

            let delivered = try await FeedSteps.feature(portal).pushes.deliverDue(programName: "iMATter")
            #expect(delivered == 1, "one entry of hers reached her phone")
            let pushes = sender.pushes
            #expect(pushes.count == 1 && pushes.first?.token == "apns-token-0123456789abcdef" && pushes.first?.platform == "ios")
            for push in pushes {
                let encoded = String(decoding: try JSONEncoder().encode(push), as: UTF8.self)
                #expect(
                    !encoded.contains("methadone") && !encoded.contains("90mg") && !encoded.contains("Dose details"),
                    "a push says nothing of what it is about"
                )
                #expect(push.body == "You have a new notification in iMATter. Open the app to read it." && push.badge == 1)
            }
            let larkEntry = try #require(try await FeedSteps.entries(lark, kind: "chat_activity").first?["id"] as? Int)
            #expect(
                try await portal.database.read { db in try await portal.portal.notifications.pushStatus(of: Int64(larkEntry), on: db) }?.status
                    == .noDevice
            )
            _ = larkID
            _ = wrenID
        }
    }

    @Test(arguments: TestEngines.all)
    func chatActivityIsToldOncePerQuietPeriod(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await FeedSteps.member(portal, "Wren")
            let (lark, _) = try await FeedSteps.member(portal, "Lark")
            let (heron, _) = try await FeedSteps.member(portal, "Heron", monthsAhead: 7)
            for text in ["Morning all", "Anyone up?", "Scan went well"] {
                #expect(try await ChatTests.post(wren, text).status == .created)
                portal.clock.advance(by: 2)
            }
            #expect(try await FeedSteps.entries(lark, kind: "chat_activity").count == 1)
            #expect(try await FeedSteps.entries(heron, kind: "chat_activity").isEmpty, "another cohort hears nothing")
            portal.clock.advance(by: Chat.activityQuietPeriod)
            #expect(try await ChatTests.post(wren, "Back again").status == .created)
            #expect(try await FeedSteps.entries(lark, kind: "chat_activity").count == 2)
        }
    }

    /// A mood check-in shared in the room reaches the cohort as a message does: the same chat-activity
    /// entry, once a quiet period, under the same choice; a muted member's mood, not in the room, tells nobody.
    @Test(arguments: TestEngines.all)
    func aMoodCheckInReachesTheCohortAsAMessageDoes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, wrenID) = try await FeedSteps.member(portal, "Wren")
            let (lark, _) = try await FeedSteps.member(portal, "Lark")
            let (dove, _) = try await FeedSteps.member(portal, "Dove")
            let (heron, _) = try await FeedSteps.member(portal, "Heron", monthsAhead: 7)
            #expect(try await FeedSteps.preferences(dove, ["kinds": [["kind": "chat_activity", "on": false]]]).status == .ok)
            func shareMood(_ app: AppClient, _ mood: String) async throws -> AppResponse {
                try await app.send(.post, SiteURL.apiMoods.path, json: ["mood": mood, "client_id": UUID().uuidString])
            }
            #expect(try await shareMood(wren, "happy").status == .created)
            #expect(try await FeedSteps.entries(lark, kind: "chat_activity").count == 1, "her cohort hears there is something new")
            #expect(try await FeedSteps.entries(wren, kind: "chat_activity").isEmpty, "not of her own mood")
            #expect(try await FeedSteps.entries(dove, kind: "chat_activity").isEmpty, "not someone who chose not to hear")
            #expect(try await FeedSteps.entries(heron, kind: "chat_activity").isEmpty, "another cohort hears nothing")
            #expect(try await shareMood(wren, "sad").status == .created)
            #expect(try await FeedSteps.entries(lark, kind: "chat_activity").count == 1, "once a quiet period, as for messages")

            portal.clock.advance(by: Chat.activityQuietPeriod + 1)
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.chatMemberMute(wrenID).path, form: [("length", "hour"), ("reason", "Testing")]).status == .seeOther)
            #expect(try await shareMood(wren, "love").status == .created)
            #expect(try await FeedSteps.entries(lark, kind: "chat_activity").count == 1, "a muted member's mood is not in the room")
            (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.chatMemberUnmute(wrenID).path).status == .seeOther)
            #expect(try await shareMood(wren, "love").status == .created)
            #expect(try await FeedSteps.entries(lark, kind: "chat_activity").count == 2)
        }
    }

    @Test(arguments: TestEngines.all)
    func aPushTheGatewayRefusesIsTriedAgainLaterAndAnUnregisteredPhoneGetsNone(engine: Database.Engine) async throws {
        let sender = RecordingPushSender()
        try await TestPortal.run(engine, pushSender: sender) { portal in
            let (wren, _) = try await FeedSteps.member(portal, "Wren")
            let (lark, _) = try await FeedSteps.member(portal, "Lark")
            #expect(try await wren.send(.post, SiteURL.apiPushTokens.path, json: ["token": "fcm:token-1", "platform": "android"]).status == .created)
            let pushes = try FeedSteps.feature(portal).pushes
            sender.fail(true)
            #expect(try await ChatTests.post(lark, "hi").status == .created)
            #expect(try await pushes.deliverDue(programName: "iMATter") == 0)
            sender.fail(false)
            #expect(try await pushes.deliverDue(programName: "iMATter") == 0, "not again until its pause is over")
            portal.clock.advance(by: 31)
            #expect(try await pushes.deliverDue(programName: "iMATter") == 1)
            #expect(sender.pushes.count == 1 && sender.pushes.first?.token == "fcm:token-1")

            #expect(try await wren.send(.delete, SiteURL.apiPushToken("fcm:token-1").path).status == .noContent)
            #expect(try await wren.send(.delete, SiteURL.apiPushToken("fcm:token-1").path).status == .notFound)
            portal.clock.advance(by: Chat.activityQuietPeriod + 1)
            #expect(try await ChatTests.post(lark, "later").status == .created)
            #expect(try await FeedSteps.entries(wren, kind: "chat_activity").count == 2)
            _ = try await pushes.deliverDue(programName: "iMATter")
            #expect(sender.pushes.count == 1, "her phone is no longer told")
        }
    }

    @Test func theWebhookPostsSignedJSONThatSaysNothingOfTheEntry() async throws {
        let received = Mutex<[(body: String, signature: String?)]>([])
        let router = Router()
        router.post("/push") { request, _ -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 65_536)
            received.withLock { $0.append((String(buffer: body), request.headers[HTTPField.Name("X-CarePortal-Signature")!])) }
            return received.withLock { $0.count } == 1 ? .ok : .serviceUnavailable
        }
        try await Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.live) { client in
            let port = try #require(client.port)
            let sender = WebhookPushSender(url: "http://127.0.0.1:\(port)/push", secret: "s3cret")
            let push = Push(
                notificationId: 7,
                token: "abc",
                platform: "ios",
                title: "iMATter",
                body: Push.text(programName: "iMATter").body,
                badge: 2
            )
            try await sender.send(push)
            await #expect(throws: WebhookPushSender.Failed.self, "a gateway error is a failure, tried again later") { try await sender.send(push) }
            let first = try #require(received.withLock { $0.first })
            let json = try #require(try JSONSerialization.jsonObject(with: Data(first.body.utf8)) as? [String: Any])
            #expect(json["token"] as? String == "abc" && json["badge"] as? Int == 2 && json["notificationId"] as? Int == 7)
            #expect(first.signature == sender.signature(of: Array(first.body.utf8)) && first.signature?.hasPrefix("sha256=") == true)
        }
        #expect(WebhookPushSender(url: "http://push.example.org/", secret: nil).allowsPlainHTTP == false, "plain http only on this machine")
        #expect(throws: Settings.Invalid.self) { try Settings.load(environment: ["PUSH_WEBHOOK_URL": "http://push.example.org/"]) }
        #expect(try Settings.load(environment: ["PUSH_WEBHOOK_URL": "https://push.example.org/in"]).pushWebhookURL == "https://push.example.org/in")
    }

    @Test(arguments: TestEngines.all)
    func aDeletedMembersFeedChoicesAndPhonesGoWithHer(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, wrenID) = try await FeedSteps.member(portal, "Wren")
            _ = try await FeedSteps.member(portal, "Lark")
            #expect(try await wren.send(.post, SiteURL.apiPushTokens.path, json: ["token": "tok-1", "platform": "ios"]).status == .created)
            #expect(try await FeedSteps.preferences(wren, ["check_in_time": "08:00"]).status == .ok)
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.newBroadcast.path, form: BroadcastSteps.form(title: "Hello", step: "send")).status == .seeOther)
            #expect(try await FeedSteps.feed(wren).entries.count == 1)
            #expect(try await admin.post(SiteURL.memberDelete(wrenID).path).status == .seeOther)
            let left = try await portal.database.read { db in
                try await db.raw(
                    """
                    SELECT (SELECT COUNT(*) FROM notifications WHERE account_id = \(bind: wrenID)) + (SELECT COUNT(*) FROM push_devices WHERE account_id = \(bind: wrenID))
                    + (SELECT COUNT(*) FROM notification_settings WHERE account_id = \(bind: wrenID)) AS count
                    """
                ).first()?.decode(column: "count", as: Int.self)
            }
            #expect(left == 0)
        }
    }
}

/// The kept counts of entries about each subject (`notification_reach`) stay what a count of the entries gives.
@Suite struct NotificationReachTests {
    /// Each subject's entries and read entries, counted from the entries themselves.
    static func recount(on db: any SQLDatabase) async throws -> [String: [Int]] {
        var counts: [String: [Int]] = [:]
        for row in try await db.raw(
            """
            SELECT subject_type, subject_id, COUNT(*) AS written, COUNT(read_at) AS read FROM notifications
            WHERE subject_type IS NOT NULL AND subject_id IS NOT NULL GROUP BY subject_type, subject_id
            """
        ).all() {
            counts["\(try row.decode(column: "subject_type", as: String.self)) \(try row.decode(column: "subject_id", as: Int64.self))"] =
                [try row.decode(column: "written", as: Int.self), try row.decode(column: "read", as: Int.self)]
        }
        return counts
    }

    /// The kept counts of the subjects that still have entries.
    static func kept(on db: any SQLDatabase) async throws -> [String: [Int]] {
        var counts: [String: [Int]] = [:]
        for row in try await db.raw("SELECT subject_type, subject_id, written_count, read_count FROM notification_reach").all() {
            let written = try row.decode(column: "written_count", as: Int.self)
            #expect(written >= 0)
            guard written > 0 else { continue }
            counts["\(try row.decode(column: "subject_type", as: String.self)) \(try row.decode(column: "subject_id", as: Int64.self))"] =
                [written, try row.decode(column: "read_count", as: Int.self)]
        }
        return counts
    }

    @Test(arguments: TestEngines.all)
    func theKeptCountsEqualARecountThroughWritesReadsWithdrawalsAndADeletedMember(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, wrenID) = try await FeedSteps.member(portal, "Wren")
            let (_, larkID) = try await FeedSteps.member(portal, "Lark")
            let (_, robinID) = try await FeedSteps.member(portal, "Robin")
            let notifications = Notifications(now: { portal.clock.now })
            let kind = NotificationKind.deskReply
            func entry(_ type: String, _ id: Int64?, once: String? = nil) -> NewNotification {
                NewNotification(kind: kind, message: "News", subject: NotificationSubject(type, id: id), onceKey: once)
            }
            func check(_ step: String) async throws {
                try await portal.database.read { db in
                    let recount = try await Self.recount(on: db)
                    #expect(try await Self.kept(on: db) == recount, "after \(step)")
                    #expect(!recount.isEmpty)
                }
            }
            try await portal.database.transaction { db in
                for member in [wrenID, larkID, robinID] {
                    try await notifications.write(entry("thread", 1), to: .member(member), on: db)
                    try await notifications.write(entry("reminder", 7, once: "r-7"), to: .member(member), on: db)
                    try await notifications.write(entry("reminder", 7, once: "r-7"), to: .member(member), on: db)
                    try await notifications.write(entry("chat", nil), to: .member(member), on: db)
                }
                #expect(try await notifications.writeToMany(entry("broadcast", 3), accounts: "SELECT id FROM members", on: db) == 3)
                try await notifications.write(entry("thread", 2), to: .member(wrenID), on: db)
            }
            try await check("writing to one and to many")

            let feed = try await FeedSteps.feed(wren)
            let first = try #require(feed.entries.first?["id"] as? Int)
            #expect(try await wren.send(.post, SiteURL.apiNotificationRead(Int64(first)).path).status == .noContent)
            try await check("reading one")
            try await portal.database.transaction { db in
                #expect(try await notifications.markAllRead(of: .member(larkID), upToID: nil, on: db) == 4)
                #expect(try await notifications.markAllRead(of: .member(larkID), upToID: nil, on: db) == 0)
                try await notifications.withdrawUnread(about: NotificationSubject("reminder", id: 7), of: .member(robinID), on: db)
                try await notifications.withdrawUnread(about: NotificationSubject("reminder", id: 7), of: .member(larkID), on: db)
            }
            try await check("reading all and withdrawing")

            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.memberDelete(larkID).path).status == .seeOther)
            try await check("deleting a member who had read hers")

            // Migration 45's count of the entries already there gives the same.
            try await portal.database.transaction { db in
                try await db.delete(from: "notification_reach").run()
                try await Notifications.countReach(on: db)
            }
            try await check("counting afresh")
        }
    }

    @Test(arguments: TestEngines.all)
    func membersReadingOneBroadcastAtOnceAreEachCountedOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var readers: [AppClient] = []
            for name in ["Wren", "Lark", "Robin", "Finch", "Heron", "Swift"] { readers.append(try await FeedSteps.member(portal, name).0) }
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.newBroadcast.path, form: BroadcastSteps.form(title: "Hello", step: "send")).status == .seeOther)
            // Each reads it at the same moment as the others; the first also marks her whole feed read.
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for reader in readers {
                    let id = try #require(try await FeedSteps.feed(reader).entries.first?["id"] as? Int)
                    group.addTask { try await reader.send(.post, SiteURL.apiNotificationRead(Int64(id)).path).status }
                }
                let first = readers[0]
                group.addTask { try await first.send(.post, SiteURL.apiNotificationsReadAll.path, json: [:]).status }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0.code < 300 }, "\(statuses)")
            let (kept, recount) = try await portal.database.read { db in (try await Self.kept(on: db), try await Self.recount(on: db)) }
            #expect(kept == recount)
            #expect(kept.values.first == [readers.count, readers.count], "\(kept)")
        }
    }
}

@Suite struct ProgramClockTests {
    let clock = ProgramClock(timeZone: TimeZone(identifier: "America/New_York")!)

    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func wallClockTimesHoldAcrossDaylightSaving() {
        // 14 March 2027: clocks go from 2:00 EST to 3:00 EDT. 7 November 2027: from 2:00 EDT back to 1:00 EST.
        #expect(clock.instant(on: CalendarDate(year: 2027, month: 3, day: 13)!, atMinute: 8 * 60) == utc("2027-03-13T13:00:00Z"))
        #expect(clock.instant(on: CalendarDate(year: 2027, month: 3, day: 14)!, atMinute: 8 * 60) == utc("2027-03-14T12:00:00Z"))
        #expect(
            clock.instant(on: CalendarDate(year: 2027, month: 3, day: 14)!, atMinute: 150) == utc("2027-03-14T07:30:00Z"),
            "2:30 does not happen that night: the reminder comes at what the clock calls 3:30"
        )
        #expect(
            clock.instant(on: CalendarDate(year: 2027, month: 11, day: 7)!, atMinute: 90) == utc("2027-11-07T05:30:00Z"),
            "1:30 happens twice: the first"
        )
        #expect(clock.instant(startOf: CalendarDate(year: 2027, month: 1, day: 1)!) == utc("2027-01-01T05:00:00Z"))
        #expect(clock.date(of: utc("2027-01-01T05:00:00Z").addingTimeInterval(-0.001)) == CalendarDate(year: 2026, month: 12, day: 31)!)
        #expect(clock.date(of: utc("2027-01-01T05:00:00Z")) == CalendarDate(year: 2027, month: 1, day: 1)!)
        #expect(clock.minuteOfDay(of: utc("2027-03-14T12:00:00Z")) == 8 * 60)
        #expect(clock.dateTime(utc("2027-03-14T12:00:00Z")) == "14 Mar 2027, 08:00 EDT")
        #expect(clock.dateTime(utc("2027-01-02T04:05:00Z")) == "1 Jan 2027, 23:05 EST")
        #expect(clock.dateTime(utc("2027-07-04T14:59:00Z")) == "4 Jul 2027, 10:59 EDT")
    }
}
