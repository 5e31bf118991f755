import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The feedback inbox is read a page at a time, newest first: every page, whichever way it is reached,
/// must be the messages a sort of all of them gives.
@Suite struct StudyFeedbackInboxTests {
    @Test(arguments: TestEngines.all)
    func everyPageOfTheInboxFollowsTheNewestFirstOrderWithAndWithoutHandledMessages(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let repository = StudyRepository()
            let (_, first) = try await StudyFixtures.participant(portal, code: "NU-700")
            let (_, second) = try await StudyFixtures.participant(portal, code: "NU-701")
            let staff = try await portal.createStaff(.researcher, username: "inbox.reader")
            let start = portal.clock.now
            var messages: [(id: Int64, at: Date, handled: Bool)] = []
            try await portal.database.transaction { db in
                for n in 0..<23 {
                    // Some messages share a moment: the id orders those.
                    let at = start.addingTimeInterval(Double(n / 3) * 60)
                    let id = try await repository.addFeedback(participantID: n % 2 == 0 ? first : second, body: "Message \(n)", now: at, on: db)
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
                        let page = try await repository.feedback(page: request, unhandledOnly: unhandledOnly, on: db)
                        return page.replacingItems(page.items.map(\.id))
                    }
                    #expect(seen == expected, "through Next, unhandled only: \(unhandledOnly)")
                    #expect(backwards == expected, "through Previous, unhandled only: \(unhandledOnly)")
                    for number in [2, 4] {
                        let page = try await repository.feedback(page: PageRequest(number: number, size: 4), unhandledOnly: unhandledOnly, on: db)
                        #expect(page.items.map(\.id) == Array(expected[(number - 1) * 4 ..< min(number * 4, expected.count)]), "page \(number)")
                    }
                }
            }

            // The page itself: 25 to a page, a link on to the rest that keeps "every message" chosen.
            try await portal.database.transaction { db in
                for n in 0..<10 {
                    _ = try await repository.addFeedback(participantID: first, body: "Later \(n)", now: start.addingTimeInterval(3_600 + Double(n)), on: db)
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
            let repository = StudyRepository()
            let (_, participant) = try await StudyFixtures.participant(portal, code: "NU-710")
            let staff = try await portal.createStaff(.researcher, username: "inbox.handler")
            let start = portal.clock.now
            try await portal.database.transaction { db in
                _ = try await repository.addFeedback(participantID: participant, body: "Older, waiting", now: start, on: db)
                let newest = try await repository.addFeedback(participantID: participant, body: "Newest, handled", now: start.addingTimeInterval(60), on: db)
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
}
