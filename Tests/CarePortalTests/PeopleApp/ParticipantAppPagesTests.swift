import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The study participant's pages in the people's web app: the one-time password replaced first, today's
/// to-dos marked done (the study API sees the same), her progress, feedback and the contact page.
@Suite struct ParticipantAppPagesTests {
    /// Two to-dos every day from today, and a participant enrolled today who has not yet chosen her password.
    static func enrolled(_ portal: TestPortal, code: String = "NU-101") async throws -> (Int64, [Int64]) {
        let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
        let hash = try await portal.portal.passwords.hash(StudyFixtures.password)
        return try await portal.database.transaction { db in
            let repository = StudyRepository()
            let items = [
                try await repository.addItem(title: "Take a ten-minute walk", startsOn: today, endsOn: nil, now: portal.clock.now, on: db),
                try await repository.addItem(title: "Drink a glass of water", startsOn: today, endsOn: nil, now: portal.clock.now, on: db)
            ]
            let id = try await repository.enrol(
                studyCode: code,
                arm: "A",
                email: nil,
                enrolledOn: today,
                passwordHash: hash,
                now: portal.clock.now,
                on: db
            )
            return (id, items)
        }
    }

    static let ownPassword = "Morning walks by the river"

    @Test(arguments: TestEngines.all)
    func sheChoosesHerPasswordFirstThenMarksHerToDosTheAppSeesToo(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (id, items) = try await Self.enrolled(portal)
            var browser = Visitor(portal: portal)
            let signedIn = try await browser.signInToApp(.participant, identifier: "nu-101", password: StudyFixtures.password)
            #expect(signedIn.location == SiteURL.appStudyToday.path)
            // Until she replaces the one-time password, every page sends her to choose one.
            for page in [
                SiteURL.appStudyToday, .appStudyProgress, .appStudyFeedback, .appStudyContact, .appStudyLocations, .appStudyVideos,
                .appStudyRecordOpenings
            ] {
                #expect(try await browser.get(page.path).location == SiteURL.appStudyPassword.path, "\(page.path)")
            }
            let choose = try await browser.get(SiteURL.appStudyPassword.path)
            #expect(choose.text.contains("Choose your password") && choose.text.contains("The one-time password you were given"))
            let mismatch = try await browser.post(
                SiteURL.appStudyPassword.path,
                form: [
                    ("current_password", StudyFixtures.password), ("new_password", Self.ownPassword), ("new_password_confirmation", "something else")
                ]
            )
            #expect(mismatch.status == .unprocessableContent && mismatch.errorSummary == ["Enter the same new password twice"])
            let wrong = try await browser.post(
                SiteURL.appStudyPassword.path,
                form: [
                    ("current_password", "not it"), ("new_password", Self.ownPassword), ("new_password_confirmation", Self.ownPassword)
                ]
            )
            #expect(wrong.errorSummary == ["Your current password is not right"])
            let chosen = try await browser.post(
                SiteURL.appStudyPassword.path,
                form: [
                    ("current_password", StudyFixtures.password), ("new_password", Self.ownPassword), ("new_password_confirmation", Self.ownPassword)
                ]
            )
            #expect(chosen.location == "\(SiteURL.appStudyToday.path)?notice=password")
            #expect(try await portal.auditEntries(action: .passwordChanged).contains { $0.recordID == "\(id)" && $0.actorRole == "participant" })

            // Her day: two to-dos, marked one at a time; the study API sees the same marks.
            let today = try await browser.get(try #require(chosen.location))
            // The study's own to-dos (the migration's defaults) are on her list beside the two added here.
            let offered = try await portal.database.read { db in try await StudyRepository().schedule(on: db) }.items(
                on: portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            ).count
            #expect(offered >= 2)
            #expect(today.text.contains("Your new password is saved.") && today.text.contains("0 of \(offered) done"))
            #expect(today.text.contains("Take a ten-minute walk") && today.text.contains("closes at midnight"))
            let day = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let marked = try await browser.post(SiteURL.appStudyTodo(items[0]).path, form: [("day", day.iso)])
            #expect(marked.location == "\(SiteURL.appStudyToday.path)#item-\(items[0])")
            #expect(try await browser.get(SiteURL.appStudyToday.path).text.contains("1 of \(offered) done"))
            let api = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiStudySessions.path,
                json: ["username": "nu-101", "password": Self.ownPassword]
            )
            let app = AppClient(portal: portal, token: try #require(api.object["token"] as? String))
            let todos = try #require(try await app.get(SiteURL.apiStudyTodos.path).object["items"] as? [[String: Any]])
            #expect(todos.first { $0["id"] as? Int64 == items[0] || ($0["id"] as? Int).map(Int64.init) == items[0] }?["done"] as? Bool == true)
            // A list left open past midnight marks nothing, and says so.
            let yesterday = day.adding(days: -1)
            let closed = try await browser.post(SiteURL.appStudyTodo(items[1]).path, form: [("day", yesterday.iso)])
            #expect(closed.location == "\(SiteURL.appStudyToday.path)?notice=closed")
            #expect(try await browser.get(try #require(closed.location)).text.contains("That list closed at midnight"))
            #expect(try await browser.post(SiteURL.appStudyTodo(999_999).path, form: [("day", day.iso)]).status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func feedbackProgressContactAndWithdrawalEndingHerSignIn(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (id, _) = try await Self.enrolled(portal)
            try await portal.database.write { db in
                try await StudyRepository().setPassword(
                    id: id,
                    hash: try await portal.portal.passwords.hash(Self.ownPassword),
                    now: portal.clock.now,
                    on: db
                )
            }
            var browser = Visitor(portal: portal)
            #expect(try await browser.signInToApp(.participant, identifier: "NU-101", password: Self.ownPassword).status == .seeOther)
            try await browser.get(SiteURL.appStudyFeedback.path)
            let empty = try await browser.post(SiteURL.appStudyFeedback.path, form: [("message", "   ")])
            #expect(empty.status == .unprocessableContent && empty.errorSummary == ["Write your feedback"])
            let tooLong = String(repeating: "a", count: FeedbackRules.maximumLength + 1)
            let long = try await browser.post(SiteURL.appStudyFeedback.path, form: [("message", tooLong)])
            #expect(long.text.contains(tooLong), "what she wrote is kept")
            let sent = try await browser.post(SiteURL.appStudyFeedback.path, form: [("message", "The <b>reminder</b> came twice")])
            #expect(sent.location == "\(SiteURL.appStudyFeedback.path)?sent=1")
            let stored = try await portal.database.read { db in
                try await FeedbackRepository(program: .researchStudy).messages(from: .participant(id), on: db)
            }
            #expect(stored.map(\.body) == ["The <b>reminder</b> came twice"])

            let progress = try await browser.get(SiteURL.appStudyProgress.path)
            #expect(progress.text.contains("NU-101") && progress.text.contains("Days with everything done"))
            let contact = try await browser.get(SiteURL.appStudyContact.path)
            #expect(contact.text.contains("The study team has not written this page yet."))
            try await portal.database.write { db in
                try await StudyRepository().saveContact(
                    markdown: "Call **0800 000 000**",
                    html: "<p>Call <strong>0800 000 000</strong></p>",
                    by: nil,
                    now: portal.clock.now,
                    on: db
                )
            }
            #expect(try await browser.get(SiteURL.appStudyContact.path).text.contains("<p>Call <strong>0800 000 000</strong></p>"))

            // Withdrawn, her web sign-in ends at once, as her app's does.
            try await portal.database.write { db in
                _ = try await StudyRepository().withdraw(
                    id: id,
                    on: portal.portal.programSettings.current.clock.date(of: portal.clock.now),
                    now: portal.clock.now,
                    on: db
                )
            }
            #expect(try await browser.get(SiteURL.appStudyToday.path).location == AppAccountKind.participant.signInPagePath)
            let again = try await browser.signInToApp(.participant, identifier: "nu-101", password: Self.ownPassword)
            #expect(again.errorSummary == [StudyAPIController.withdrawn.message])
        }
    }

