import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct DeskListTests {
    @Test(arguments: TestEngines.all)
    func waitingQuestionsComeFirstOldestFirstWithCountsAndAges(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await AppClient.registered(portal, pseudonym: "Heron")
            let first = try await DeskSteps.ask(app, title: "Can methadone affect my baby?")
            portal.clock.advance(by: 3_600)
            let second = try await DeskSteps.ask(app, title: "Is nausea normal at 10 weeks?")
            portal.clock.advance(by: 3_600)
            let third = try await DeskSteps.ask(app, title: "Where can I find a counsellor?")
            portal.clock.advance(by: 600)
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            try await DeskSteps.reply(&doctor, thread: second, body: "Yes, nausea is very common in the first trimester.")

            let waiting = try await doctor.get(SiteURL.desk.path)
            #expect(waiting.status == .ok)
            let order = ["Can methadone affect my baby?", "Where can I find a counsellor?"].compactMap { waiting.text.range(of: $0)?.lowerBound }
            #expect(order.count == 2 && order == order.sorted(), "oldest waiting first")
            #expect(!waiting.text.contains("Is nausea normal at 10 weeks?"))
            #expect(waiting.text.contains("Waiting 2 h"), "the first question has waited two hours and ten minutes")
            #expect(waiting.text.contains("Waiting 10 min"))
            #expect(waiting.text.contains("Waiting for an answer&nbsp;<span class=\"count\">(2)</span>"))
            #expect(waiting.text.contains("Answered&nbsp;<span class=\"count\">(1)</span>"))
            #expect(waiting.text.contains("All questions&nbsp;<span class=\"count\">(3)</span>"))

            let answered = try await doctor.get(SiteURL.desk.path + "?filter=answered")
            #expect(answered.text.contains("Is nausea normal at 10 weeks?") && !answered.text.contains("Can methadone affect my baby?"))
            let newest = try await doctor.get(SiteURL.desk.path + "?filter=all&sort=newest")
            let byNewest = ["Where can I find a counsellor?", "Is nausea normal at 10 weeks?", "Can methadone affect my baby?"]
                .compactMap { newest.text.range(of: $0)?.lowerBound }
            #expect(byNewest.count == 3 && byNewest == byNewest.sorted())
            let activity = try await doctor.get(SiteURL.desk.path + "?filter=all&sort=activity")
            #expect(
                activity.text.range(of: "Is nausea normal")!.lowerBound < activity.text.range(of: "Where can I find")!.lowerBound,
                "the answered question moved last"
            )

            // A question asked now is on the list on the very next request.
            let fourth = try await DeskSteps.ask(app, title: "Breastfeeding on buprenorphine")
            #expect(try await doctor.get(SiteURL.desk.path).text.contains("Breastfeeding on buprenorphine"))
            #expect([first, second, third, fourth].count == Set([first, second, third, fourth]).count)
            #expect(
                try await doctor.get(SiteURL.desk.path).text.contains("Waiting for an answer&nbsp;<span class=\"count\">(3)</span>"),
                "a change through this server shows in the counts at once"
            )

            // A change made by another server (here, straight in the database) shows at once too.
            try await portal.database.transaction { db in
                try await db.raw("UPDATE desk_threads SET answered_at = last_activity_at WHERE id = \(bind: fourth)").run()
            }
            #expect(try await doctor.get(SiteURL.desk.path).text.contains("Waiting for an answer&nbsp;<span class=\"count\">(2)</span>"))

            let empty = try await doctor.get(SiteURL.desk.path + "?filter=accepted")
            #expect(empty.text.contains("No questions here right now"))
        }
    }

    @Test(arguments: TestEngines.all)
    func searchFindsWordsInQuestionsAndRepliesOnEachEngine(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await AppClient.registered(portal)
            let dose = try await DeskSteps.ask(app, title: "Methadone dose in the third trimester", body: "My clinic wants to split my dose.")
            let sleep = try await DeskSteps.ask(app, title: "Trouble sleeping", body: "I wake up every night at 3am.")
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            try await DeskSteps.reply(&doctor, thread: sleep, body: "Many mothers find **breastfeeding** settles the night feeds.")

            func found(_ query: String) async throws -> [Int64] {
                let response = try await app.get(SiteURL.apiThreads.path + "?q=\(Visitor.encode(query))")
                #expect(response.status == .ok)
                return (response.object["threads"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? Int).map(Int64.init) }
            }
            #expect(try await found("trimester") == [dose])
            #expect(try await found("SPLIT dose") == [dose], "every word must match, whatever its case")
            #expect(try await found("breastfeeding") == [sleep], "replies are searched too")
            #expect(try await found("sleeping") == [sleep])
            #expect(try await found("nothing-like-this") == [])
            #expect(try await found(#"(trimester* "NEAR"#) == [], "search syntax typed by a person is taken as words")
            #expect(try await found(#"(trimester*"#) == [dose])

            let page = try await doctor.get(SiteURL.desk.path + "?filter=all&q=breastfeeding")
            #expect(page.text.contains("Trouble sleeping") && !page.text.contains("Methadone dose in the third trimester"))
            #expect(page.text.contains("All questions&nbsp;<span class=\"count\">(1)</span>"), "counts follow the search")
            #expect(page.text.contains("Answered&nbsp;<span class=\"count\">(1)</span>"))
            #expect(page.text.contains("Waiting for an answer&nbsp;<span class=\"count\">(0)</span>"))
            #expect(page.text.contains("Has an accepted answer&nbsp;<span class=\"count\">(0)</span>"))
            let waitingOnes = try await doctor.get(SiteURL.desk.path + "?filter=all&q=trimester").text
            #expect(
                waitingOnes.contains("Waiting for an answer&nbsp;<span class=\"count\">(1)</span>")
                    && waitingOnes.contains("Answered&nbsp;<span class=\"count\">(0)</span>")
            )
            let none = try await doctor.get(SiteURL.desk.path + "?q=zebra")
            #expect(none.text.contains("No questions match your search"))

            // A hidden question's words leave the search, and come back with it.
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get(SiteURL.deskThread(sleep).path)
            #expect(
                try await admin.post(SiteURL.deskThreadModerate(sleep).path, form: [("choice", "hide"), ("reason", "Checking facts")]).status
                    == .seeOther
            )
            #expect(try await found("breastfeeding") == [])
            #expect(try await admin.post(SiteURL.deskThreadRestore(sleep).path).status == .seeOther)
            #expect(try await found("breastfeeding") == [sleep])
        }
    }
}

