import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The feedback inbox is read a page at a time, newest first: every page, whichever way it is reached,
/// must be the messages a sort of all of them gives.
@Suite struct FeedbackInboxTests {
    @Test(arguments: TestEngines.all)
    func everyPageOfTheInboxFollowsTheNewestFirstOrderWithAndWithoutHandledMessages(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let repository = FeedbackRepository(program: .researchStudy)
            let (_, first) = try await StudyFixtures.participant(portal, code: "NU-700")
            let (_, second) = try await StudyFixtures.participant(portal, code: "NU-701")
            let staff = try await portal.createStaff(.researcher, username: "inbox.reader")
            let start = portal.clock.now
            var messages: [(id: Int64, at: Date, handled: Bool)] = []
            try await portal.database.transaction { db in
                for n in 0..<23 {
                    // Some messages share a moment: the id orders those.
                    let at = start.addingTimeInterval(Double(n / 3) * 60)
                    let id = try await repository.add(
                        .feedback,
                        body: "Message \(n)",
                        from: .participant(n % 2 == 0 ? first : second),
                        now: at,
                        on: db
                    )
                    let handled = n % 4 == 1
                    if handled { _ = try await repository.markHandled(id: id, by: staff.id, now: at, on: db) }
                    messages.append((id, at, handled))
                }
            }
            let newestFirst = messages.sorted { ($0.at, $0.id) > ($1.at, $1.id) }
            for unhandledOnly in [false, true] {
                let expected = newestFirst.filter { !unhandledOnly || !$0.handled }.map(\.id)
                try await portal.database.read { db in
                    let (seen, backwards) = try await PageWalk.bothWays(size: 4, limit: expected.count) { request in
                        let page = try await repository.page(request, unhandledOnly: unhandledOnly, on: db)
                        return page.replacingItems(page.items.map(\.id))
                    }
                    #expect(seen == expected, "through Next, unhandled only: \(unhandledOnly)")
                    #expect(backwards == expected, "through Previous, unhandled only: \(unhandledOnly)")
                    for number in [2, 4] {
                        let page = try await repository.page(PageRequest(number: number, size: 4), unhandledOnly: unhandledOnly, on: db)
                        #expect(page.items.map(\.id) == Array(expected[(number - 1) * 4..<min(number * 4, expected.count)]), "page \(number)")
                    }
                }
            }

            // The page itself: 25 to a page, a link on to the rest that keeps "every message" chosen.
            try await portal.database.transaction { db in
                for n in 0..<10 {
                    _ = try await repository.add(
                        .feedback,
                        body: "Later \(n)",
                        from: .participant(first),
                        now: start.addingTimeInterval(3_600 + Double(n)),
                        on: db
                    )
                }
            }
            var researcher = Visitor(portal: portal)
            try await researcher.signIn(username: "inbox.reader", password: "correct horse battery staple")
            let all = try await researcher.get(SiteURL.studyFeedback.path + "?show=all").text
            #expect(all.components(separatedBy: "study-feedback__item").count - 1 == 25)
            #expect(all.contains("Later 9") && !all.contains(">Message 0<"), "newest first")
            let nextLink = try #require(all.firstMatch(of: #/class="pagination__next" href="([^"]+)" rel="next"/#)?.output.1)
            let next = String(nextLink).replacingOccurrences(of: "&amp;", with: "&")
            #expect(next.contains("show=all"), "the next page keeps every message chosen: \(next)")
            let rest = try await researcher.get(next).text
            #expect(rest.components(separatedBy: "study-feedback__item").count - 1 == 8)
            #expect(rest.contains("Message 0"))
        }
    }

    /// Each message says "Handled" only when it was: a message not yet handled, shown under a handled one, has its
    /// button and no "Handled" of its neighbour's.
    @Test(arguments: TestEngines.all)
    func onlyAHandledMessageSaysItWasHandled(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let repository = FeedbackRepository(program: .researchStudy)
            let (_, participant) = try await StudyFixtures.participant(portal, code: "NU-710")
            let staff = try await portal.createStaff(.researcher, username: "inbox.handler")
            let start = portal.clock.now
            try await portal.database.transaction { db in
                _ = try await repository.add(.feedback, body: "Older, waiting", from: .participant(participant), now: start, on: db)
                let newest = try await repository.add(
                    .feedback,
                    body: "Newest, handled",
                    from: .participant(participant),
                    now: start.addingTimeInterval(60),
                    on: db
                )
                _ = try await repository.markHandled(id: newest, by: staff.id, now: start.addingTimeInterval(120), on: db)
            }
            var researcher = Visitor(portal: portal)
            try await researcher.signIn(username: "inbox.handler", password: "correct horse battery staple")
            let page = try await researcher.get(SiteURL.studyFeedback.path + "?show=all").text
            let items = page.components(separatedBy: "study-feedback__item\"").dropFirst()
            #expect(items.count == 2)
            let handled = try #require(items.first { $0.contains("Newest, handled") })
            let waiting = try #require(items.first { $0.contains("Older, waiting") })
            #expect(handled.contains("Handled ") && !handled.contains("Mark handled"))
            #expect(!waiting.contains(" · Handled ") && waiting.contains("Mark handled"), "the older message is not yet handled")
        }
    }

    /// Memory care's people send feedback or a bug report from either app; administrators read them in the
    /// program's own inbox under each sender's name, mark them handled (audited), and nothing of one program's
    /// inbox shows in another's. A deleted account's messages go with it.
    @Test(arguments: TestEngines.all)
    func careReceiversAndCaregiversReachTheirProgramsInboxAndOnlyIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, eleanorID) = try await CareFixtures.receiver(portal)
            let (ruth, _) = try await CareFixtures.caregiver(portal)
            let sent = try await eleanor.send(.post, SiteURL.care(.apiFeedback(.careReceiver)).path, json: ["message": "The <b>big</b> buttons help"])
            #expect(sent.status == .created && sent.object["id"] is Int, "\(sent.text)")
            let bug = try await ruth.send(
                .post,
                SiteURL.care(.apiFeedback(.caregiver)).path,
                json: ["message": "Her reminders came twice", "kind": "bug_report"]
            )
            #expect(bug.status == .created, "\(bug.text)")
            let refused = try await ruth.send(.post, SiteURL.care(.apiFeedback(.caregiver)).path, json: ["message": "  ", "kind": "complaint"])
            #expect(
                refused.status == .unprocessableContent && refused.fieldErrors["message"] == "Write your feedback"
                    && refused.fieldErrors["kind"] != nil
            )
            #expect(
                try await eleanor.send(.post, SiteURL.care(.apiFeedback(.caregiver)).path, json: ["message": "x"]).status == .unauthorized,
                "one kind's token sends nothing through the other's route"
            )

            var (admin, _) = try await portal.signedIn(.administrator)
            let inbox = try await admin.get(CareURL.feedback.path)
            #expect(inbox.status == .ok, "\(inbox.text)")
            #expect(inbox.text.contains("Eleanor, care receiver") && inbox.text.contains("Ruth, caregiver"))
            #expect(inbox.text.contains("The &lt;b&gt;big&lt;/b&gt; buttons help") && inbox.text.contains("Something went wrong"))
            #expect(!(try await admin.get(SiteURL.studyFeedback.path).text.contains("Her reminders")), "the study's inbox is the study's")
            let study = try await portal.database.read { db in try await FeedbackRepository(program: .researchStudy).messages(on: db) }
            #expect(study.isEmpty)

            let id = Int64(try #require(sent.object["id"] as? Int))
            #expect(try await admin.post(SiteURL.studyFeedbackHandled(id).path).status == .notFound, "another program's inbox cannot handle it")
            #expect(try await admin.post(SiteURL.care(.feedbackHandled(id)).path).status == .seeOther)
            #expect(!(try await admin.get(CareURL.feedback.path).text.contains("buttons help")), "handled messages leave the inbox")
            #expect(try await portal.auditEntries(action: .careFeedbackHandled).count == 1)

            _ = try await admin.post(CareURL.accountDelete(.careReceiver, eleanorID).path)
            let left = try await portal.database.read { db in try await FeedbackInbox.memoryCare.repository.messages(on: db) }
            #expect(left.map(\.body) == ["Her reminders came twice"], "her messages went with her account")
        }
    }
}
