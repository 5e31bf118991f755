import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

extension Visitor {
    /// Signs in to `kind`'s part of the web app, as the browser would from its sign-in page.
    mutating func signInToApp(_ kind: AppAccountKind, identifier: String, password: String) async throws -> TestResponse {
        try await get(kind.signInPagePath)
        return try await post(kind.signInPagePath, form: [("identifier", identifier), ("password", password)])
    }
}

/// The patient's pages in the people's web app: the same account, schedule, logging and reminders as
/// the patient API, through a browser.
@Suite struct PatientAppPagesTests {
    static let password = "Levodopa time 2026"

    /// A physician, the catalogue, and a patient who has claimed her account as `username`; a browser signed in as her.
    static func signedInPatient(_ portal: TestPortal, username: String = "jose.n") async throws -> (Visitor, Patient, AppClient) {
        let (_, _, patient, token) = try await PatientAPITests.setUp(portal)
        let app = try await PatientFixtures.claimed(portal, patient: patient, token: token, username: username)
        var browser = Visitor(portal: portal)
        let signedIn = try await browser.signInToApp(.patient, identifier: username, password: password)
        #expect(signedIn.status == .seeOther && signedIn.location == SiteURL.appPatientDay.path, "\(signedIn.status): \(signedIn.text)")
        // Land where the browser would, which also picks up the form token of her signed-in pages.
        try await browser.get(signedIn.location ?? SiteURL.appPatientDay.path)
        return (browser, patient, app)
    }