@Suite struct DeskAnsweringTests {
    @Test(arguments: TestEngines.all)
    func aReplyCanBePreviewedThenPostedAndIsAlwaysSanitized(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await AppClient.registered(portal)
            let thread = try await DeskSteps.ask(app, title: "Cramps", body: "Cramps <script>alert('q')</script> at night. **Help?**")
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            let path = SiteURL.deskThread(thread).path
            let page = try await doctor.get(path)
            #expect(page.text.contains("<strong>Help?</strong>"))
            #expect(!page.text.contains("<script>alert"))
            #expect(page.text.contains("No replies yet") && !page.text.contains("post-list"))

            let draft = "Try **gentle stretches** <img src=x onerror=alert(1)> before bed."
            let preview = try await doctor.post(SiteURL.deskThreadReplies(thread).path, form: [("body", draft), ("intent", "preview")])
            #expect(preview.status == .ok)
            #expect(preview.text.contains("Preview: this is how members will see your reply"))
            #expect(preview.text.contains("<strong>gentle stretches</strong>"))
            let shown = try #require(preview.text.components(separatedBy: "preview-title").last?.components(separatedBy: "</section>").first)
            #expect(!shown.contains("onerror") && !shown.contains("<img"))
            #expect(preview.text.contains("Try **gentle stretches**"), "the draft stays in the box")
            let afterPreview = try await DeskSteps.thread(app, thread)
            #expect((afterPreview["replies"] as? [Any])?.isEmpty == true, "a preview saves nothing")

            let empty = try await doctor.post(SiteURL.deskThreadReplies(thread).path, form: [("body", "   "), ("intent", "post")])
            #expect(empty.status == .unprocessableContent)
            #expect(empty.text.contains(##"<a href="#body">Enter your reply</a>"##))

            let replyID = try await DeskSteps.reply(&doctor, thread: thread, body: draft)
            let stored = try #require(
                try await portal.database.read { db in try await DeskRepository(engine: engine).findReply(id: replyID, on: db) }
            )
            #expect(stored.body.source == draft, "the source is kept as written")
            let answered = try await doctor.get(path).text
            #expect(!answered.contains("No replies yet"))
            #expect(
                answered.contains(##"<ol class="post-list">"##) && answered.contains(##"<li><article class="post" id="reply-\##(replyID)">"##),
                "each reply is an item of the list; the question is not"
            )
            #expect(!answered.contains(##"<li><article class="post" id="question">"##))
            #expect(stored.body.html.contains("<strong>gentle stretches</strong>") && !stored.body.html.contains("onerror"))
            let question = try #require(
                try await portal.database.read { db in try await DeskRepository(engine: engine).findThread(id: thread, on: db) }
            )
            #expect(!question.body.html.contains("<script") && question.body.source.contains("<script>"))

            // A member's reply through the API goes through the same policy.
            let member = try await app.send(.post, SiteURL.apiThreadReplies(thread).path, json: ["body": "Thanks <iframe src=//evil></iframe>!"])
            #expect(member.status == .created)
            #expect((member.object["body_html"] as? String)?.contains("iframe") == false)
            let tooLong = try await app.send(.post, SiteURL.apiThreads.path, json: ["title": String(repeating: "a", count: 151), "body": "x"])
            #expect(tooLong.status == .unprocessableContent && tooLong.fieldErrors["title"] == "Title must be 150 characters or fewer")
        }
    }

    @Test(arguments: TestEngines.all)
    func theAcceptedAnswerCanBeSetChangedAndClearedAndTheAskerHears(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (asker, _) = try await AppClient.registered(portal)
            let thread = try await DeskSteps.ask(asker, title: "Can I breastfeed on methadone?")
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            var (admin, _) = try await portal.signedIn(.administrator)
            let first = try await DeskSteps.reply(&doctor, thread: thread, body: "Usually yes; talk to your prescriber.")
            let second = try await DeskSteps.reply(&admin, thread: thread, body: "Yes: methadone passes into milk only in small amounts.")

            #expect(try await doctor.post(SiteURL.deskReplyAccept(first).path).status == .seeOther)
            var read = try await DeskSteps.thread(asker, thread)
            #expect(read["accepted_reply_id"] as? Int == Int(first))
            #expect((read["replies"] as? [[String: Any]])?.first?["is_accepted"] as? Bool == true)

            #expect(try await admin.post(SiteURL.deskReplyAccept(second).path).status == .seeOther)
            read = try await DeskSteps.thread(asker, thread)
            #expect(read["accepted_reply_id"] as? Int == Int(second))
            let page = try await doctor.get(SiteURL.deskThread(thread).path)
            #expect(page.text.components(separatedBy: "post--accepted").count == 2, "one accepted answer at a time")
            // The posts' buttons submit the page's one form, which carries this session's token.
            #expect(page.text.contains(#"form="post-actions" formaction="\#(SiteURL.deskReplyAccept(first).path)""#))
            #expect(page.text.contains(#"form="post-actions" formaction="\#(SiteURL.deskThreadClearAccepted(thread).path)""#))
            #expect(
                page.text.contains(
                    #"<form id="post-actions" method="post" action="/desk"><input type="hidden" name="csrf_token" value="\#(try #require(doctor.csrfToken))">"#
                )
            )

            #expect(try await doctor.post(SiteURL.deskThreadClearAccepted(thread).path).status == .seeOther)
            read = try await DeskSteps.thread(asker, thread)
            #expect(read["accepted_reply_id"] is NSNull || read["accepted_reply_id"] == nil)

            let feed = try await DeskSteps.notifications(asker)
            #expect(feed.filter { $0["kind"] as? String == "reply" }.count == 2)
            #expect(feed.filter { $0["kind"] as? String == "accepted_answer" }.count == 2)
            #expect(feed.allSatisfy { $0["thread_id"] as? Int == Int(thread) })
        }
    }

    @Test(arguments: TestEngines.all)
    func aReplyCanBeEditedForFifteenMinutesAndAdministratorsSeeEarlierVersions(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await AppClient.registered(portal)
            let thread = try await DeskSteps.ask(app, title: "Headaches")
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            var (colleague, _) = try await portal.signedIn(.medicalProfessional)
            var (admin, _) = try await portal.signedIn(.administrator)
            let reply = try await DeskSteps.reply(&doctor, thread: thread, body: "Drink water and rest.")
            let editPath = SiteURL.deskReplyEdit(reply).path

            portal.clock.advance(by: 10 * 60)
            let form = try await doctor.get(editPath)
            #expect(form.status == .ok && form.text.contains("Drink water and rest.") && form.text.contains("5 more minutes"))
            #expect(try await colleague.get(editPath).status == .notFound, "only her own reply")
            let saved = try await doctor.post(editPath, form: [("body", "Drink water, rest, and call us if it lasts."), ("intent", "save")])
            #expect(saved.status == .seeOther)
            let memberView = try await DeskSteps.thread(app, thread)
            let body = (memberView["replies"] as? [[String: Any]])?.first?["body_html"] as? String
            #expect(body?.contains("call us if it lasts") == true)
            #expect((memberView["replies"] as? [[String: Any]])?.first?["edited_at"] is String)

            let adminPage = try await admin.get(SiteURL.deskThread(thread).path)
            #expect(adminPage.text.contains("Earlier versions (1)") && adminPage.text.contains("Drink water and rest."))
            let doctorPage = try await doctor.get(SiteURL.deskThread(thread).path)
            #expect(!doctorPage.text.contains("Earlier versions"))

            portal.clock.advance(by: 6 * 60)
            let late = try await doctor.post(editPath, form: [("body", "Changed too late"), ("intent", "save")])
            #expect(late.status == .seeOther)
            #expect(try await doctor.get(SiteURL.deskThread(thread).path).text.contains("that time has passed"))
            #expect(try await doctor.get(editPath).status == .seeOther)
            let after = try await DeskSteps.thread(app, thread)
            #expect(((after["replies"] as? [[String: Any]])?.first?["body_html"] as? String)?.contains("Changed too late") == false)
        }
    }

    @Test(arguments: TestEngines.all)
    func newQuestionsAreEmailedToMedicalProfessionalsWithoutWhoAsked(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let keen = try await portal.createStaff(.medicalProfessional, username: "dr.keen", email: "keen@clinic.example")
            try await portal.createStaff(.medicalProfessional, username: "dr.away", email: "away@clinic.example", status: .disabled)
            try await portal.createStaff(.administrator, username: "chief", email: "chief@clinic.example")
            var (quiet, quietAccount) = try await portal.signedIn(.medicalProfessional)
            let settings = try await quiet.get(SiteURL.deskEmailSettings.path)
            #expect(settings.text.contains("Yes, email me each new question"))
            #expect(try await quiet.post(SiteURL.deskEmailSettings.path, form: [("emails", "off")]).status == .seeOther)
            #expect(
                try await quiet.get(SiteURL.deskEmailSettings.path).text.contains(#"id="emails-off" name="emails" type="radio" value="off" checked"#)
            )

            let (app, member) = try await AppClient.registered(portal, pseudonym: "QuietLark")
            let memberID = try #require(member["id"] as? Int)
            let thread = try await DeskSteps.ask(
                app,
                title: "Spotting at 8 weeks",
                body: "I noticed some light spotting this morning. Should I worry?",
                anonymous: true
            )

            let mail = try await portal.outboxMessages().filter { $0.subject.contains("New question") }
            #expect(mail.map(\.recipient) == [keen.email], "active medical professionals who want them, and no one else")
            let message = try #require(mail.first)
            #expect(message.bodyText.contains("Spotting at 8 weeks"))
            #expect(message.bodyText.contains("I noticed some light spotting this morning."))
            #expect(message.bodyText.contains("\(TestPortal.baseURL)/desk/threads/\(thread)"))
            #expect(!message.bodyText.contains("QuietLark") && !message.bodyText.contains("/members/\(memberID)"))
            #expect(!mail.contains { $0.recipient == quietAccount.email })

            // Switching them back on.
            #expect(try await quiet.post(SiteURL.deskEmailSettings.path, form: [("emails", "on")]).status == .seeOther)
            try await DeskSteps.ask(app, title: "Second question")
            let later = try await portal.outboxMessages().filter { $0.subject.contains("New question") }
            #expect(Set(later.suffix(2).map(\.recipient)) == Set([keen.email, quietAccount.email]))
        }
    }

    /// A member who replied to others' questions is deleted: her replies go, and each question counts its
    /// replies and its accepted answer again without them, on the list and on its page.
    @Test(arguments: TestEngines.all)
    func aDeletedMembersRepliesLeaveTheQuestionsSheAnsweredCountedAgain(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (asker, _) = try await AppClient.registered(portal)
            let (replier, replierRecord) = try await AppClient.registered(portal)
            let replierID = Int64(try #require(replierRecord["id"] as? Int))
            let answered = try await DeskSteps.ask(asker, title: "Where can I find a support group?")
            let other = try await DeskSteps.ask(asker, title: "Is there a clinic open on Saturday?")
            let own = try await DeskSteps.ask(replier, title: "Her own question")
            var (admin, _) = try await portal.signedIn(.administrator)
            try await DeskSteps.reply(&admin, thread: answered, body: "The program runs one on Tuesdays.")
            let memberReply = try await replier.send(.post, SiteURL.apiThreadReplies(answered).path, json: ["body": "Mine meets on Thursdays."])
            let memberReplyID = Int64(try #require(memberReply.object["id"] as? Int))
            #expect(
                try await replier.send(.post, SiteURL.apiThreadReplies(other).path, json: ["body": "The one on Main Street is."]).status == .created
            )
            #expect(try await admin.post(SiteURL.deskReplyAccept(memberReplyID).path).status == .seeOther)
            let repository = DeskRepository(engine: engine)
            func summary(_ id: Int64) async throws -> (replies: Int, accepted: Int64?, answered: Bool)? {
                try await portal.database.read { db in
                    try await repository.findThread(id: id, on: db).map { ($0.replyCount, $0.acceptedReplyID, $0.answeredAt != nil) }
                }
            }
            let before = try #require(try await summary(answered))
            #expect(before.replies == 2 && before.accepted == memberReplyID)
            #expect(try await summary(other)?.replies == 1)

            _ = try await admin.get(SiteURL.member(replierID).path)
            #expect(try await admin.post(SiteURL.memberDelete(replierID).path).status == .seeOther)
            let left = try #require(try await summary(answered))
            #expect(left.replies == 1 && left.accepted == nil && left.answered, "the staff reply stays; her accepted answer went with her")
            let unanswered = try #require(try await summary(other))
            #expect(unanswered.replies == 0 && unanswered.accepted == nil && !unanswered.answered)
            #expect(try await summary(own) == nil, "her own question went with her account")
            let list = try await admin.get(SiteURL.desk.path + "?filter=all").text
            #expect(list.contains("1 reply") && list.contains("0 replies"))
            let page = try await admin.get(SiteURL.deskThread(answered).path).text
            #expect(page.contains("The program runs one on Tuesdays.") && !page.contains("Mine meets on Thursdays."))
            #expect(!page.contains("post--accepted"))
        }
    }
}