    @Test(arguments: TestEngines.all)
    func sheClaimsHerAccountInTheBrowserWithTheEmailedToken(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            var (researcher, _) = try await portal.signedIn(.researcher)
            try await researcher.get(SiteURL.newStudyParticipant.path)
            #expect(try await StudyClaimTests.enrol(&researcher, portal, code: "NU-131", email: "nu131@example.org").status == .ok)
            let token = try await StudyClaimTests.token(to: "nu131@example.org", in: portal)
            let mail = try #require(try await portal.outboxMessages().last { $0.recipient == "nu131@example.org" })
            #expect(mail.bodyText.contains("\(TestPortal.baseURL)/app/study/claim"), "the email gives the web address")

            var browser = Visitor(portal: portal)
            let signIn = try await browser.get(AppAccountKind.participant.signInPagePath)
            #expect(signIn.text.contains(#"href="/app/study/claim">Claim your account</a>"#))
            try await browser.get(SiteURL.appStudyClaim.path)
            let mismatch = try await browser.post(
                SiteURL.appStudyClaim.path,
                form: [
                    ("claim_token", token), ("password", Self.ownPassword), ("password_confirmation", "not the same")
                ]
            )
            #expect(mismatch.status == .unprocessableContent && mismatch.errorSummary == ["Enter the same password twice"])
            let wrong = try await browser.post(
                SiteURL.appStudyClaim.path,
                form: [
                    ("claim_token", "AAAA-BBBB-CCCC-DDDD-EEEE"), ("password", Self.ownPassword), ("password_confirmation", Self.ownPassword)
                ]
            )
            #expect(wrong.errorSummary == [ParticipantClaim.wrongToken])
            let claimed = try await browser.post(
                SiteURL.appStudyClaim.path,
                form: [
                    ("claim_token", token.lowercased()), ("password", Self.ownPassword), ("password_confirmation", Self.ownPassword)
                ]
            )
            // Signed in at once, with her own password: no one-time password to replace.
            #expect(claimed.location == SiteURL.appStudyToday.path)
            #expect(try await browser.get(SiteURL.appStudyToday.path).status == .ok)
            #expect(try await portal.auditEntries(action: .studyAccountClaimed).contains { $0.outcome == "success" })
            // The token worked once, for the app too.
            #expect(try await StudyClaimTests.claim(token, in: portal).status == .unprocessableContent)
            var later = Visitor(portal: portal)
            #expect(
                try await later.signInToApp(.participant, identifier: "nu-131", password: Self.ownPassword).location == SiteURL.appStudyToday.path
            )
        }
    }
}
