import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Steps of two-factor sign-in the way a browser and an authenticator app take them.
enum TwoFactorSteps {
    /// The secret as the authenticator app learns it from the key shown on the set-up page.
    static func secret(from page: String) throws -> SecondFactor {
        let start = try #require(page.range(of: #"id="secret-key">"#))
        let rest = page[start.upperBound...]
        let typed = String(rest[..<(try #require(rest.range(of: "</code>"))).lowerBound]).replacingOccurrences(of: " ", with: "")
        return SecondFactor(secret: String(decoding: try #require(base32Decoded(typed)), as: UTF8.self))
    }

    static func base32Decoded(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var buffer = 0, bits = 0
        var bytes: [UInt8] = []
        for character in text {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> (bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return bytes
    }

    static func code(_ factor: SecondFactor, _ portal: TestPortal, stepsFromNow: Int64 = 0) -> String {
        factor.code(step: SecondFactor.stepNumber(at: portal.clock.now) + stepsFromNow)
    }

    static func recoveryCodes(in page: String) -> [String] {
        page.components(separatedBy: "<li><code>").dropFirst().compactMap { $0.components(separatedBy: "</code>").first }
    }

    /// Turns two-factor sign-in on from the account page; returns the app's secret and the recovery codes.
    static func turnOn(_ visitor: inout Visitor, _ portal: TestPortal) async throws -> (SecondFactor, [String]) {
        try await visitor.get("/account/two-factor")
        let started = try await visitor.post("/account/two-factor/set-up")
        #expect(started.location == "/account/two-factor")
        let page = try await visitor.get("/account/two-factor")
        #expect(page.text.contains(#"<svg class="qr-code""#))
        let factor = try secret(from: page.text)
        let confirmed = try await visitor.post("/account/two-factor/confirm", form: [("code", code(factor, portal))])
        #expect(confirmed.status == .ok)
        let codes = recoveryCodes(in: confirmed.text)
        #expect(codes.count == 10)
        // The code just used is spent: move on to the next step, as a person would.
        portal.clock.advance(by: SecondFactor.step)
        return (factor, codes)
    }

    /// Signs in with the password and returns the response, which should send the browser on to the code page.
    static func password(_ visitor: inout Visitor, username: String) async throws -> TestResponse {
        try await visitor.get("/sign-in")
        return try await visitor.post("/sign-in", form: [("username", username), ("password", "correct horse battery staple")])
    }
}

@Suite struct TwoFactorTests {
    @Test(arguments: TestEngines.all)
    func turningItOnAsksForACodeAtEverySignIn(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (visitor, account) = try await portal.signedIn(.physician, username: "dr.okafor")
            try await visitor.get("/account/two-factor")
            try await visitor.post("/account/two-factor/set-up")
            let setUp = try await visitor.get("/account/two-factor")
            let factor = try TwoFactorSteps.secret(from: setUp.text)
            let wrong = try await visitor.post("/account/two-factor/confirm", form: [("code", "000000")])
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains(##"href="#code""##))
            let confirmed = try await visitor.post("/account/two-factor/confirm", form: [("code", TwoFactorSteps.code(factor, portal))])
            let codes = TwoFactorSteps.recoveryCodes(in: confirmed.text)
            #expect(codes.count == 10)
            #expect(Set(codes).count == 10)
            #expect(try await portal.auditEntries(action: .secondFactorTurnedOn).map(\.recordID) == ["\(account.id)"])
            #expect(try await visitor.get("/account/two-factor").text.contains("unused recovery code"))

            // The secret is sealed, and only hashes of the recovery codes are kept.
            let stored = try await portal.database.read { db in
                try #require(try await db.select().column("sealed_secret").from("second_factors").first()).decode(
                    column: "sealed_secret",
                    as: String.self
                )
            }
            #expect(!stored.contains(factor.secret))
            #expect(stored.hasPrefix("v1.\(portal.portal.sealer.key.id)."))
            #expect(try SecondFactorSealer(sealer: portal.portal.sealer).open(stored) == factor.secret)
            let hashes = try await portal.database.read { db in
                try await db.select().column("code_hash").from("recovery_codes").all().map { try $0.decode(column: "code_hash", as: String.self) }
            }
            #expect(Set(hashes) == Set(codes.map(RecoveryCodes.hash)))

            // Signing in now needs a code; the password alone reaches no page.
            try await visitor.post("/sign-out")
            portal.clock.advance(by: SecondFactor.step)
            let password = try await TwoFactorSteps.password(&visitor, username: "dr.okafor")
            #expect(password.location == "/sign-in/code")
            #expect(try await visitor.get("/account/password").location?.hasPrefix("/sign-in") == true)
            try await visitor.get("/sign-in/code")
            let bad = try await visitor.post("/sign-in/code", form: [("code", "123456")])
            #expect(bad.status == .unprocessableContent)
            #expect(bad.text.contains("The code is not right"))
            let code = TwoFactorSteps.code(factor, portal)
            let good = try await visitor.post("/sign-in/code", form: [("code", code)])
            #expect(good.location == "/")
            #expect(try await visitor.get("/").text.contains("Signed in as <strong>dr.okafor</strong>"))

            // The same code does not sign in twice.
            var other = Visitor(portal: portal)
            #expect(try await TwoFactorSteps.password(&other, username: "dr.okafor").location == "/sign-in/code")
            try await other.get("/sign-in/code")
            #expect(try await other.post("/sign-in/code", form: [("code", code)]).status == .unprocessableContent)
        }
    }

    @Test(arguments: TestEngines.all)
    func codesAreAcceptedOneStepEitherSideAndRecoveryCodesOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (visitor, _) = try await portal.signedIn(.administrator, username: "chief")
            let (factor, codes) = try await TwoFactorSteps.turnOn(&visitor, portal)
            func attempt(_ code: String) async throws -> TestResponse {
                var browser = Visitor(portal: portal)
                _ = try await TwoFactorSteps.password(&browser, username: "chief")
                try await browser.get("/sign-in/code")
                return try await browser.post("/sign-in/code", form: [("code", code)])
            }
            portal.clock.advance(by: 10 * SecondFactor.step)
            #expect(try await attempt(TwoFactorSteps.code(factor, portal, stepsFromNow: 2)).status == .unprocessableContent)
            #expect(try await attempt(TwoFactorSteps.code(factor, portal, stepsFromNow: -2)).status == .unprocessableContent)
            #expect(try await attempt(TwoFactorSteps.code(factor, portal, stepsFromNow: -1)).status == .seeOther)
            // A code of an earlier step than one used is refused too.
            portal.clock.advance(by: 3 * SecondFactor.step)
            #expect(try await attempt(TwoFactorSteps.code(factor, portal, stepsFromNow: 1)).status == .seeOther)
            #expect(try await attempt(TwoFactorSteps.code(factor, portal)).status == .unprocessableContent)

            let recovery = try await attempt(codes[3].uppercased())
            #expect(recovery.status == .seeOther)
            #expect(try await attempt(codes[3]).status == .unprocessableContent)
            #expect(
                try await portal.database.read { db in
                    try await db.count(in: "recovery_codes") { $0.where("used_at", .isNot, SQLLiteral.null) }
                } == 1
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func wrongCodesAreThrottledWithThePasswordAttempts(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (visitor, _) = try await portal.signedIn(.physician, username: "dr.guess")
            let (factor, _) = try await TwoFactorSteps.turnOn(&visitor, portal)
            var attacker = Visitor(portal: portal)
            _ = try await TwoFactorSteps.password(&attacker, username: "dr.guess")
            try await attacker.get("/sign-in/code")
            for guess in 0..<SignInThrottle.accountLimit {
                _ = try await attacker.post("/sign-in/code", form: [("code", String(format: "%06d", guess))])
            }
            // Paused, even for the right code, and the password again does not clear it.
            let paused = try await attacker.post("/sign-in/code", form: [("code", TwoFactorSteps.code(factor, portal))])
            #expect(paused.status == .tooManyRequests)
            _ = try await TwoFactorSteps.password(&attacker, username: "dr.guess")
            let again = try await TwoFactorSteps.password(&attacker, username: "dr.guess")
            #expect(again.status == .unprocessableContent)
            #expect(again.text.contains("Too many attempts"))
            portal.clock.advance(by: SignInThrottle.pause + 1)
            #expect(try await TwoFactorSteps.password(&attacker, username: "dr.guess").location == "/sign-in/code")
        }
    }

    @Test(arguments: TestEngines.all)
    func turningItOffNeedsThePasswordAndACode(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (visitor, _) = try await portal.signedIn(.medicalProfessional, username: "nurse.ola")
            // She starts on the desk, not Home: the desk links to her password and second factor.
            #expect(try await visitor.get("/desk").text.contains(#"href="/account/two-factor""#))
            let (factor, _) = try await TwoFactorSteps.turnOn(&visitor, portal)
            try await visitor.get("/account/two-factor")
            let noPassword = try await visitor.post(
                "/account/two-factor/turn-off",
                form: [("password", "wrong password here"), ("code", TwoFactorSteps.code(factor, portal))]
            )
            #expect(noPassword.status == .unprocessableContent)
            #expect(noPassword.text.contains("Your password is not right"))
            let noCode = try await visitor.post(
                "/account/two-factor/turn-off",
                form: [("password", "correct horse battery staple"), ("code", "999999")]
            )
            #expect(noCode.status == .unprocessableContent)
            portal.clock.advance(by: SecondFactor.step)
            let off = try await visitor.post(
                "/account/two-factor/turn-off",
                form: [
                    ("password", "correct horse battery staple"), ("code", TwoFactorSteps.code(factor, portal))
                ]
            )
            #expect(off.location == "/account/two-factor")
            #expect(try await portal.auditEntries(action: .secondFactorTurnedOff).count == 1)
            try await visitor.post("/sign-out")
            #expect(try await TwoFactorSteps.password(&visitor, username: "nurse.ola").location == "/desk")
        }
    }

    @Test(arguments: TestEngines.all)
    func aRequiredRoleSetsItUpAtTheNextSignInAndAnAdministratorCanResetIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let physician = try await portal.createStaff(.physician, username: "dr.new")
            let policy = try await admin.get("/staff/two-factor")
            for role in StaffRole.allCases { #expect(policy.text.contains(#"value="\#(role.rawValue)""#)) }
            try await admin.post("/staff/two-factor", form: [("roles[]", "physician")])
            #expect(try await portal.auditEntries(action: .secondFactorPolicyChanged).count == 1)

            var visitor = Visitor(portal: portal)
            #expect(try await TwoFactorSteps.password(&visitor, username: "dr.new").location == "/sign-in/two-factor")
            #expect(try await visitor.get("/account/password").location?.hasPrefix("/sign-in") == true)
            let setUp = try await visitor.get("/sign-in/two-factor")
            #expect(setUp.text.contains("requires a code from your phone"))
            let factor = try TwoFactorSteps.secret(from: setUp.text)
            let done = try await visitor.post("/sign-in/two-factor", form: [("code", TwoFactorSteps.code(factor, portal))])
            #expect(done.status == .ok)
            #expect(TwoFactorSteps.recoveryCodes(in: done.text).count == 10)
            #expect(try await visitor.get("/").text.contains("Signed in as <strong>dr.new</strong>"))

            // Required: it cannot be turned off by its owner.
            portal.clock.advance(by: SecondFactor.step)
            try await visitor.get("/account/two-factor")
            let refused = try await visitor.post(
                "/account/two-factor/turn-off",
                form: [
                    ("password", "correct horse battery staple"), ("code", TwoFactorSteps.code(factor, portal))
                ]
            )
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("cannot be turned off"))

            // An administrator resets it: the next sign-in sets up a new one.
            let account = try await admin.get("/staff/\(physician.id)")
            #expect(account.text.contains("/staff/\(physician.id)/two-factor/reset"))
            try await admin.post("/staff/\(physician.id)/two-factor/reset")
            #expect(try await portal.auditEntries(action: .secondFactorReset).map(\.recordID) == ["\(physician.id)"])
            var later = Visitor(portal: portal)
            #expect(try await TwoFactorSteps.password(&later, username: "dr.new").location == "/sign-in/two-factor")
            let fresh = try TwoFactorSteps.secret(from: try await later.get("/sign-in/two-factor").text)
            #expect(fresh.secret != factor.secret)
        }
    }

    @Test(arguments: TestEngines.all)
    func theSecretAndCodesNeverReachTheLogsOrTheAuditLog(engine: Database.Engine) async throws {
        let logs = CapturedLogs()
        try await TestPortal.run(engine, logHandler: logs.handler) { portal in
            var (visitor, _) = try await portal.signedIn(.administrator, username: "chief")
            let (factor, codes) = try await TwoFactorSteps.turnOn(&visitor, portal)
            try await visitor.post("/sign-out")
            _ = try await TwoFactorSteps.password(&visitor, username: "chief")
            try await visitor.get("/sign-in/code")
            try await visitor.post("/sign-in/code", form: [("code", codes[0])])
            let secrets = [factor.secret, factor.typedKey.replacingOccurrences(of: " ", with: "")] + codes
            let rows = try await portal.database.read { db in try await db.raw("SELECT * FROM audit_log").all() }
            for row in rows {
                for column in row.allColumns {
                    guard let value = try? row.decode(column: column, as: String?.self) else { continue }
                    for secret in secrets { #expect(!value.contains(secret), "audit column \(column) holds a secret") }
                }
            }
            #expect(!logs.all.isEmpty)
            for line in logs.all {
                for secret in secrets { #expect(!line.contains(secret), "a log line holds a secret") }
            }
        }
    }

    @Test func theQRCodeIsDrawnWithFinderPatternsAtThreeCorners() throws {
        let url = SecondFactor(secret: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567").authenticatorURL(username: "dr.okafor", issuer: "CarePortal")
        #expect(url.hasPrefix("otpauth://totp/CarePortal:dr.okafor?secret="))
        let drawing = try #require(QRCodeDrawing(url))
        let side = drawing.modules.count
        #expect(side >= 21 && (side - 17) % 4 == 0)
        #expect(drawing.modules.allSatisfy { $0.count == side })
        // A finder pattern: a dark 7×7 ring, a light ring inside it, a dark 3×3 centre.
        func finder(atRow top: Int, column left: Int) -> Bool {
            (0..<7).allSatisfy { y in
                (0..<7).allSatisfy { x in
                    let ring = y == 0 || y == 6 || x == 0 || x == 6
                    let centre = (2...4).contains(y) && (2...4).contains(x)
                    return drawing.modules[top + y][left + x] == (ring || centre)
                }
            }
        }
        #expect(finder(atRow: 0, column: 0))
        #expect(finder(atRow: 0, column: side - 7))
        #expect(finder(atRow: side - 7, column: 0))
        #expect(!finder(atRow: side - 7, column: side - 7))
        let svg = drawing.svg(title: "QR <code>")
        #expect(svg.contains("QR &lt;code&gt;"))
        #expect(svg.contains(#"viewBox="0 0 \#(side + 8) \#(side + 8)""#))
    }

    @Test func codesFollowRFC6238() {
        // RFC 6238 appendix B, SHA-1, with the 20-byte secret "12345678901234567890".
        let factor = SecondFactor(secret: "12345678901234567890")
        let expected: [(TimeInterval, String)] = [(59, "287082"), (1_111_111_109, "081804"), (1_234_567_890, "005924"), (2_000_000_000, "279037")]
        for (time, code) in expected {
            #expect(factor.code(step: SecondFactor.stepNumber(at: Date(timeIntervalSince1970: time))) == code)
        }
        #expect(SecondFactor.base32Encoded(Array("foobar".utf8)) == "MZXW6YTBOI")
    }
}
