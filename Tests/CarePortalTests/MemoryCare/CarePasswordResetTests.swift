import Foundation
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// A care receiver or caregiver who forgets her password chooses a new one through a link emailed to her
/// address: once, within an hour, ending her sessions, her memories and PIN untouched.
@Suite struct CarePasswordResetTests {
    static func resetToken(_ portal: TestPortal, to email: String) async throws -> String {
        let mail = try #require(try await portal.outboxMessages().last { $0.recipient == email })
        let line = try #require(
            mail.bodyText.split(separator: "\n").first { $0.contains("\(CareURL.resetPassword.path)?token=") },
            "\(mail.bodyText)"
        )
        return String(line.split(separator: "=").last ?? "")
    }

    @Test(arguments: TestEngines.all)
    func aForgottenPasswordIsResetByASingleUseLinkAndHerSecuredMemoriesStay(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, eleanorID) = try await CareFixtures.receiver(portal)
            try await CareFixtures.unlock(eleanor)
            let secret = try CareFixtures.id(
                try await CareFixtures.memory(
                    eleanor,
                    [
                        "type": "simple_password", "title": "Pension login", "category": "money", "fields": ["password": "Marigold-77"]
                    ]
                )
            )
            let path = SiteURL.care(.apiPasswordResets(.careReceiver)).path
            let unknown = try await AppClient(portal: portal).send(.post, path, json: ["email": "nobody@example.org"])
            let asked = try await AppClient(portal: portal).send(.post, path, json: ["email": "Eleanor@example.org"])
            #expect(unknown.status == .accepted && asked.status == .accepted && unknown.text == asked.text, "the same answer either way")
            let caregiverKind = try await AppClient(portal: portal).send(
                .post,
                SiteURL.care(.apiPasswordResets(.caregiver)).path,
                json: ["email": "eleanor@example.org"]
            )
            #expect(caregiverKind.status == .accepted)
            let mails = try await portal.outboxMessages().filter { $0.recipient == "eleanor@example.org" && $0.subject == "Choose a new password" }
            #expect(mails.count == 1, "she has no caregiver account, so only her care-receiver account gets a link")
            #expect(!(mails.first?.bodyText.contains(CareFixtures.password) ?? true))
            let token = try await Self.resetToken(portal, to: "eleanor@example.org")
            let stored = try await portal.database.read { db in
                try await db.select().column("token_hash").from("care_password_resets").all().map {
                    try $0.decode(column: "token_hash", as: String.self)
                }
            }
            #expect(stored == [SecretToken.hash(token)], "only the link's hash is stored")

            // The page the link opens: a weak password is refused beside the field; a good one is saved.
            var browser = Visitor(portal: portal)
            let page = try await browser.get("\(CareURL.resetPassword.path)?token=\(token)")
            #expect(page.status == .ok && page.text.contains("New password") && page.text.contains("the memory-care app"))
            let weak = try await browser.post(CareURL.resetPassword.path, form: [("token", token), ("password", "short")])
            #expect(weak.status == .unprocessableContent && weak.text.contains("There is a problem"))
            let done = try await browser.post(CareURL.resetPassword.path, form: [("token", token), ("password", "Seaside cottage 1961")])
            #expect(done.status == .ok && done.text.contains("Your new password is saved"))

            // Once only; her sessions end; the new password works and her PIN still opens her secured memory.
            let reused = try await AppClient(portal: portal).send(
                .post,
                SiteURL.care(.apiPasswordResetCompletion(.careReceiver)).path,
                json: ["token": token, "password": "Another one 12345"]
            )
            #expect(reused.status == .unprocessableContent && reused.fieldErrors["token"] != nil)
            #expect(try await eleanor.get(SiteURL.care(.apiMemories).path).status == .unauthorized)
            let session = try await AppClient(portal: portal).send(
                .post,
                CareAccountKind.careReceiver.appAccount.sessionsPath,
                json: ["email": "eleanor@example.org", "password": "Seaside cottage 1961"]
            )
            #expect(session.status == .created, "\(session.text)")
            let again = AppClient(portal: portal, token: session.object["token"] as? String)
            #expect(try await again.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": CareFixtures.pin]).status == .ok)
            let opened = try await again.get(SiteURL.care(.apiMemory(secret)).path)
            #expect((opened.object["fields"] as? [String: String])?["password"] == "Marigold-77", "\(opened.text)")
            let audited = try await portal.database.read { db in
                try await db.select().column("detail").from("audit_log").where("action", .equal, "care_password_reset")
                    .where("record_id", .equal, "\(eleanorID)").all().map { try $0.decode(column: "detail", as: String?.self) }
            }
            #expect(Set(audited) == ["link emailed", "new password set"])

            // A link older than an hour no longer works, and the apps' call says so by the field.
            _ = try await AppClient(portal: portal).send(.post, path, json: ["email": "eleanor@example.org"])
            let late = try await Self.resetToken(portal, to: "eleanor@example.org")
            portal.clock.advance(by: 3_601)
            let expired = try await AppClient(portal: portal).send(
                .post,
                SiteURL.care(.apiPasswordResetCompletion(.careReceiver)).path,
                json: ["token": late, "password": "Another one 12345"]
            )
            #expect(expired.status == .unprocessableContent && expired.fieldErrors["token"] != nil)
        }
    }

    @Test(arguments: TestEngines.all)
    func aCaregiverResetsHisOwnPasswordAndAskingIsThrottled(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await CareFixtures.caregiver(portal)
            let path = SiteURL.care(.apiPasswordResets(.caregiver)).path
            #expect(try await AppClient(portal: portal).send(.post, path, json: ["email": "ruth@example.org"]).status == .accepted)
            let token = try await Self.resetToken(portal, to: "ruth@example.org")
            let done = try await AppClient(portal: portal).send(
                .post,
                SiteURL.care(.apiPasswordResetCompletion(.caregiver)).path,
                json: ["token": token, "password": "Harbour lights 2020"]
            )
            #expect(done.status == .noContent, "\(done.text)")
            #expect(
                try await AppClient(portal: portal).send(
                    .post,
                    CareAccountKind.caregiver.appAccount.sessionsPath,
                    json: ["email": "ruth@example.org", "password": "Harbour lights 2020"]
                ).status == .created
            )
            let bad = try await AppClient(portal: portal).send(.post, path, json: ["email": "not an address"])
            #expect(bad.status == .unprocessableContent && bad.fieldErrors["email"] != nil)
            var answers: [HTTPResponse.Status] = []
            for _ in 0..<(SignInThrottle.accountLimit + 1) {
                answers.append(try await AppClient(portal: portal).send(.post, path, json: ["email": "ruth@example.org"]).status)
            }
            #expect(answers.last == .tooManyRequests, "\(answers)")
        }
    }

    // MARK: A new password while signed in

    @Test(arguments: TestEngines.all)
    func eitherKindChangesItsPasswordWithTheCurrentOneAndItsOtherPhonesSignInAgain(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            for kind in [CareAccountKind.careReceiver, .caregiver] {
                let email = kind == .careReceiver ? "eleanor@example.org" : "ruth@example.org"
                let (phone, id) = try await CareFixtures.account(portal, kind, email: email, name: "Someone")
                let sessions = kind.appAccount.sessionsPath
                let tablet = AppClient(
                    portal: portal,
                    token: try await AppClient(portal: portal).send(.post, sessions, json: ["email": email, "password": CareFixtures.password])
                        .object["token"] as? String
                )
                let path = SiteURL.care(.apiPassword(kind)).path
                let empty = try await phone.send(.post, path, json: [:])
                #expect(empty.status == .unprocessableContent && empty.fieldErrors["current_password"] == "Enter your current password")
                #expect(empty.fieldErrors["new_password"] != nil, "both problems at once")
                let wrong = try await phone.send(.post, path, json: ["current_password": "Not my password 1", "new_password": "Seaside cottage 1961"])
                #expect(wrong.status == .unprocessableContent && wrong.fieldErrors["current_password"] == "Your current password is not right")
                let weak = try await phone.send(.post, path, json: ["current_password": CareFixtures.password, "new_password": "short"])
                #expect(
                    weak.status == .unprocessableContent && weak.fieldErrors["new_password"] != nil && weak.fieldErrors["current_password"] == nil
                )
                #expect(
                    try await AppClient(portal: portal).send(.post, path, json: ["current_password": CareFixtures.password]).status == .unauthorized
                )
                let changed = try await phone.send(
                    .post,
                    path,
                    json: ["current_password": CareFixtures.password, "new_password": "Seaside cottage 1961"]
                )
                #expect(changed.status == .noContent, "\(changed.text)")

                // This phone stays signed in, her other one signs in again, and only the new password works.
                #expect(try await phone.get(SiteURL.care(.apiMe(kind)).path).status == .ok)
                #expect(try await tablet.get(SiteURL.care(.apiMe(kind)).path).status == .unauthorized)
                let old = try await AppClient(portal: portal).send(.post, sessions, json: ["email": email, "password": CareFixtures.password])
                let new = try await AppClient(portal: portal).send(.post, sessions, json: ["email": email, "password": "Seaside cottage 1961"])
                #expect(old.status == .unauthorized && new.status == .created, "\(old.status) \(new.status)")
                let audited = try await portal.auditEntries(action: .passwordChanged).filter {
                    $0.recordID == "\(id)" && $0.recordType == kind.rawValue
                }
                #expect(audited.map(\.outcome).sorted() == ["failure", "success"], "the wrong try and the change: \(audited.map(\.outcome))")
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func wrongCurrentPasswordsArePausedLikeASignIn(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (eleanor, _) = try await CareFixtures.receiver(portal)
            let path = SiteURL.care(.apiPassword(.careReceiver)).path
            var answers: [HTTPResponse.Status] = []
            for attempt in 0..<SignInThrottle.accountLimit {
                answers.append(
                    try await eleanor.send(.post, path, json: ["current_password": "Wrong guess \(attempt)0", "new_password": "Seaside cottage 1961"])
                        .status
                )
            }
            let paused = try await eleanor.send(
                .post,
                path,
                json: ["current_password": CareFixtures.password, "new_password": "Seaside cottage 1961"]
            )
            #expect(answers.allSatisfy { $0 == .unprocessableContent } && paused.status == .tooManyRequests, "\(answers) \(paused.status)")
            // Paused, even the right one changed nothing.
            let session = try await AppClient(portal: portal).send(
                .post,
                CareAccountKind.careReceiver.appAccount.sessionsPath,
                json: ["email": "eleanor@example.org", "password": CareFixtures.password]
            )
            #expect(session.status == .created)
        }
    }

    @Test(arguments: TestEngines.all)
    func theWebAppsPasswordPageKeepsHerOnItWithEachProblemBesideItsField(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            for kind in [CareAccountKind.careReceiver, .caregiver] {
                let email = kind == .careReceiver ? "eleanor@example.org" : "ruth@example.org"
                var (browser, _, _) = try await CareAppPagesTests.signedIn(portal, kind, email: email, name: "Someone")
                let home = try await browser.get(kind.appAccount.pagesPath)
                #expect(home.text.contains(#"href="\#(CareURL.appPassword(kind).path)""#), "her home links to the page")
                let path = CareURL.appPassword(kind).path
                let page = try await browser.get(path)
                #expect(page.status == .ok && page.text.contains("Current password") && page.text.contains("Confirm new password"))
                let mismatch = try await browser.post(
                    path,
                    form: [("current_password", ""), ("new_password", "Seaside cottage 1961"), ("new_password_confirmation", "Seaside cottage 1962")]
                )
                #expect(mismatch.status == .unprocessableContent)
                #expect(mismatch.text.contains("Enter the same new password twice") && mismatch.text.contains("Enter your current password"))
                let wrong = try await browser.post(
                    path,
                    form: [
                        ("current_password", "Not my password 1"), ("new_password", "Seaside cottage 1961"),
                        ("new_password_confirmation", "Seaside cottage 1961")
                    ]
                )
                #expect(wrong.status == .unprocessableContent && wrong.text.contains("Your current password is not right"))
                #expect(wrong.text.contains(##"href="#current_password""##), "the error summary links to the field")
                let saved = try await browser.post(
                    path,
                    form: [
                        ("current_password", CareFixtures.password), ("new_password", "Seaside cottage 1961"),
                        ("new_password_confirmation", "Seaside cottage 1961")
                    ]
                )
                #expect(saved.status == .seeOther && saved.location == "\(path)?saved=1")
                let after = try await browser.get(saved.location ?? path)
                #expect(after.status == .ok && after.text.contains("Your new password is saved"), "still signed in here")
                let signIn = try await AppClient(portal: portal).send(
                    .post,
                    kind.appAccount.sessionsPath,
                    json: ["email": email, "password": "Seaside cottage 1961"]
                )
                #expect(signIn.status == .created)
            }
        }
    }
}