@Suite struct DeskResanitizeTests {
    @Test(arguments: TestEngines.all)
    func resanitizeRendersEveryStoredPostAgainFromItsSource(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await AppClient.registered(portal)
            let thread = try await DeskSteps.ask(app, title: "Swollen feet", body: "My feet **swell** by evening.")
            var (doctor, _) = try await portal.signedIn(.medicalProfessional)
            let reply = try await DeskSteps.reply(&doctor, thread: thread, body: "Put them up when you can.")
            // HTML stored under an older, looser policy.
            try await portal.database.transaction { db in
                try await db.raw(
                    "UPDATE desk_threads SET body_html = '<p onclick=\"x()\">old</p><script>steal()</script>' WHERE id = \(bind: thread)"
                ).run()
                try await db.raw("UPDATE desk_replies SET body_html = '<iframe src=\"//evil\"></iframe>' WHERE id = \(bind: reply)").run()
            }
            let report = try await DeskResanitizer(database: portal.database).run()
            #expect(report.examined == 2 && report.changed == 2)
            let page = try await doctor.get(SiteURL.deskThread(thread).path)
            #expect(page.text.contains("<strong>swell</strong>") && page.text.contains("Put them up when you can."))
            #expect(!page.text.contains("steal()") && !page.text.contains("iframe") && !page.text.contains("onclick"))
            #expect(try await DeskResanitizer(database: portal.database).run().changed == 0, "a second run finds nothing to change")
            #expect(try await portal.auditEntries(action: .contentResanitized).count == 2)
        }
    }
}

