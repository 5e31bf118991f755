import Foundation
import HTTPTypes
import HummingbirdTesting
import Synchronization
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Every message the outbox hands it, kept for the test to read.
final class RecordingMailTransport: MailTransport {
    let sent = Mutex<[OutboxMessage]>([])

    func deliver(_ message: OutboxMessage, from sender: String) async throws {
        sent.withLock { $0.append(message) }
    }

    var messages: [OutboxMessage] { sent.withLock { $0 } }

    /// The messages once at least one has arrived: `portal`'s running sender may have claimed the
    /// message first and still be delivering it, so `deliverDue` here can return before it lands.
    /// Waits up to 30 s, as the whole suite runs in parallel on a busy machine.
    func delivered(in portal: TestPortal) async throws -> [OutboxMessage] {
        _ = try await OutboxTests.sender(self, in: portal).deliverDue()
        for _ in 0..<600 where messages.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        return messages
    }
}

@Suite struct StudyClaimTests {
    static let ownPassword = "maple syrup on tuesdays"

    /// Enrols `code` through the form with her claim token emailed to `email`.
    static func enrol(_ staff: inout Visitor, _ portal: TestPortal, code: String, email: String, arm: String = "Arm A") async throws -> TestResponse {
        let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
        return try await staff.post(
            SiteURL.newStudyParticipant.path,
            form: [
                ("study_code", code), ("arm", arm), ("login", "email"), ("email", email),
                ("enrolled_on_day", "\(today.day)"), ("enrolled_on_month", "\(today.month)"), ("enrolled_on_year", "\(today.year)")
            ]
        )
    }

    /// The claim token in the newest email to `email`, as the email groups it.
    static func token(to email: String, in portal: TestPortal) async throws -> String {
        let mail = try #require(try await portal.outboxMessages().last { $0.recipient == email })
        return try #require(Self.token(in: mail.bodyText))
    }