    @Test(arguments: TestEngines.all)
    func sheSignsInSeesHerDayAndLogsADoseTheAppSeesToo(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, patient, app) = try await Self.signedInPatient(portal)
            // MUT: her day
            let day = try await browser.get(SiteURL.appPatientDay.path)
            #expect(day.status == .ok)
            #expect(day.text.contains("<h1 class=\"heading-l\">Today"))
            #expect(day.text.contains("Levodopa/carbidopa") && day.text.contains("Dose 2 of 3") && day.text.contains("Walking"))
            #expect(day.text.contains("0 of 4 done"))
            #expect(day.text.contains(#"aria-current="page">Today</a>"#))
            // She logs the walk as done.
            let schedule = try await app.get(SiteURL.apiPatientSchedule.path)
            let entries = try #require(schedule.object["entries"] as? [[String: Any]])
            let walk = try #require(entries.first { $0["name"] as? String == "Walking" }?["entry_id"] as? String)
            let today = CalendarDate(portal.clock.now).iso
            let logged = try await browser.post(SiteURL.appPatientEntry(day: today, entry: walk).path, form: [("status", "done")])
            // validate: back on her day at the entry, which shows it; the app's API shows the same, and it is audited
            #expect(logged.status == .seeOther && logged.location == "\(SiteURL.appPatientDay.path)#entry-\(walk)")
            let after = try await browser.get(SiteURL.appPatientDay.path)
            #expect(after.text.contains("1 of 4 done"))
            #expect(after.text.contains(#"value="done" aria-pressed="true">Done<span class="visually-hidden">: Walking</span>"#))
            let seen = try #require(try await app.get(SiteURL.apiPatientSchedule.path).object["entries"] as? [[String: Any]])
            #expect(seen.first { $0["entry_id"] as? String == walk }?["status"] as? String == "done")
            let audit = try await portal.auditEntries(action: .adherenceLogged)
            #expect(audit.count == 1 && audit[0].recordID == "\(patient.id)" && audit[0].actorRole == "patient")
            // Sending the same again changes nothing; a day still to come, or an entry that is not hers, is not found.
            _ = try await browser.post(SiteURL.appPatientEntry(day: today, entry: walk).path, form: [("status", "done")])
            #expect(try await portal.auditEntries(action: .adherenceLogged).count == 1)
            let tomorrow = CalendarDate(portal.clock.now).adding(days: 1).iso
            #expect(try await browser.post(SiteURL.appPatientEntry(day: tomorrow, entry: walk).path, form: [("status", "done")]).status == .notFound)
            #expect(
                try await browser.post(SiteURL.appPatientEntry(day: today, entry: "999999-1").path, form: [("status", "done")]).status == .notFound
            )
            // Yesterday can be logged; the day after today is never shown.
            let yesterday = try await browser.get("\(SiteURL.appPatientDay.path)?date=\(CalendarDate(portal.clock.now).adding(days: -1).iso)")
            #expect(
                yesterday.text.contains("<h1 class=\"heading-l\">Yesterday")
                    && yesterday.text.contains(">Today<span aria-hidden=\"true\">›</span></a>")
            )
            let future = try await browser.get("\(SiteURL.appPatientDay.path)?date=\(tomorrow)")
            #expect(future.text.contains("<h1 class=\"heading-l\">Today"))
        }
    }

    @Test(arguments: TestEngines.all)
    func aWrongPasswordIsRefusedBesideTheFieldAndTriesArePausedLikeTheApps(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, _, patient, token) = try await PatientAPITests.setUp(portal)
            _ = try await PatientFixtures.claimed(portal, patient: patient, token: token, username: "jose.n")
            var browser = Visitor(portal: portal)
            let empty = try await browser.signInToApp(.patient, identifier: " ", password: "")
            #expect(empty.status == .unprocessableContent)
            #expect(empty.errorSummary == ["Enter your username", "Enter your password"])
            for _ in 1...SignInThrottle.accountLimit {
                let wrong = try await browser.signInToApp(.patient, identifier: "jose.n", password: "not her password")
                #expect(wrong.status == .unprocessableContent)
                #expect(wrong.errorSummary == ["The username or password is not right"])
                #expect(wrong.text.contains(#"value="jose.n""#), "what she typed is kept")
            }
            // Paused now, even with the right password, as her app would be; the API shares the pause.
            let paused = try await browser.signInToApp(.patient, identifier: "jose.n", password: Self.password)
            #expect(paused.errorSummary == ["Too many tries to sign in. Wait 15 minutes, then try again."])
            let api = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiPatientSessions.path,
                json: ["username": "jose.n", "password": Self.password]
            )
            #expect(api.status == .tooManyRequests)
            #expect(
                try await portal.auditEntries(action: .signIn).filter { $0.actorRole == "patient" && $0.outcome == "failure" }.count
                    == SignInThrottle.accountLimit
            )
            portal.clock.advance(by: SignInThrottle.pause + 1)
            let later = try await browser.signInToApp(.patient, identifier: "jose.n", password: Self.password)
            #expect(later.status == .seeOther)
        }
    }

    @Test(arguments: TestEngines.all)
    func theCookieIsItsOwnAndOpensNothingOfThePortalNorAStaffSessionTheApp(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, patient, _) = try await Self.signedInPatient(portal)
            let cookies = portal.portal.appPageCookies
            let value = try #require(browser.cookies[cookies.sessionName])
            #expect(value.hasPrefix("patient."))
            // Only the hash of the token is stored, in the patient app's own table.
            let stored = try await portal.database.read { db in
                try await db.select().column("token_hash").from("patient_tokens").where("patient_id", .equal, patient.id).all()
                    .map { try $0.decode(column: "token_hash", as: String.self) }
            }
            #expect(stored.contains(SecretToken.hash(String(value.dropFirst("patient.".count)))))
            // Her cookie opens no staff page.
            #expect(try await browser.get(SiteURL.patients.path).location?.hasPrefix("/sign-in") == true)
            #expect(try await browser.get(SiteURL.auditLog.path).location?.hasPrefix("/sign-in") == true)
            // A staff session opens none of hers.
            var (physician, _) = try await portal.signedIn(.physician)
            #expect(try await physician.get(SiteURL.appPatientDay.path).location == AppAccountKind.patient.signInPagePath)
            #expect(
                try await physician.get(SiteURL.appPatientDoctor.path).location == "\(AppAccountKind.patient.signInPagePath)?next=/app/patient/doctor"
            )
            // Nor does another kind's cookie, or a made-up one.
            var forged = Visitor(portal: portal)
            forged.cookies[cookies.sessionName] = "member.\(value.dropFirst("patient.".count))"
            #expect(try await forged.get(SiteURL.appPatientDay.path).status == .seeOther)
            forged.cookies[cookies.sessionName] = "patient.made-up-token"
            #expect(try await forged.get(SiteURL.appPatientDay.path).status == .seeOther)
        }
    }

    @Test(arguments: TestEngines.all)
    func cookiesAreHttpOnlyLaxAndSecureOverTLS(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.baseURL = "https://care.example.org" }) { portal in
            let (_, _, patient, token) = try await PatientAPITests.setUp(portal)
            _ = try await PatientFixtures.claimed(portal, patient: patient, token: token, username: "jose.n")
            var browser = Visitor(portal: portal)
            let page = try await browser.get(AppAccountKind.patient.signInPagePath)
            let form = try #require(page.headers[values: .setCookie].first)
            #expect(
                form.hasPrefix("__Host-careportal_app_form=") && form.contains("HttpOnly") && form.contains("Secure") && form.contains("SameSite=Lax")
            )
            let signedIn = try await browser.post(
                AppAccountKind.patient.signInPagePath,
                form: [("identifier", "jose.n"), ("password", Self.password)],
                origin: "https://care.example.org"
            )
            let session = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("__Host-careportal_app=") })
            #expect(session.contains("HttpOnly") && session.contains("Secure") && session.contains("SameSite=Lax") && session.contains("Path=/"))
            #expect(session.contains("Max-Age=\(Int(BearerTokens.absoluteLifetime))"))
        }
    }

    @Test(arguments: TestEngines.all)
    func signingOutEndsTheTokenAtOnceAndAnonymousVisitsWriteNothing(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            func sessionRows() async throws -> Int { try await portal.database.read { db in try await db.count(in: "sessions") { $0 } } }
            func tokenRows() async throws -> Int { try await portal.database.read { db in try await db.count(in: "patient_tokens") { $0 } } }
            let before = try await sessionRows()
            for _ in 1...20 {
                var stranger = Visitor(portal: portal)
                #expect(try await stranger.get(AppAccountKind.patient.signInPagePath).status == .ok)
                #expect(try await stranger.get(SiteURL.app.path).status == .ok)
            }
            #expect(try await sessionRows() == before, "looking at the sign-in page stored nothing")

            var (browser, _, _) = try await Self.signedInPatient(portal)
            let kept = browser.cookies
            let tokens = try await tokenRows()
            let out = try await browser.post(AppAccountKind.patient.signOutPagePath)
            #expect(out.location == "\(AppAccountKind.patient.signInPagePath)?signed-out=1")
            #expect(browser.cookies[portal.portal.appPageCookies.sessionName] == nil)
            #expect(try await browser.get(try #require(out.location)).text.contains("You have signed out."))
            #expect(try await tokenRows() == tokens - 1)
            // The cookie kept from before opens nothing now.
            var replay = Visitor(portal: portal)
            replay.cookies = kept
            #expect(try await replay.get(SiteURL.appPatientDay.path).location == AppAccountKind.patient.signInPagePath)
            #expect(try await portal.auditEntries(action: .signOut).contains { $0.actorRole == "patient" })
        }
    }

    @Test(arguments: TestEngines.all)
    func remindersProgressAndHerDoctor(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, patient, app) = try await Self.signedInPatient(portal)
            let reminders = try await browser.get(SiteURL.appPatientReminders.path)
            #expect(reminders.text.contains(#"value="every_4_hours" checked"#))
            let missing = try await browser.post(SiteURL.appPatientReminders.path, form: [("email", "on")])
            #expect(missing.status == .unprocessableContent && missing.errorSummary == ["Choose how often to be reminded"])
            #expect(
                missing.text.contains(#"id="email" name="email" type="checkbox" value="on" aria-describedby="email-hint" checked"#),
                "her choice is kept"
            )
            let saved = try await browser.post(SiteURL.appPatientReminders.path, form: [("frequency", "daily"), ("email", "on")])
            #expect(saved.location == "\(SiteURL.appPatientReminders.path)?saved=1")
            #expect(try await browser.get(try #require(saved.location)).text.contains("Your reminder settings are saved."))
            let api = try await app.get(SiteURL.apiPatientReminders.path)
            #expect(api.object["frequency"] as? String == "daily" && api.object["email"] as? Bool == true)
            #expect(try await portal.auditEntries(action: .patientRemindersChanged).first?.recordID == "\(patient.id)")

            let empty = try await browser.get(SiteURL.appPatientProgress.path)
            #expect(empty.text.contains("In the last 30 days you logged 0 of 4 doses and sessions as done (0%)."))
            #expect(empty.text.contains("<svg") && empty.text.contains("<table"))
            let week = try await browser.get("\(SiteURL.appPatientProgress.path)?days=7")
            #expect(week.text.contains(#"aria-current="page">7 days</a>"#))
            // One medicine or exercise at a time, day by day (the API's `item=`): each of hers is offered.
            let options = empty.text.matches(of: /<option value="((?:medication|exercise):\d+)">([^<]+)<\/option>/).map {
                (String($0.1), String($0.2))
            }
            let (value, name) = try #require(options.first, "no activity to choose on \(empty.text)")
            let one = try await browser.get("\(SiteURL.appPatientProgress.path)?days=30&activity=\(value)")
            #expect(one.text.contains("times of “\(name)” as done") && one.text.contains("\(name) each day") && one.text.contains("<svg"))
            #expect(one.text.contains(#"<option value="\#(value)" selected>"#), "her choice is kept")
            #expect(one.text.contains("days=7&amp;activity=\(value)"), "the spans keep her choice")
            let notHers = try await browser.get("\(SiteURL.appPatientProgress.path)?activity=medication:999999")
            #expect(notHers.status == .ok && notHers.text.contains("doses and sessions as done"), "an item not hers counts everything")

            let doctor = try await browser.get(SiteURL.appPatientDoctor.path)
            #expect(doctor.text.contains("Dr Ingrid Berg") && doctor.text.contains("Bergen Movement Clinic, Strandgaten 1"))
            #expect(doctor.text.contains(#"href="tel:+16155550134">Call 615-555-0134"#), "her doctor's practice is a tap away")
        }
    }

    @Test(arguments: TestEngines.all)
    func theStartPageOffersRunningProgramsAndTheManifestNamesTheProgram(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var visitor = Visitor(portal: portal)
            let start = try await visitor.get(SiteURL.app.path)
            #expect(start.text.contains(#"href="/app/patient">Patients of a physician</a>"#))
            #expect(start.text.contains(#"<link rel="manifest" href="/app/manifest.webmanifest">"#))
            let manifest = try await visitor.get(SiteURL.appManifest.path)
            #expect(manifest.headers[.contentType] == "application/manifest+json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(manifest.text.utf8)) as? [String: Any])
            #expect(object["start_url"] as? String == "/app" && object["display"] as? String == "standalone")
            #expect(object["name"] as? String == portal.portal.programSettings.current.programName)
            #expect((object["icons"] as? [[String: Any]])?.map { $0["sizes"] as? String } == ["192x192", "512x512"])

            // With the practice switched off, its part is neither offered nor open.
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await FeaturesTests.switchPrograms(&admin, on: [.perinatalCommunity]).status == .seeOther)
            #expect(!(try await visitor.get(SiteURL.app.path).text.contains("/app/patient")))
            #expect(try await visitor.get(AppAccountKind.patient.signInPagePath).status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func sheClaimsHerAccountInTheBrowserWithTheEmailedToken(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, _, patient, token) = try await PatientAPITests.setUp(portal)
            var browser = Visitor(portal: portal)
            let signIn = try await browser.get(AppAccountKind.patient.signInPagePath)
            #expect(signIn.text.contains(#"href="/app/patient/claim">Claim your account with the token from your email</a>"#))
            try await browser.get(SiteURL.appPatientClaim.path)
            let wrong = try await browser.post(SiteURL.appPatientClaim.path, form: [("claim_token", "AAAA-BBBB-CCCC-DDDD-EEEE")])
            #expect(wrong.status == .unprocessableContent && wrong.errorSummary == [PatientClaim.wrongToken])
            #expect(wrong.text.contains(#"value="AAAA-BBBB-CCCC-DDDD-EEEE""#), "what she typed is kept")

            // MUT: the right token shows her details to confirm, and that is audited like any read of her record.
            let details = try await browser.post(SiteURL.appPatientClaim.path, form: [("claim_token", " \(token.grouped.lowercased()) ")])
            #expect(details.status == .ok)
            #expect(
                details.text.contains("José María Núñez-Ødegård") && details.text.contains("9876 543 210") && details.text.contains("Dr Ingrid Berg")
            )
            #expect(
                try await portal.auditEntries(action: .patientViewed).contains {
                    $0.recordID == "\(patient.id)" && $0.detail == "claim token checked in the web app"
                }
            )
            let incomplete = try await browser.post(
                SiteURL.appPatientClaimAccount.path,
                form: [
                    ("claim_token", token.value), ("username", "jose.n"), ("password", Self.password), ("password_confirmation", "something else")
                ]
            )
            #expect(incomplete.status == .unprocessableContent)
            #expect(
                incomplete.errorSummary == [
                    "Confirm these are your details, or contact your physician if they are not", "Enter the same password twice"
                ]
            )
            #expect(incomplete.text.contains(#"value="jose.n""#))
            let claimed = try await browser.post(
                SiteURL.appPatientClaimAccount.path,
                form: [
                    ("claim_token", token.value), ("confirm", "yes"), ("username", "jose.n"), ("password", Self.password),
                    ("password_confirmation", Self.password)
                ]
            )
            // validate: signed in at once, on her day; the token is used up, for the app too
            #expect(claimed.location == SiteURL.appPatientDay.path)
            #expect(try await browser.get(SiteURL.appPatientDay.path).status == .ok)
            #expect(
                try await portal.auditEntries(action: .patientAccountClaimed).contains { $0.recordID == "\(patient.id)" && $0.outcome == "success" }
            )
            var other = Visitor(portal: portal)
            try await other.get(SiteURL.appPatientClaim.path)
            #expect(
                try await other.post(SiteURL.appPatientClaim.path, form: [("claim_token", token.grouped)]).errorSummary == [PatientClaim.wrongToken]
            )
            let api = try await AppClient(portal: portal).send(.post, "/api/v1/patient/claim/check", json: ["claim_token": token.grouped])
            #expect(api.status == .unprocessableContent)
            // She signs in with what she chose.
            var later = Visitor(portal: portal)
            #expect(try await later.signInToApp(.patient, identifier: "jose.n", password: Self.password).location == SiteURL.appPatientDay.path)
        }
    }

    @Test(arguments: TestEngines.all)
    func guessingClaimTokensInTheBrowserIsPausedLikeTheApps(engine: Database.Engine) async throws {
        // The address is the proxy's `X-Forwarded-For`, as behind the deployment's load balancer.
        try await TestPortal.run(engine, configure: { $0.trustForwardedFor = true }) { portal in
            let (_, _, _, token) = try await PatientAPITests.setUp(portal)
            let from: HTTPFields = [.xForwardedFor: "203.0.113.9"]
            var browser = Visitor(portal: portal)
            try await browser.get(SiteURL.appPatientClaim.path)
            for _ in 1...SignInThrottle.registrationAddressLimit {
                let wrong = try await browser.post(SiteURL.appPatientClaim.path, form: [("claim_token", "AAAA-BBBB-CCCC-DDDD-EEEE")], headers: from)
                #expect(wrong.errorSummary == [PatientClaim.wrongToken])
            }
            // Even the right token waits now, from that address, in the browser and in the app.
            let paused = try await browser.post(SiteURL.appPatientClaim.path, form: [("claim_token", token.grouped)], headers: from)
            #expect(paused.errorSummary == ["Too many wrong tokens from this network. Wait 15 minutes, then try again."])
            #expect(!paused.text.contains("Check your details"))
            let app = try await AppClient(portal: portal).send(
                .post,
                "/api/v1/patient/claim/check",
                json: ["claim_token": token.value],
                headers: from
            )
            #expect(app.status == .tooManyRequests)
            // Another address is not held up.
            let other = try await browser.post(
                SiteURL.appPatientClaim.path,
                form: [("claim_token", token.grouped)],
                headers: [.xForwardedFor: "198.51.100.7"]
            )
            #expect(other.text.contains("Check your details"))
        }
    }
}
