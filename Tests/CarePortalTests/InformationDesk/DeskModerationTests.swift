import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct DeskModerationTests {
    @Test(arguments: TestEngines.all)
    func aTakenDownPostShowsThePlaceholderTellsItsAuthorAndCanBeRestored(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (asker, _) = try await AppClient.registered(portal)
            let (replier, _) = try await AppClient.registered(portal)
            let thread = try await DeskSteps.ask(asker, title: "Which vitamins should I take?")
            let reply = try await replier.send(.post, SiteURL.apiThreadReplies(thread).path, json: ["body": "Buy my miracle pills at example.com"])
            let replyID = Int64(try #require(reply.object["id"] as? Int))
            var (admin, adminAccount) = try await portal.signedIn(.administrator)
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)

            let form = try await admin.get(SiteURL.deskReplyModerate(replyID).path)
            #expect(form.text.contains("Buy my miracle pills"))
            let noReason = try await admin.post(SiteURL.deskReplyModerate(replyID).path, form: [("choice", "remove"), ("reason", "")])
            #expect(noReason.status == .unprocessableContent)
            #expect(noReason.text.contains("Enter the reason; the author is told it"))
            #expect(
                (try await DeskSteps.thread(asker, thread)["replies"] as? [[String: Any]])?.first?["removed"] as? Bool == false,
                "a refused form changes nothing"
            )

            let removed = try await admin.post(SiteURL.deskReplyModerate(replyID).path, form: [("choice", "remove"), ("reason", "Advertising")])
            #expect(removed.status == .seeOther)
            let seen = try #require((try await DeskSteps.thread(asker, thread)["replies"] as? [[String: Any]])?.first)
            #expect(seen["removed"] as? Bool == true)
            #expect(seen["removed_text"] as? String == "Removed by a moderator")
            #expect(seen["body_html"] is NSNull || seen["body_html"] == nil)
            #expect(!(try await asker.get(SiteURL.apiThread(thread).path).text.contains("miracle pills")))
            #expect(!(try await doctor.get(SiteURL.deskThread(thread).path).text.contains("miracle pills")))
            let adminView = try await admin.get(SiteURL.deskThread(thread).path)
            #expect(adminView.text.contains("miracle pills") && adminView.text.contains("Reason: Advertising"))

            let told = try #require(try await DeskSteps.notifications(replier).first)
            #expect(told["kind"] as? String == "removed")
            #expect(told["reason"] as? String == "Advertising")

            let log = try await admin.get(SiteURL.deskModerationLog.path)
            #expect(log.text.contains(adminAccount.username) && log.text.contains("Advertising") && log.text.contains("Reply \(replyID)"))
            let csv = try await admin.get(SiteURL.deskModerationLogExport.path + "?action=removed")
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            let lines = csv.text.split(separator: "\r\n")
            #expect(lines.first == Substring(DeskModerationController.csvHeader.joined(separator: ",")))
            #expect(lines.count == 2 && lines[1].contains("reply:\(replyID)") && lines[1].contains("Advertising"))
            #expect(try await portal.auditEntries(action: .moderationLogExported).count == 1)
            #expect(try await portal.auditEntries(action: .deskPostRemoved).count == 1)

            #expect(try await admin.post(SiteURL.deskReplyRestore(replyID).path).status == .seeOther)
            #expect(try await asker.get(SiteURL.apiThread(thread).path).text.contains("miracle pills"))

            // A whole question taken down leaves the list and reads as removed.
            #expect(
                try await admin.post(SiteURL.deskThreadModerate(thread).path, form: [("choice", "hide"), ("reason", "Checking facts")]).status
                    == .seeOther
            )
            let hidden = try await DeskSteps.thread(replier, thread)
            #expect(hidden["removed"] as? Bool == true && hidden["title"] as? String == "Removed by a moderator")
            #expect((hidden["replies"] as? [Any])?.isEmpty == true)
            #expect((try await replier.get(SiteURL.apiThreads.path).object["threads"] as? [Any])?.isEmpty == true)
            #expect(!(try await doctor.get(SiteURL.desk.path + "?filter=all").text.contains("Which vitamins")))
            #expect(try await admin.get(SiteURL.desk.path + "?filter=all").text.contains("Which vitamins"))
            let refused = try await asker.send(.post, SiteURL.apiThreadReplies(thread).path, json: ["body": "Hello?"])
            #expect(refused.status == .notFound && refused.errorCode == "not_found", "the desk's refusal in the API's words")
            let refusedPage = try await doctor.post(SiteURL.deskThreadReplies(999_999).path, form: [("body", "Hello?")])
            #expect(refusedPage.status == .notFound && refusedPage.text.contains("Page not found"), "and as a page")
            #expect(
                try await DeskSteps.notifications(asker).contains {
                    $0["kind"] as? String == "removed" && $0["reason"] as? String == "Checking facts"
                }
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func threeMembersFlagsHideAPostUntilAnAdministratorReviewsIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (asker, _) = try await AppClient.registered(portal)
            let thread = try await DeskSteps.ask(asker, title: "Rude question", body: "Something unkind")
            var flaggers: [AppClient] = []
            for _ in 0..<3 { flaggers.append(try await AppClient.registered(portal).0) }
            let path = SiteURL.apiThreadFlags(thread).path

            #expect(try await DeskSteps.flag(flaggers[0], path, reason: "").status == .unprocessableContent)
            #expect(try await DeskSteps.flag(flaggers[0], path).status == .created)
            let again = try await DeskSteps.flag(flaggers[0], path, reason: "Really unkind")
            #expect(again.status == .ok && again.object["status"] as? String == "already_flagged")
            #expect(try await DeskSteps.flag(flaggers[1], path, reason: "Hurtful").status == .created)
            #expect(try await DeskSteps.thread(asker, thread)["removed"] as? Bool == false, "two members are not enough")

            var (early, _) = try await portal.signedIn(.administrator)
            let twoFlags = try await early.get(SiteURL.deskFlags.path).text
            #expect(twoFlags.contains(">2 flags</strong>"), "two flags, not yet hidden")

            #expect(try await DeskSteps.flag(flaggers[2], path, reason: "Offensive").status == .created)
            #expect(try await DeskSteps.thread(asker, thread)["removed"] as? Bool == true, "the third member's flag hides it")

            var (admin, _) = try await portal.signedIn(.administrator)
            let queue = try await admin.get(SiteURL.deskFlags.path)
            #expect(queue.text.contains("Rude question") && queue.text.contains("3 flags, hidden until reviewed"))
            let reasons = ["This is not kind", "Hurtful", "Offensive"].map { queue.text.range(of: $0)?.lowerBound }
            #expect(
                reasons.allSatisfy { $0 != nil } && reasons[0]! < reasons[1]! && reasons[1]! < reasons[2]!,
                "each flag's reason, in the order they were raised"
            )
            #expect(!queue.text.contains("Really unkind"), "a second flag from the same member is not counted")
            #expect(try await admin.get(SiteURL.desk.path).text.contains("Flagged posts (1 waiting for review)"))

            #expect(try await admin.post(SiteURL.deskThreadKeep(thread).path).status == .seeOther)
            #expect(try await DeskSteps.thread(asker, thread)["removed"] as? Bool == false, "kept: it shows again")
            #expect(try await admin.get(SiteURL.deskFlags.path).text.contains("No flagged posts are waiting"))
            let log = try await admin.get(SiteURL.deskModerationLog.path)
            #expect(log.text.contains("Hidden by three flags") && log.text.contains("Flags reviewed, post kept") && log.text.contains("Automatic"))
        }
    }

    /// The queue's counts (kept as flags come and go) against a count of the open flags themselves.
    private static func queueAndRecount(_ portal: TestPortal) async throws -> (kept: [String], counted: [String]) {
        try await portal.database.read { db in
            func rows(_ sql: SQLQueryString) async throws -> [String] {
                try await db.raw(sql).all().map {
                    "\(try $0.decode(column: "post", as: String.self)) \(try $0.decode(column: "flags", as: Int.self)) \(try $0.decode(column: "first_at", as: Int64.self))"
                }
            }
            return (
                try await rows("SELECT post, open_flags AS flags, first_at FROM desk_flagged_posts ORDER BY post"),
                try await rows(
                    """
                    SELECT post, COUNT(*) AS flags, MIN(created_at) AS first_at FROM desk_flags WHERE resolved_at IS NULL
                    GROUP BY post ORDER BY post
                    """
                )
            )
        }
    }

    /// The queue's pages, followed both ways by their cursors and opened by number, hold the posts in the
    /// order a sort of all of them gives: most open flags first, then the longest flagged, then the post.
    /// The flags are counted up and down after the rows are written, so the rank the engine keeps follows them.
    @Test(arguments: TestEngines.all)
    func everyPageOfTheFlagQueueFollowsItsOrder(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (asker, _) = try await AppClient.registered(portal)
            var threads: [Int64] = []
            for n in 0..<9 { threads.append(try await DeskSteps.ask(asker, title: "Question \(n)")) }
            // The queue's rows as the portal keeps them: flags from one to three, some flagged at the same time.
            let queue = threads.enumerated().map { n, id in
                (post: "question:\(id)", flags: [2, 1, 3, 2, 1, 2, 3, 1, 2][n], first: Int64([5, 1, 5, 3, 3, 5, 2, 9, 1][n]))
            }
            try await portal.database.transaction { db in
                for row in queue {
                    try await db.insert(into: "desk_flagged_posts").columns("post", "thread_id", "open_flags", "first_at")
                        .values(SQLBind(row.post), SQLBind(Int64(row.post.dropFirst("question:".count))!), SQLBind(1), SQLBind(row.first)).run()
                    try await db.update("desk_flagged_posts").set("open_flags", to: row.flags).where("post", .equal, row.post).run()
                }
            }
            let expected = queue.sorted { (-$0.flags, $0.first, $0.post) < (-$1.flags, $1.first, $1.post) }.map(\.post)
            let repository = DeskRepository(engine: engine)
            try await portal.database.read { db in
                let (seen, backwards) = try await PageWalk.bothWays(size: 2, limit: expected.count) { request in
                    let page = try await repository.flaggedPosts(page: request, on: db)
                    #expect(page.totalCount == expected.count)
                    return page.replacingItems(page.items.map(\.post.description))
                }
                #expect(seen == expected, "through Next")
                #expect(backwards == expected, "through Previous")
                #expect(
                    try await repository.flaggedPosts(page: PageRequest(number: 3, size: 2), on: db).items.map(\.post.description)
                        == Array(expected[4..<6])
                )
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func theQueueCountsEachPostsOpenFlagsAsARecountWouldThroughReviewsAndDeletedMembers(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (asker, _) = try await AppClient.registered(portal)
            let (replier, replierRecord) = try await AppClient.registered(portal)
            let first = try await DeskSteps.ask(asker, title: "First flagged question")
            let second = try await DeskSteps.ask(asker, title: "Second flagged question")
            let reply = try await replier.send(.post, SiteURL.apiThreadReplies(first).path, json: ["body": "A flagged reply"])
            let replyID = Int64(try #require(reply.object["id"] as? Int))
            var flaggers: [(AppClient, Int64)] = []
            for _ in 0..<3 {
                let (client, record) = try await AppClient.registered(portal)
                flaggers.append((client, Int64(try #require(record["id"] as? Int))))
            }
            func flag(_ who: Int, _ path: String) async throws {
                portal.clock.advance(by: 60)
                #expect(try await DeskSteps.flag(flaggers[who].0, path).status == .created)
            }
            try await flag(0, SiteURL.apiThreadFlags(first).path)
            try await flag(1, SiteURL.apiThreadFlags(first).path)
            try await flag(0, SiteURL.apiThreadFlags(second).path)
            try await flag(1, SiteURL.apiReplyFlags(replyID).path)
            try await flag(2, SiteURL.apiReplyFlags(replyID).path)
            var state = try await Self.queueAndRecount(portal)
            #expect(state.kept.count == 3 && state.kept == state.counted)
            // Migration 42 counts the flags there were before it the same way.
            try await portal.database.transaction { db in
                try await db.delete(from: "desk_flagged_posts").run()
                try await CountOpenFlagsPerPost.countFlags(on: db)
            }
            #expect(try await Self.queueAndRecount(portal).kept == state.kept)

            var (admin, _) = try await portal.signedIn(.administrator)
            let queue = try await admin.get(SiteURL.deskFlags.path).text
            let order = ["First flagged question", "A flagged reply", "Second flagged question"].map { queue.range(of: $0)?.lowerBound }
            #expect(
                order.allSatisfy { $0 != nil } && order[0]! < order[1]! && order[1]! < order[2]!,
                "most flags first, and of two posts with as many flags the one flagged first"
            )
            #expect(try await admin.get(SiteURL.desk.path).text.contains("Flagged posts (3 waiting for review)"))

            #expect(try await admin.post(SiteURL.deskThreadKeep(first).path).status == .seeOther)
            state = try await Self.queueAndRecount(portal)
            #expect(state.kept.count == 2 && state.kept == state.counted, "a reviewed post leaves the queue")

            // A member's flags go with her account; a deleted author's reply goes with its flags.
            #expect(try await admin.post(SiteURL.memberDelete(flaggers[1].1).path).status == .seeOther)
            state = try await Self.queueAndRecount(portal)
            #expect(state.kept == state.counted && state.kept.contains { $0.hasPrefix("reply:\(replyID) 1 ") })
            let replierID = Int64(try #require(replierRecord["id"] as? Int))
            #expect(try await admin.post(SiteURL.memberDelete(replierID).path).status == .seeOther)
            state = try await Self.queueAndRecount(portal)
            #expect(state.kept == state.counted && state.kept.count == 1 && state.kept[0].hasPrefix("question:\(second) 1 "))
            #expect(try await admin.get(SiteURL.desk.path).text.contains("Flagged posts (1 waiting for review)"))
        }
    }

    @Test(arguments: TestEngines.all)
    func flagsSentAtOnceAreEachCountedOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (asker, _) = try await AppClient.registered(portal)
            let thread = try await DeskSteps.ask(asker, title: "A question flagged at once")
            // As many members as can flag it before it is hidden, at once, the first of them sending hers three times.
            let members = DeskRules.flagsToHide - 1
            var flaggers: [AppClient] = []
            for _ in 0..<members { flaggers.append(try await AppClient.registered(portal).0) }
            let path = SiteURL.apiThreadFlags(thread).path
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for flagger in flaggers + [flaggers[0], flaggers[0]] {
                    group.addTask { try await DeskSteps.flag(flagger, path).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == members, "\(statuses)")
            #expect(statuses.filter { $0 == .ok }.count == 2, "a flag sent again is answered as already flagged")
            let state = try await Self.queueAndRecount(portal)
            #expect(state.kept == state.counted && state.kept.count == 1 && state.kept[0].hasPrefix("question:\(thread) \(members) "))
        }
    }

    @Test(arguments: TestEngines.all)
    func theModerationLogShowsOneModeratorsEntriesChosenFromThoseWithEntries(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (asker, _) = try await AppClient.registered(portal)
            let byAda = try await DeskSteps.ask(asker, title: "First question")
            let byBo = try await DeskSteps.ask(asker, title: "Second question")
            let byFlags = try await DeskSteps.ask(asker, title: "Third question")
            var (ada, adaAccount) = try await portal.signedIn(.administrator, username: "ada.admin")
            var (bo, boAccount) = try await portal.signedIn(.administrator, username: "bo.admin")
            #expect(
                try await ada.post(SiteURL.deskThreadModerate(byAda).path, form: [("choice", "hide"), ("reason", "Reason from Ada")]).status
                    == .seeOther
            )
            #expect(
                try await bo.post(SiteURL.deskThreadModerate(byBo).path, form: [("choice", "hide"), ("reason", "Reason from Bo")]).status == .seeOther
            )
            for _ in 0..<DeskRules.flagsToHide {
                #expect(try await DeskSteps.flag(try await AppClient.registered(portal).0, SiteURL.apiThreadFlags(byFlags).path).status == .created)
            }
            let path = SiteURL.deskModerationLog.path

            let everyone = try await ada.get(path)
            #expect(everyone.text.contains(#"<option value="\#(adaAccount.id)">ada.admin</option>"#))
            #expect(everyone.text.contains(#"<option value="\#(boAccount.id)">bo.admin</option>"#))
            #expect(everyone.text.contains(#"<option value="automatic">Automatic (members&#39; flags)</option>"#))
            #expect(
                everyone.text.contains("Reason from Ada") && everyone.text.contains("Reason from Bo") && everyone.text.contains("members flagged it")
            )

            let adaOnly = try await ada.get(path + "?moderator=\(adaAccount.id)")
            #expect(adaOnly.text.contains(#"<option value="\#(adaAccount.id)" selected>ada.admin</option>"#), "the chosen moderator stays chosen")
            #expect(
                adaOnly.text.contains("Reason from Ada") && !adaOnly.text.contains("Reason from Bo") && !adaOnly.text.contains("members flagged it")
            )
            let automatic = try await ada.get(path + "?moderator=automatic")
            #expect(
                automatic.text.contains("members flagged it") && !automatic.text.contains("Reason from Ada")
                    && !automatic.text.contains("Reason from Bo")
            )
            let olderLink = try await ada.get(path + "?moderator=BO.ADMIN")
            #expect(olderLink.status == .ok, "a link from before the list still finds the moderator by her whole name")
            #expect(olderLink.text.contains("Reason from Bo") && !olderLink.text.contains("Reason from Ada"))
            #expect(olderLink.text.contains(#"<option value="\#(boAccount.id)" selected>bo.admin</option>"#))

            let nobody = try await ada.get(path + "?moderator=bo")
            #expect(nobody.status == .unprocessableContent)
            #expect(nobody.text.contains(##"<a href="#moderator">Choose a moderator from the list</a>"##))
            #expect(!nobody.text.contains("Reason from Bo"), "a name that is no moderator's shows no entries")
            let noEntries = try await ada.get(path + "?moderator=\(max(adaAccount.id, boAccount.id) + 1_000)")
            #expect(noEntries.status == .unprocessableContent, "an account with no entries is not a moderator to choose")
            #expect(noEntries.text.contains("Choose a moderator from the list"))

            let csv = try await ada.get(SiteURL.deskModerationLogExport.path + "?moderator=\(boAccount.id)")
            let lines = csv.text.split(separator: "\r\n")
            #expect(lines.count == 2 && lines[1].contains("Reason from Bo"))
            #expect(try await ada.get(SiteURL.deskModerationLogExport.path + "?moderator=bo").status == .badRequest)
        }
    }

    @Test(arguments: TestEngines.all)
    func revealingAnAnonymousAuthorNeedsAReasonAndIsRecorded(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, member) = try await AppClient.registered(portal, pseudonym: "HiddenFinch")
            let memberID = try #require(member["id"] as? Int)
            let thread = try await DeskSteps.ask(app, title: "I relapsed last night", anonymous: true)
            var (admin, account) = try await portal.signedIn(.administrator)
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            #expect(try await doctor.get(SiteURL.deskThreadReveal(thread).path).status == .forbidden)

            let form = try await admin.get(SiteURL.deskThreadReveal(thread).path)
            #expect(form.text.contains("Why do you need to know who asked?") && !form.text.contains("HiddenFinch"))
            let noReason = try await admin.post(SiteURL.deskThreadReveal(thread).path, form: [("reason", " ")])
            #expect(noReason.status == .unprocessableContent && !noReason.text.contains("HiddenFinch"))
            #expect(try await portal.auditEntries(action: .deskAuthorRevealed).isEmpty)

            let revealed = try await admin.post(SiteURL.deskThreadReveal(thread).path, form: [("reason", "She wrote about harming herself")])
            #expect(revealed.status == .ok)
            #expect(revealed.text.contains("Asked by HiddenFinch") && revealed.text.contains("/members/\(memberID)"))
            let audit = try #require(try await portal.auditEntries(action: .deskAuthorRevealed).first)
            #expect(audit.actorAccountID == account.id && audit.detail == "She wrote about harming herself")
            let threadPage = try await admin.get(SiteURL.deskThread(thread).path)
            #expect(threadPage.text.contains("\(account.username) revealed who asked"))
            #expect(!threadPage.text.contains("HiddenFinch"), "the name is shown once, on the reveal itself")
        }
    }
}