    static func token(in body: String) -> String? {
        body.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.count == 24 && $0.filter { $0 == "-" }.count == 4 }
    }

    static func claim(_ token: String, password: String = ownPassword, in portal: TestPortal) async throws -> AppResponse {
        try await AppClient(portal: portal).send(.post, SiteURL.apiStudyClaim.path, json: ["claim_token": token, "password": password])
    }

    static func participantID(_ code: String, in portal: TestPortal) async throws -> Int64 {
        try #require(try await portal.database.read { db in try await StudyRepository().participants(on: db) }.first { $0.studyCode == code }?.id)
    }

    @Test(arguments: TestEngines.all)
    func aClaimTokenIsEmailedAtEnrolmentAndSetsHerPasswordOnce(engine: Database.Engine) async throws {
        let transport = RecordingMailTransport()
        try await TestPortal.run(engine, mailTransport: transport) { portal in
            var (researcher, _) = try await portal.signedIn(.researcher)
            let enrolled = try await Self.enrol(&researcher, portal, code: "NU-031", email: "nu031@example.org", arm: "Folate arm B")
            #expect(enrolled.status == .ok)
            #expect(enrolled.text.contains(#"id="study-username">nu-031<"#))
            #expect(enrolled.text.contains("Emailed to nu031@example.org"))
            #expect(!enrolled.text.contains(#"id="study-password""#), "no one-time password is shown")

            // The email leaves through the mail transport: her username and token, nothing of her health or her arm.
            let mail = try #require(try await transport.delivered(in: portal).first)
            #expect(mail.recipient == "nu031@example.org")
            #expect(mail.bodyText.contains("Your username is: nu-031"))
            for private_ in ["Folate", "folate", "arm B", "pregnan", "exercise"] { #expect(!mail.bodyText.contains(private_), "\(private_)") }
            let token = try #require(Self.token(in: mail.bodyText))

            // Before she claims it nobody can sign in to her account.
            let app = AppClient(portal: portal)
            #expect(try await app.send(.post, SiteURL.apiStudySessions.path, json: ["username": "nu-031", "password": ""]).status != .created)

            let weak = try await Self.claim(token, password: "nu-031", in: portal)
            #expect(weak.status == .unprocessableContent && weak.fieldErrors["password"] != nil && weak.fieldErrors["claim_token"] == nil)
            let claimed = try await Self.claim(token.lowercased().replacingOccurrences(of: "-", with: " "), in: portal)
            #expect(claimed.status == .created)
            #expect(claimed.object["study_id"] as? String == "NU-031")
            #expect(claimed.object["must_change_password"] as? Bool == false)
            let she = AppClient(portal: portal, token: try #require(claimed.object["token"] as? String))
            #expect(try await she.get(SiteURL.apiStudyTodos.path).status == .ok)

            // Once: the same token again is refused.
            let again = try await Self.claim(token, password: "another good passphrase", in: portal)
            #expect(again.status == .unprocessableContent && again.fieldErrors["claim_token"] == ParticipantClaim.wrongToken)
            let signIn = try await app.send(.post, SiteURL.apiStudySessions.path, json: ["username": "nu-031", "password": Self.ownPassword])
            #expect(signIn.status == .created && signIn.object["must_change_password"] as? Bool == false)

            let id = try await Self.participantID("NU-031", in: portal)
            let page = try await researcher.get(SiteURL.studyParticipant(id).path)
            #expect(page.text.contains("Her own, chosen with the claim token emailed to her"))
            #expect(!page.text.contains(SiteURL.studyParticipantClaimResend(id).path), "nothing to send once claimed")
            #expect(try await portal.auditEntries(action: .studyClaimTokenSent).count == 1)
            #expect(
                try await portal.auditEntries(action: .studyAccountClaimed).filter { $0.outcome == "success" && $0.recordID == "\(id)" }.count == 1
            )
            #expect(try await portal.auditEntries(action: .studyAccountClaimed).filter { $0.outcome == "failure" }.count == 1)
            // The token itself is never in the audit log.
            let raw = token.replacingOccurrences(of: "-", with: "")
            #expect(try await portal.auditEntries().allSatisfy { !($0.detail ?? "").contains(raw) && !($0.detail ?? "").contains(token) })
        }
    }

    @Test(arguments: TestEngines.all)
    func anEmailIsNeededWhenTheClaimTokenIsChosen(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (researcher, _) = try await portal.signedIn(.researcher)
            let form = try await researcher.get(SiteURL.newStudyParticipant.path)
            #expect(form.text.contains(#"id="login-password" name="login" type="radio" value="password" checked"#))
            #expect(form.text.contains(#"id="login-email" name="login" type="radio" value="email">"#))
            let refused = try await Self.enrol(&researcher, portal, code: "NU-040", email: "")
            #expect(refused.status == .unprocessableContent)
            let message = "Enter her email address to send her a claim token, or choose a one-time password"
            #expect(refused.text.contains(##"<a href="#email">\##(message)</a>"##) || refused.text.contains(##"href="#email""##))
            #expect(refused.text.contains(#"id="email-error"><span class="visually-hidden">Error:</span> \#(message)"#))
            #expect(refused.text.contains(#"value="NU-040""#), "what she typed is kept")
            #expect(refused.text.contains(#"value="email" checked"#), "and the choice")
            let unknown = try await researcher.post(
                SiteURL.newStudyParticipant.path,
                form: [
                    ("study_code", "NU-041"), ("login", "carrier-pigeon"), ("enrolled_on_day", "1"), ("enrolled_on_month", "2"),
                    ("enrolled_on_year", "2026")
                ]
            )
            #expect(unknown.status == .unprocessableContent && unknown.text.contains(##"href="#login-password""##))
            #expect(try await portal.database.read { db in try await StudyRepository().participants(on: db) }.isEmpty)
            #expect(try await portal.outboxMessages().isEmpty)
        }
    }

    @Test(arguments: TestEngines.all)
    func expiredReplacedRevokedAndWithdrawnClaimTokensAreRefused(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            for code in ["NU-051", "NU-052", "NU-053", "NU-054"] {
                let enrolled = try await Self.enrol(&admin, portal, code: code, email: "\(code.lowercased())@example.org")
                #expect(enrolled.status == .ok)
            }
            func usable(_ token: String) async throws -> Bool {
                // A password too short is refused after the token is checked: the answer says which was wrong, and nothing is claimed.
                let answer = try await Self.claim(token, password: "short", in: portal)
                return answer.fieldErrors["password"] != nil && answer.fieldErrors["claim_token"] == nil
            }
            let expiring = try await Self.token(to: "nu-051@example.org", in: portal)

            // Sent again: the first token stops, the new one works.
            let replaced = try await Self.token(to: "nu-052@example.org", in: portal)
            let second = try await Self.participantID("NU-052", in: portal)
            #expect(try await admin.get(SiteURL.studyParticipant(second).path).text.contains(SiteURL.studyParticipantClaimResend(second).path))
            #expect(try await admin.post(SiteURL.studyParticipantClaimResend(second).path).location == SiteURL.studyParticipant(second).path)
            #expect(
                try await admin.get(SiteURL.studyParticipant(second).path).text.contains("A new claim token has been emailed to nu-052@example.org")
            )
            let renewed = try await Self.token(to: "nu-052@example.org", in: portal)
            #expect(renewed != replaced)
            #expect(try await !usable(replaced))
            #expect(try await usable(renewed))

            // Revoked from her record.
            let revokedToken = try await Self.token(to: "nu-053@example.org", in: portal)
            let third = try await Self.participantID("NU-053", in: portal)
            _ = try await admin.post(SiteURL.studyParticipantClaimRevoke(third).path)
            let page = try await admin.get(SiteURL.studyParticipant(third).path)
            #expect(page.text.contains("claim token no longer works") && page.text.contains("Claim token revoked"))
            #expect(!page.text.contains(SiteURL.studyParticipantClaimRevoke(third).path))
            #expect(try await !usable(revokedToken))

            // Withdrawn: her token stops with her login.
            let withdrawnToken = try await Self.token(to: "nu-054@example.org", in: portal)
            let fourth = try await Self.participantID("NU-054", in: portal)
            #expect(try await usable(withdrawnToken))
            _ = try await admin.post(SiteURL.studyParticipantWithdraw(fourth).path)
            #expect(try await !usable(withdrawnToken))
            let withdrawnPage = try await admin.get(SiteURL.studyParticipant(fourth).path)
            #expect(!withdrawnPage.text.contains(SiteURL.studyParticipantClaimResend(fourth).path))
            #expect(try await admin.post(SiteURL.studyParticipantClaimResend(fourth).path).status == .seeOther)
            #expect(
                try await portal.outboxMessages().filter { $0.recipient == "nu-054@example.org" }.count == 1,
                "nothing sent to a withdrawn participant"
            )

            // Fourteen days, to the second.
            portal.clock.advance(by: 14 * 86_400 - 1)
            #expect(try await usable(expiring))
            #expect(try await usable(renewed))
            portal.clock.advance(by: 1)
            #expect(try await !usable(expiring))
            #expect(try await Self.claim(expiring, in: portal).fieldErrors["claim_token"] == ParticipantClaim.wrongToken)
            #expect(try await portal.auditEntries(action: .studyClaimTokenRevoked).count == 1)
            #expect(try await portal.auditEntries(action: .studyClaimTokenSent).filter { $0.detail == "sent again" }.count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func onlyStudyStaffSendOrRevokeClaimTokensAndGuessesAreThrottled(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.trustForwardedFor = true }) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            _ = try await Self.enrol(&admin, portal, code: "NU-061", email: "nu-061@example.org")
            let id = try await Self.participantID("NU-061", in: portal)
            let token = try await Self.token(to: "nu-061@example.org", in: portal)
            for role in [StaffRole.physician, .pharmacist] {
                var (staff, _) = try await portal.signedIn(role, username: "claim.\(role.rawValue)")
                #expect(try await staff.post(SiteURL.studyParticipantClaimResend(id).path).status == .forbidden, "\(role)")
                #expect(try await staff.post(SiteURL.studyParticipantClaimRevoke(id).path).status == .forbidden, "\(role)")
            }
            #expect(try await portal.outboxMessages().count == 1)
            let headers: HTTPFields = [.xForwardedFor: "203.0.113.9"]
            let app = AppClient(portal: portal)
            for _ in 0..<SignInThrottle.registrationAddressLimit {
                let guess = ClaimToken(randomBytes: Dependencies.systemRandomBytes).value
                #expect(
                    try await app.send(
                        .post,
                        SiteURL.apiStudyClaim.path,
                        json: ["claim_token": guess, "password": Self.ownPassword],
                        headers: headers
                    )
                    .status == .unprocessableContent
                )
            }
            let paused = try await app.send(
                .post,
                SiteURL.apiStudyClaim.path,
                json: ["claim_token": token, "password": Self.ownPassword],
                headers: headers
            )
            #expect(paused.status == .tooManyRequests && paused.errorCode == "too_many_attempts")
            let elsewhere = try await app.send(
                .post,
                SiteURL.apiStudyClaim.path,
                json: ["claim_token": token, "password": Self.ownPassword],
                headers: [.xForwardedFor: "198.51.100.7"]
            )
            #expect(elsewhere.status == .created)
        }
    }
}
