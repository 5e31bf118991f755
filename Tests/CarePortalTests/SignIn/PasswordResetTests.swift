import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct PasswordResetTests {
    /// The token in the newest reset email to `recipient`.
    static func resetToken(_ portal: TestPortal, to recipient: String) async throws -> String {
        let mail = try #require(try await portal.outboxMessages().last { $0.recipient == recipient && $0.subject.contains("Reset your") })
        let line = try #require(mail.bodyText.split(separator: "\n").first { $0.contains("/sign-in/reset-password?token=") })
        return String(try #require(line.split(separator: "=").last))
    }

    @Test(arguments: TestEngines.all)
    func aForgottenPasswordIsResetByEmailAndEveryOtherSessionEnds(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let account = try await portal.createStaff(.physician, username: "dr.rivera", email: "Rivera@Clinic.example")
            var elsewhere = Visitor(portal: portal)
            try await elsewhere.signIn(username: "dr.rivera", password: "correct horse battery staple")

            var visitor = Visitor(portal: portal)
            let signIn = try await visitor.get("/sign-in")
            #expect(signIn.text.contains(#"href="/sign-in/forgotten-password""#))
            try await visitor.get("/sign-in/forgotten-password")
            let sent = try await visitor.post("/sign-in/forgotten-password", form: [("email", "rivera@clinic.example")])
            #expect(sent.status == .ok)
            #expect(sent.text.contains("Check your email"))

            let token = try await Self.resetToken(portal, to: "Rivera@Clinic.example")
            #expect(token.count == 43)
            let stored = try await portal.database.read { db in
                try await db.select().column("token_hash").from("password_resets").all().map { try $0.decode(column: "token_hash", as: String.self) }
            }
            #expect(stored == [SecretToken.hash(token)], "only the token's hash is stored")

            let form = try await visitor.get("/sign-in/reset-password?token=\(token)")
            #expect(form.text.contains("dr.rivera"))
            let weak = try await visitor.post(
                "/sign-in/reset-password",
                form: [
                    ("token", token), ("new_password", "short"), ("new_password_confirmation", "short")
                ]
            )
            #expect(weak.status == .unprocessableContent)
            #expect(weak.text.contains(##"href="#new_password""##))
            let done = try await visitor.post(
                "/sign-in/reset-password",
                form: [
                    ("token", token), ("new_password", "quiet river stones at dawn"), ("new_password_confirmation", "quiet river stones at dawn")
                ]
            )
            #expect(done.location == "/sign-in")
            #expect(try await visitor.get("/sign-in").text.contains("Sign in with your new password"))

            // The other browser is signed out; the old password no longer works, the new one does.
            #expect(try await elsewhere.get("/account/password").location?.hasPrefix("/sign-in") == true)
            var again = Visitor(portal: portal)
            try await again.get("/sign-in")
            let old = try await again.post("/sign-in", form: [("username", "dr.rivera"), ("password", "correct horse battery staple")])
            #expect(old.status == .unprocessableContent)
            try await again.signIn(username: "dr.rivera", password: "quiet river stones at dawn")

            // Single use.
            let reused = try await visitor.get("/sign-in/reset-password?token=\(token)")
            #expect(reused.status == .notFound)
            let audit = try await portal.auditEntries(action: .passwordReset)
            #expect(audit.map(\.actorAccountID) == [account.id])
            #expect(try await portal.auditEntries(action: .passwordResetRequested).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func theAnswerIsTheSameWhetherOrNotTheAddressHasAnAccount(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.administrator, username: "chief", email: "chief@example.org")
            var visitor = Visitor(portal: portal)
            try await visitor.get("/sign-in/forgotten-password")
            let known = try await visitor.post("/sign-in/forgotten-password", form: [("email", "chief@example.org")])
            let unknown = try await visitor.post("/sign-in/forgotten-password", form: [("email", "nobody@example.org")])
            #expect(known.status == unknown.status)
            func body(_ text: String, _ email: String) -> String {
                let main = text.components(separatedBy: "<main").last ?? text
                return main.components(separatedBy: "</main>").first!.replacingOccurrences(of: email, with: "EMAIL")
            }
            #expect(body(known.text, "chief@example.org") == body(unknown.text, "nobody@example.org"))
            #expect(try await portal.outboxMessages().filter { $0.subject.contains("Reset your") }.map(\.recipient) == ["chief@example.org"])
            let invalid = try await visitor.post("/sign-in/forgotten-password", form: [("email", "not an address")])
            #expect(invalid.status == .unprocessableContent)
            #expect(invalid.text.contains(##"href="#email""##))
        }
    }

    @Test(arguments: TestEngines.all)
    func requestsForOneAccountAreThrottled(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.administrator, username: "chief", email: "chief@example.org")
            var visitor = Visitor(portal: portal)
            try await visitor.get("/sign-in/forgotten-password")
            for _ in 1...5 {
                let response = try await visitor.post("/sign-in/forgotten-password", form: [("email", "chief@example.org")])
                #expect(response.status == .ok)
            }
            let sent = try await portal.outboxMessages().filter { $0.subject.contains("Reset your") }
            #expect(sent.count == PasswordReset.perAccountLimit)
            portal.clock.advance(by: SignInThrottle.pause + 1)
            let later = try await visitor.post("/sign-in/forgotten-password", form: [("email", "chief@example.org")])
            #expect(later.status == .ok)
            #expect(try await portal.outboxMessages().filter { $0.subject.contains("Reset your") }.count == PasswordReset.perAccountLimit + 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func aLinkExpiresAfterAnHour(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.medicalProfessional, username: "nurse.kay", email: "kay@example.org")
            var visitor = Visitor(portal: portal)
            try await visitor.get("/sign-in/forgotten-password")
            try await visitor.post("/sign-in/forgotten-password", form: [("email", "kay@example.org")])
            let token = try await Self.resetToken(portal, to: "kay@example.org")
            portal.clock.advance(by: PasswordReset.lifetime - 1)
            #expect(try await visitor.get("/sign-in/reset-password?token=\(token)").status == .ok)
            portal.clock.advance(by: 2)
            #expect(try await visitor.get("/sign-in/reset-password?token=\(token)").status == .notFound)
            let late = try await visitor.post(
                "/sign-in/reset-password",
                form: [
                    ("token", token), ("new_password", "quiet river stones at dawn"), ("new_password_confirmation", "quiet river stones at dawn")
                ]
            )
            #expect(late.status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func anAdministratorSendsAResetLinkFromTheAccountPage(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let physician = try await portal.createStaff(.physician, username: "dr.ames", email: "ames@example.org")
            let page = try await admin.get("/staff/\(physician.id)")
            #expect(page.text.contains("/staff/\(physician.id)/password-reset"))
            let sent = try await admin.post("/staff/\(physician.id)/password-reset")
            #expect(sent.location == "/staff/\(physician.id)")
            #expect(try await admin.get("/staff/\(physician.id)").text.contains("A link to choose a new password has been sent to ames@example.org"))
            let token = try await Self.resetToken(portal, to: "ames@example.org")
            let mail = try #require(try await portal.outboxMessages().last)
            #expect(mail.bodyText.contains("An administrator"))
            var visitor = Visitor(portal: portal)
            #expect(try await visitor.get("/sign-in/reset-password?token=\(token)").status == .ok)
            #expect(try await portal.auditEntries(action: .passwordResetSent).map(\.recordID) == ["\(physician.id)"])
        }
    }

    @Test(arguments: TestEngines.all)
    func oneNetworkAddressIsPausedAfterTenRequests(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.trustForwardedFor = true }) { portal in
            var visitor = Visitor(portal: portal)
            try await visitor.get("/sign-in/forgotten-password")
            let from: HTTPFields = [.xForwardedFor: "203.0.113.9"]
            for index in 1...PasswordReset.perAddressLimit {
                let response = try await visitor.post("/sign-in/forgotten-password", form: [("email", "someone\(index)@example.org")], headers: from)
                #expect(response.status == .ok)
            }
            let paused = try await visitor.post("/sign-in/forgotten-password", form: [("email", "other@example.org")], headers: from)
            #expect(paused.status == .tooManyRequests)
            #expect(paused.text.contains("Too many requests from this network"))
            let elsewhere = try await visitor.post(
                "/sign-in/forgotten-password",
                form: [("email", "other@example.org")],
                headers: [.xForwardedFor: "198.51.100.4"]
            )
            #expect(elsewhere.status == .ok)
        }
    }

    @Test(arguments: TestEngines.all)
    func theResetTokenNeverReachesTheLogsOrTheAuditLog(engine: Database.Engine) async throws {
        let logs = CapturedLogs()
        try await TestPortal.run(engine, logHandler: logs.handler) { portal in
            try await portal.createStaff(.physician, username: "dr.log", email: "log@example.org")
            var visitor = Visitor(portal: portal)
            try await visitor.get("/sign-in/forgotten-password")
            try await visitor.post("/sign-in/forgotten-password", form: [("email", "log@example.org")])
            let token = try await Self.resetToken(portal, to: "log@example.org")
            try await visitor.get("/sign-in/reset-password?token=\(token)")
            try await visitor.post(
                "/sign-in/reset-password",
                form: [
                    ("token", token), ("new_password", "quiet river stones at dawn"), ("new_password_confirmation", "quiet river stones at dawn")
                ]
            )
            let rows = try await portal.database.read { db in try await db.raw("SELECT * FROM audit_log").all() }
            #expect(rows.count >= 2)
            for row in rows {
                for column in row.allColumns {
                    guard let value = try? row.decode(column: column, as: String?.self) else { continue }
                    #expect(!value.contains(token), "audit column \(column) holds the token")
                }
            }
            #expect(logs.all.contains { $0.contains("/sign-in/reset-password") }, "the request log was captured")
            #expect(!logs.all.contains { $0.contains(token) }, "a log line holds the token")
        }
    }
}
