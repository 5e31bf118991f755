import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct SignInTests {
    @Test func onlyAnActiveAccountIsLetInAndARefusalForItsStatusIsNotAFailedTry() throws {
        let active = StaffAccount(
            id: 7,
            username: "dr.lee",
            role: .physician,
            status: .active,
            createdAt: Date(timeIntervalSince1970: 0),
            updatedAt: Date(timeIntervalSince1970: 0)
        )
        #expect(SignInRefusal.status(of: active) == nil)
        var waiting = active
        waiting.status = .awaitingApproval
        let refusal = try #require(SignInRefusal.status(of: waiting))
        #expect(refusal.detail == "awaiting approval")
        #expect(refusal.account == waiting)
        #expect(!refusal.countsAsFailure)
        #expect(SignInRefusal.wrongPassword(active).countsAsFailure)
    }

    @Test func aNewPasswordMustDifferFromTheCurrentOneAndBeTypedTwice() {
        let same = ChangePasswordForm(
            current_password: "slow walking morning light",
            new_password: "slow walking morning light",
            new_password_confirmation: "slow walking morning light"
        )
        #expect(
            same.problems(currentIsWrong: false, policy: .standard, username: "chief").items.map(\.message) == [
                "The new password must be different from the current one"
            ]
        )
        let unconfirmed = ChangePasswordForm(
            current_password: "",
            new_password: "quiet river evening song",
            new_password_confirmation: "quiet river evening"
        )
        let errors = unconfirmed.problems(currentIsWrong: true, policy: .standard, username: "chief")
        #expect(errors.items.map(\.field) == ["current_password", "new_password_confirmation"])
        #expect(errors["current_password"] == "Enter your current password")
    }

    @Test(arguments: TestEngines.all)
    func firstRunSetupCreatesTheFirstAdministratorAndThenDisappears(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var browser = Visitor(portal: portal)
            // setup
            #expect(try await browser.get("/").location == "/setup")
            let setupPage = try await browser.get("/setup")
            #expect(setupPage.status == .ok)
            #expect(setupPage.text.contains("Create the first administrator account"))
            // MUT
            let response = try await browser.post(
                "/setup",
                form: [
                    ("username", "first.admin"), ("email", "admin@example.org"),
                    ("password", "correct horse battery staple"), ("password_confirmation", "correct horse battery staple")
                ]
            )
            // validate
            #expect(response.status == .seeOther)
            let home = try await browser.get("/")
            #expect(home.text.contains("Signed in as <strong>first.admin</strong>"))
            #expect(home.text.contains("Your administrator account is ready"))
            #expect(try await browser.get("/setup").status == .notFound)
            var stranger = Visitor(portal: portal)
            try await stranger.get("/sign-in")
            let second = try await stranger.post(
                "/setup",
                form: [
                    ("username", "intruder"), ("email", "x@example.org"),
                    ("password", "another long passphrase"), ("password_confirmation", "another long passphrase")
                ]
            )
            #expect(second.status == .notFound)
            #expect(try await portal.auditEntries(action: .firstAdministratorCreated).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func setupShowsEachProblemBesideItsFieldAndKeepsWhatWasTyped(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var browser = Visitor(portal: portal)
            try await browser.get("/setup")
            let response = try await browser.post(
                "/setup",
                form: [
                    ("username", "this name is far too long"), ("email", "not-an-email"),
                    ("password", "password1"), ("password_confirmation", "password1")
                ]
            )
            #expect(response.status == .unprocessableContent)
            let html = response.text
            #expect(html.contains(##"<a href="#username">Username must be 21 characters or fewer</a>"##))
            #expect(html.contains(##"<a href="#email">Enter an email address in the correct format, like name@example.com</a>"##))
            #expect(html.contains("This password is too common and easy to guess"))
            #expect(html.contains(#"id="username-error""#))
            #expect(html.contains(#"value="not-an-email""#))
            #expect(!html.contains(#"value="password1""#), "passwords are never sent back")
            #expect(try await portal.database.read { db in try await StaffAccountRepository().count(on: db) } == 0)
        }
    }

    @Test(arguments: TestEngines.all)
    func signInAndSignOut(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.physician, username: "dr.ana")
            var browser = Visitor(portal: portal)
            try await browser.signIn(username: "DR.ANA", password: "correct horse battery staple")
            #expect(try await browser.get("/").text.contains("Signed in as <strong>dr.ana</strong>"))
            let sessionBefore = browser.cookie
            let signOut = try await browser.post("/sign-out")
            #expect(signOut.location == "/sign-in")
            #expect(try await browser.get("/sign-in").text.contains("You have signed out."))
            // The signed-out session id no longer opens anything.
            var replay = Visitor(portal: portal)
            replay.cookie = sessionBefore
            #expect(try await replay.get("/account/password").location?.hasPrefix("/sign-in") == true)
            #expect(try await portal.auditEntries(action: .signOut).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func wrongPasswordAndUnknownUsernameGetTheSameAnswer(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.physician, username: "dr.ana")
            var browser = Visitor(portal: portal)
            try await browser.get("/sign-in")
            let wrong = try await browser.post("/sign-in", form: [("username", "dr.ana"), ("password", "not the password")])
            let unknown = try await browser.post("/sign-in", form: [("username", "nobody"), ("password", "not the password")])
            #expect(wrong.status == .unprocessableContent)
            #expect(unknown.status == wrong.status)
            #expect(wrong.text.contains(SignInController.wrongCredentials))
            #expect(unknown.text.contains(SignInController.wrongCredentials))
            #expect(wrong.text.contains(#"value="dr.ana""#))
            let failures = try await portal.auditEntries(action: .signIn).filter { $0.outcome == "failure" }
            #expect(failures.count == 2)
        }
    }

    @Test(arguments: TestEngines.all)
    func fiveFailuresPauseTheAccountForFifteenMinutes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.physician, username: "dr.ana")
            var browser = Visitor(portal: portal)
            try await browser.get("/sign-in")
            for _ in 1...5 {
                try await browser.post("/sign-in", form: [("username", "dr.ana"), ("password", "wrong guess")])
            }
            // The right password is refused while paused, with the same words as for an unknown account.
            let paused = try await browser.post("/sign-in", form: [("username", "dr.ana"), ("password", "correct horse battery staple")])
            #expect(paused.status == .unprocessableContent)
            #expect(paused.text.contains("Too many attempts to sign in"))
            for _ in 1...5 {
                try await browser.post("/sign-in", form: [("username", "ghost"), ("password", "wrong guess")])
            }
            let pausedUnknown = try await browser.post("/sign-in", form: [("username", "ghost"), ("password", "wrong guess")])
            #expect(pausedUnknown.text.contains("Too many attempts to sign in"))

            portal.clock.advance(by: 15 * 60 + 1)
            let later = try await browser.post("/sign-in", form: [("username", "dr.ana"), ("password", "correct horse battery staple")])
            #expect(later.status == .seeOther)
            let audited = try await portal.auditEntries(action: .signIn)
            #expect(audited.contains { $0.detail == "paused after repeated failures" })
        }
    }

    @Test(arguments: TestEngines.all)
    func oneAddressIsPausedAfterTwentyFailuresAcrossAccounts(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.trustForwardedFor = true }) { portal in
            try await portal.createStaff(.physician, username: "dr.ana")
            var browser = Visitor(portal: portal)
            try await browser.get("/sign-in")
            func attempt(_ username: String, _ password: String, from address: String) async throws -> TestResponse {
                var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .origin: TestPortal.origin]
                headers[.cookie] = browser.cookieHeader
                headers[HTTPField.Name("X-Forwarded-For")!] = address
                let body = "username=\(username)&password=\(password.replacingOccurrences(of: " ", with: "+"))&csrf_token=\(browser.csrfToken!)"
                return try await portal.client.execute(uri: "/sign-in", method: .post, headers: headers, body: ByteBuffer(string: body))
            }
            for index in 1...20 {
                _ = try await attempt("guess\(index)", "wrong", from: "203.0.113.9")
            }
            let blocked = try await attempt("dr.ana", "correct horse battery staple", from: "203.0.113.9")
            #expect(blocked.status == .unprocessableContent)
            #expect(String(buffer: blocked.body).contains("Too many attempts to sign in"))
            let elsewhere = try await attempt("dr.ana", "correct horse battery staple", from: "198.51.100.7")
            #expect(elsewhere.status == .seeOther)
        }
    }

    @Test(arguments: TestEngines.all)
    func changingThePasswordEndsTheAccountsOtherSessions(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let account = try await portal.createStaff(.medicalProfessional, username: "nurse.bo")
            var laptop = Visitor(portal: portal)
            try await laptop.signIn(username: "nurse.bo", password: "correct horse battery staple")
            var phone = Visitor(portal: portal)
            try await phone.signIn(username: "nurse.bo", password: "correct horse battery staple")

            try await laptop.get("/account/password")
            let wrongCurrent = try await laptop.post(
                "/account/password",
                form: [
                    ("current_password", "nope nope nope"), ("new_password", "a brand new passphrase"),
                    ("new_password_confirmation", "a brand new passphrase")
                ]
            )
            #expect(wrongCurrent.text.contains("Your current password is not right"))
            let changed = try await laptop.post(
                "/account/password",
                form: [
                    ("current_password", "correct horse battery staple"), ("new_password", "a brand new passphrase"),
                    ("new_password_confirmation", "a brand new passphrase")
                ]
            )
            #expect(changed.status == .seeOther)
            #expect(changed.location == SiteURL.desk.path, "a medical professional goes back to the information desk")
            #expect(try await laptop.get(SiteURL.desk.path).text.contains("Your password has been changed"))
            #expect(try await phone.get("/account/password").location?.hasPrefix("/sign-in") == true)
            let sessions = try await portal.database.read { db in try await SessionRepository().count(accountID: account.id, on: db) }
            #expect(sessions == 1)
            var fresh = Visitor(portal: portal)
            try await fresh.signIn(username: "nurse.bo", password: "a brand new passphrase")
            #expect(try await portal.auditEntries(action: .passwordChanged).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func aLongUnicodePasswordIsNotTruncated(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let long = String(repeating: "ñandú-Ødegård ", count: 6) + "end"
            let almost = String(repeating: "ñandú-Ødegård ", count: 6) + "enD"
            let hash = try await portal.portal.passwords.hash(long)
            #expect(try await portal.portal.passwords.verify(long, against: hash))
            #expect(try await !portal.portal.passwords.verify(almost, against: hash), "a difference after 72 bytes still counts")
            // The same password in decomposed form (as some keyboards send it) matches.
            #expect(try await portal.portal.passwords.verify(long.decomposedStringWithCanonicalMapping, against: hash))
        }
    }

    @Test func passwordsAreStoredWithBcryptCostTwelveOrMore() async throws {
        let hash = try await PasswordHasher(cost: Dependencies().passwordHashCost).hash("correct horse battery staple")
        #expect(hash.hasPrefix("$2b$12$") || hash.hasPrefix("$2a$12$") || hash.hasPrefix("$2y$12$"))
    }

    @Test func thePasswordPolicyExplainsEachRefusal() {
        let policy = PasswordPolicy.standard
        #expect(policy.problem(with: "") == "Enter a password")
        #expect(policy.problem(with: "short") == "Password must be 8 characters or more")
        #expect(policy.problem(with: String(repeating: "a", count: 257))?.contains("256 characters or fewer") == true)
        #expect(policy.problem(with: "Password123")?.contains("too common") == true)
        #expect(policy.problem(with: "qwertyuiop")?.contains("too common") == true)
        #expect(policy.problem(with: "dr.ana.smith", username: "Dr.Ana.Smith") == "Password must not be the same as the username")
        #expect(policy.problem(with: String(repeating: "é", count: 64)) == nil)
        #expect(policy.problem(with: "correct horse battery staple") == nil)
    }

    @Test(arguments: TestEngines.all)
    func disabledAccountsCannotSignInAndLoseTheirSessionsAtOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator, username: "chief")
            let physician = try await portal.createStaff(.physician, username: "dr.cy")
            var doctor = Visitor(portal: portal)
            try await doctor.signIn(username: "dr.cy", password: "correct horse battery staple")

            try await admin.get("/staff/\(physician.id)")
            let disabled = try await admin.post("/staff/\(physician.id)/disable")
            #expect(disabled.location == "/staff/\(physician.id)")
            #expect(try await doctor.get("/account/password").location?.hasPrefix("/sign-in") == true)
            var again = Visitor(portal: portal)
            try await again.get("/sign-in")
            let refused = try await again.post("/sign-in", form: [("username", "dr.cy"), ("password", "correct horse battery staple")])
            #expect(refused.text.contains("This account has been disabled"))

            try await admin.post("/staff/\(physician.id)/enable")
            try await again.signIn(username: "dr.cy", password: "correct horse battery staple")
            #expect(try await portal.auditEntries(action: .accountDisabled).count == 1)
            #expect(try await portal.auditEntries(action: .accountEnabled).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func administratorsCannotDisableTheirOwnAccount(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, me) = try await portal.signedIn(.administrator, username: "only.admin")
            try await admin.get("/staff/\(me.id)")
            try await admin.post("/staff/\(me.id)/disable")
            #expect(try await admin.get("/staff/\(me.id)").text.contains("You cannot disable your own account."))
            #expect(try await portal.database.read { db in try await StaffAccountRepository().find(id: me.id, on: db) }?.status == .active)
        }
    }
}