@Suite struct DeskListPagingTests {
    /// Pages are chosen from the matching threads in order and then read whole: page after page gives
    /// every match once, in the list's order, with and without a search.
    @Test(arguments: TestEngines.all)
    func pagesFollowOneAnotherInOrderWithoutGapsOrRepeats(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await AppClient.registered(portal, pseudonym: "Heron")
            var asked: [Int64] = []
            for number in 1...7 {
                let body = number % 2 == 0 ? "Is breastfeeding safe on methadone?" : "Is it safe to keep taking methadone while pregnant?"
                asked.append(try await DeskSteps.ask(app, title: "Question number \(number)", body: body))
                portal.clock.advance(by: 60)
            }
            let repository = DeskRepository(engine: engine)
            func walk(_ query: DeskListQuery) async throws -> [Int64] {
                var seen: [Int64] = []
                var query = query
                for number in 1...4 {
                    query.page = PageRequest(number: number, size: 3)
                    let page = try await portal.database.read { db in try await repository.list(query, on: db) }
                    #expect(page.items.count == min(3, max(0, page.totalCount - (number - 1) * 3)))
                    seen += page.items.map(\.id)
                }
                return seen
            }
            var oldestFirst = DeskListQuery()
            oldestFirst.filter = .all
            oldestFirst.sort = .oldestWaiting
            #expect(try await walk(oldestFirst) == asked)
            var newestFirst = oldestFirst
            newestFirst.sort = .newest
            #expect(try await walk(newestFirst) == asked.reversed())
            var search = newestFirst
            search.search = "breastfeeding"
            #expect(try await walk(search) == [asked[5], asked[3], asked[1]])
        }
    }
}