/// An anonymous question never names its author, to anyone, anywhere on the desk.
@Suite struct DeskAnonymityTests {
    @Test(arguments: TestEngines.all)
    func anAnonymousAskerIsNeverNamedOnAnyPageResponseEmailOrFeed(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.medicalProfessional, username: "dr.notified", email: "notified@clinic.example")
            let pseudonym = "SecretWren"
            let (asker, member) = try await AppClient.registered(portal, pseudonym: pseudonym)
            let askerID = try #require(member["id"] as? Int)
            let (other, _) = try await AppClient.registered(portal)
            let thread = try await DeskSteps.ask(
                asker,
                title: "Methadone and my baby's heartbeat",
                body: "Is a fast heartbeat a worry?",
                anonymous: true
            )
            // She also writes in her own thread; that must not give her away either.
            let ownReply = try await asker.send(.post, SiteURL.apiThreadReplies(thread).path, json: ["body": "Also, I am 30 weeks along."])
            #expect(ownReply.status == .created)
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            var (admin, _) = try await portal.signedIn(.administrator)
            let answer = try await DeskSteps.reply(&doctor, thread: thread, body: "A baby's heart beats fast; 110 to 160 is normal.")
            #expect(try await admin.post(SiteURL.deskReplyAccept(answer).path).status == .seeOther)
            #expect(try await DeskSteps.flag(other, SiteURL.apiThreadFlags(thread).path).status == .created)
            #expect(
                try await admin.post(SiteURL.deskReplyModerate(answer).path, form: [("choice", "hide"), ("reason", "Checking")]).status == .seeOther
            )
            #expect(try await admin.post(SiteURL.deskReplyRestore(answer).path).status == .seeOther)

            func assertNoIdentity(_ text: String, _ label: String) {
                #expect(!text.contains(pseudonym), "\(label) shows her pseudonym")
                #expect(!text.lowercased().contains(pseudonym.lowercased()), "\(label) shows her pseudonym in another case")
                for leak in ["/members/\(askerID)", "\"member_id\":\(askerID)", "member:\(askerID)", "\"author_member_id\""] {
                    #expect(!text.contains(leak), "\(label) contains \(leak)")
                }
            }

            // Every information-desk page, as a medical professional and as an administrator.
            let deskPages = portal.app.routes.filter { $0.method == "GET" && $0.path.hasPrefix("/desk") }
            #expect(deskPages.count >= 7)
            for (label, visitor) in [("medical professional", doctor), ("administrator", admin)] {
                var visitor = visitor
                for route in deskPages {
                    let id = route.path.contains("/replies/") ? answer : Int64(thread)
                    var paths = [route.path.replacingOccurrences(of: ":id", with: "\(id)")]
                    if route.path == SiteURL.desk.path {
                        paths += DeskFilter.allCases.map { "\(SiteURL.desk.path)?filter=\($0.rawValue)" }
                        paths += ["\(SiteURL.desk.path)?filter=all&q=heartbeat", "\(SiteURL.desk.path)?filter=all&q=30+weeks"]
                    }
                    for path in paths {
                        let response = try await visitor.get(path)
                        #expect(response.status.code < 500, "\(path) as \(label)")
                        assertNoIdentity(response.text, "\(path) as \(label)")
                    }
                }
                let withQuestion = try await visitor.get(SiteURL.desk.path + "?filter=all&q=heartbeat")
                #expect(withQuestion.text.contains("Asked by Anonymous"), "the search result names no one, as \(label)")
            }

            // Every API response, as the asker herself and as another member.
            for (label, app) in [("the asker", asker), ("another member", other)] {
                for path in [
                    SiteURL.apiThreads.path, SiteURL.apiThreads.path + "?q=heartbeat", SiteURL.apiThreads.path + "?filter=accepted",
                    SiteURL.apiThread(thread).path, SiteURL.apiNotifications.path
                ] {
                    let response = try await app.get(path)
                    #expect(response.status == .ok, "\(path) as \(label)")
                    assertNoIdentity(response.text, "\(path) as \(label)")
                }
                let read = try await DeskSteps.thread(app, thread)
                let author = try #require(read["author"] as? [String: Any])
                #expect(author["kind"] as? String == "anonymous" && author["name"] as? String == "Anonymous")
                #expect(author["member_id"] is NSNull || author["member_id"] == nil)
                let replies = try #require(read["replies"] as? [[String: Any]])
                #expect((replies.first?["author"] as? [String: Any])?["name"] as? String == "Anonymous")
            }
            #expect(try await DeskSteps.thread(asker, thread)["asked_by_you"] as? Bool == true)
            #expect(try await DeskSteps.thread(other, thread)["asked_by_you"] as? Bool == false)
            #expect(try await DeskSteps.notifications(asker).count >= 2, "her feed has entries, and they name no one")

            // Every email the desk sent.
            let mail = try await portal.outboxMessages()
            #expect(mail.contains { $0.subject.contains("New question") })
            for message in mail { assertNoIdentity(message.subject + message.bodyText, "the email to \(message.recipient)") }
        }
    }
}
