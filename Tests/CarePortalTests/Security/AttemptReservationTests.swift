import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// A burst of simultaneous guesses gets no more checks than the pause allows: each try is reserved (counted
/// and refused in one step) before its secret is checked.
@Suite struct AttemptReservationTests {
    static let burst = 30

    /// Sends `count` requests at once and returns their answers.
    static func atOnce<Answer: Sendable>(_ count: Int = burst, _ send: @escaping @Sendable (Int) async throws -> Answer) async throws -> [Answer] {
        try await withThrowingTaskGroup(of: Answer.self) { group in
            for index in 0..<count { group.addTask { try await send(index) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test(arguments: TestEngines.all)
    func aBurstOfWrongStaffPasswordsGetsFiveChecksAndThenThePauseHolds(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.physician, username: "dr.ana")
            var browser = Visitor(portal: portal)
            try await browser.get("/sign-in")
            let guesser = browser
            // MUT
            let answers = try await Self.atOnce { index in
                var copy = guesser
                return try await copy.post("/sign-in", form: [("username", "dr.ana"), ("password", "wrong guess \(index)")]).text
            }
            // validate
            let checked = try await portal.auditEntries(action: .signIn).filter { $0.detail == "wrong password" }
            #expect(checked.count <= SignInThrottle.accountLimit, "\(checked.count) of \(Self.burst) guesses were checked")
            #expect(answers.filter { $0.contains("Too many attempts to sign in") }.count >= Self.burst - SignInThrottle.accountLimit)
            let paused = try await browser.post("/sign-in", form: [("username", "dr.ana"), ("password", "correct horse battery staple")])
            #expect(paused.status == .unprocessableContent && paused.text.contains("Too many attempts to sign in"))
            portal.clock.advance(by: SignInThrottle.pause + 1)
            let later = try await browser.post("/sign-in", form: [("username", "dr.ana"), ("password", "correct horse battery staple")])
            #expect(later.status == .seeOther)
        }
    }

    @Test(arguments: TestEngines.all)
    func aBurstOfWrongSecondFactorCodesGetsFiveChecks(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (visitor, _) = try await portal.signedIn(.administrator, username: "chief")
            let (factor, _) = try await TwoFactorSteps.turnOn(&visitor, portal)
            portal.clock.advance(by: 10 * SecondFactor.step)
            var browser = Visitor(portal: portal)
            #expect(try await TwoFactorSteps.password(&browser, username: "chief").location == "/sign-in/code")
            try await browser.get("/sign-in/code")
            let guesser = browser
            let right = TwoFactorSteps.code(factor, portal)
            // MUT: thirty wrong six-digit codes at once
            _ = try await Self.atOnce { index in
                var copy = guesser
                let wrong = String(format: "%06d", (Int(right)! + 1 + index) % 1_000_000)
                return try await copy.post("/sign-in/code", form: [("code", wrong)]).status
            }
            // validate
            let checked = try await portal.auditEntries(action: .signIn).filter { $0.detail == "wrong second-factor code" }
            #expect(checked.count <= SignInThrottle.accountLimit, "\(checked.count) of \(Self.burst) codes were checked")
            let paused = try await browser.post("/sign-in/code", form: [("code", right)])
            #expect(paused.status == .tooManyRequests)
            portal.clock.advance(by: SignInThrottle.pause + 1)
            var later = Visitor(portal: portal)
            #expect(try await TwoFactorSteps.password(&later, username: "chief").location == "/sign-in/code")
            try await later.get("/sign-in/code")
            #expect(try await later.post("/sign-in/code", form: [("code", TwoFactorSteps.code(factor, portal))]).status == .seeOther)
        }
    }

    @Test(arguments: TestEngines.all)
    func aBurstOfWrongAppPasswordsGetsFiveChecks(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await AppClient.registered(portal, pseudonym: "Wren")
            let app = AppClient(portal: portal)
            // MUT
            let statuses = try await Self.atOnce { index in
                try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Wren", "password": "Wrong#pass\(index)"]).status
            }
            // validate
            #expect(statuses.filter { $0 == .unauthorized }.count <= SignInThrottle.accountLimit)
            #expect(statuses.filter { $0 == .tooManyRequests }.count >= Self.burst - SignInThrottle.accountLimit)
            let checked = try await portal.auditEntries(action: .signIn).filter { $0.outcome == "failure" }
            #expect(checked.count <= SignInThrottle.accountLimit)
            let paused = try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Wren", "password": "Sunrise#2027"])
            #expect(paused.status == .tooManyRequests && paused.headers[.retryAfter] != nil)
            portal.clock.advance(by: SignInThrottle.pause + 1)
            #expect(try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Wren", "password": "Sunrise#2027"]).status == .created)
        }
    }

    @Test(arguments: TestEngines.all)
    func aBurstOfWrongRecoveryAnswersGetsFiveChecks(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await AppClient.registered(portal, pseudonym: "Heron", ["recovery_email": "heron@example.org"])
            let app = AppClient(portal: portal)
            // MUT
            let statuses = try await Self.atOnce { index in
                try await app.send(
                    .post,
                    "/api/v1/account-recovery",
                    json: [
                        "recovery_email": "heron@example.org", "security_answer": "Guess \(index)", "new_password": "Evening#2027"
                    ]
                ).status
            }
            // validate
            #expect(statuses.filter { $0 == .unauthorized }.count <= SignInThrottle.accountLimit)
            let checked = try await portal.auditEntries(action: .memberRecovered).filter { $0.outcome == "failure" }
            #expect(checked.count <= SignInThrottle.accountLimit)
            let right = ["recovery_email": "heron@example.org", "security_answer": "Biscuit", "new_password": "Evening#2027"]
            #expect(try await app.send(.post, "/api/v1/account-recovery", json: right).status == .tooManyRequests)
            portal.clock.advance(by: SignInThrottle.pause + 1)
            #expect(try await app.send(.post, "/api/v1/account-recovery", json: right).status == .noContent)
        }
    }

    @Test(arguments: TestEngines.all)
    func aBurstOfWrongPasswordsAtThePharmacyStepUpGetsFiveChecks(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await PharmacyFixtures.customer(portal)
            // MUT
            let statuses = try await Self.atOnce { index in
                try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": "not her password \(index)"]).status
            }
            // validate
            #expect(statuses.filter { $0 == .unprocessableContent }.count <= SignInThrottle.accountLimit)
            let checked = try await portal.auditEntries(action: .pharmacyStepUp).filter { $0.outcome == "failure" }
            #expect(checked.count <= SignInThrottle.accountLimit)
            #expect(
                try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": PharmacyFixtures.password]).status == .tooManyRequests
            )
            portal.clock.advance(by: SignInThrottle.pause + 1)
            #expect(try await app.send(.post, SiteURL.apiPharmacyStepUp.path, json: ["password": PharmacyFixtures.password]).status == .ok)
        }
    }

    @Test(arguments: TestEngines.all)
    func aRightPasswordLetsItsTryGoSoOthersStillHaveTheirs(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.trustForwardedFor = true }) { portal in
            // setup: one address signs in rightly ten times
            for index in 1...10 { try await portal.createStaff(.physician, username: "dr.\(index)") }
            for index in 1...10 {
                var browser = Visitor(portal: portal)
                try await browser.signIn(username: "dr.\(index)", password: "correct horse battery staple")
            }
            // validate: right passwords leave nothing counted against the address
            let counted = try await portal.database.read { db in try await db.count(in: "sign_in_failures") }
            #expect(counted == 0)
        }
    }
}
