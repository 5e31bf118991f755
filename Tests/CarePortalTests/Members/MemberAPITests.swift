import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct MemberRegistrationTests {
    @Test(arguments: TestEngines.all)
    func registeringUsesUpTheCodeAndJoinsTheCohortOfHerDueMonth(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let code = try await AppClient.makeCode(portal, code: "K7M4XP")
            let app = AppClient(portal: portal)
            // Typed the way people read it out: lower case, with a space and a hyphen.
            let body = AppClient.registration(code: "k7m 4-xp", pseudonym: "Hopeful_Robin", portal: portal, ["due_date": "2027-04-25", "avatar": nil])
            let response = try await app.send(.post, "/api/v1/registrations", json: body)
            #expect(response.status == .created, "\(response.text)")
            let member = try #require(response.object["member"] as? [String: Any])
            #expect(member["pseudonym"] as? String == "Hopeful_Robin")
            #expect((member["cohort"] as? [String: Any])?["name"] as? String == "Due April 2027")
            #expect((member["avatar"] as? [String: Any])?["id"] as? String == "sun", "the default avatar when none is chosen")
            #expect(response.object["token_type"] as? String == "Bearer")
            let token = try #require(response.object["token"] as? String)
            #expect(token.count >= 43, "at least 256 bits, base64url")
            #expect(!response.text.contains("Biscuit"), "the security answer is never sent back")

            let again = try await app.send(
                .post,
                "/api/v1/registrations",
                json: AppClient.registration(code: code, pseudonym: "Second", portal: portal)
            )
            #expect(again.status == .unprocessableContent)
            #expect(again.fieldErrors["sign_up_code"] == MemberAPIController.wrongCode)

            let stored = try await portal.database.read { db in
                try await SignUpCodeRepository().list(status: .used, search: "", page: .init(number: 1), now: portal.clock.now, on: db)
            }
            #expect(stored.items.count == 1)
            let id = try #require(member["id"] as? Int)
            let saved = try #require(try await portal.database.read { db in try await MemberRepository().find(id: Int64(id), on: db) })
            #expect(saved.signUpCodeID == stored.items[0].id)
            let stringsInDatabase = try await portal.database.read { db in
                try await db.raw("SELECT security_answer_hash, password_hash FROM members").first()
            }
            let answerHash = try #require(try stringsInDatabase?.decode(column: "security_answer_hash", as: String.self))
            #expect(answerHash.hasPrefix("$2"), "the answer is stored as a bcrypt hash")
        }
    }

    @Test(arguments: TestEngines.all)
    func cohortsFollowTheCalendarMonthAcrossMonthAndYearEnds(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var cohortOf: [String: String] = [:]
            for due in ["2026-12-01", "2026-12-31", "2027-01-01", "2027-01-31", "2027-02-01"] {
                let (_, member) = try await AppClient.registered(portal, ["due_date": due])
                cohortOf[due] = (member["cohort"] as? [String: Any])?["name"] as? String
            }
            #expect(cohortOf["2026-12-01"] == "Due December 2026")
            #expect(cohortOf["2026-12-31"] == "Due December 2026")
            #expect(cohortOf["2027-01-01"] == "Due January 2027")
            #expect(cohortOf["2027-01-31"] == "Due January 2027")
            #expect(cohortOf["2027-02-01"] == "Due February 2027")
            let cohorts = try await portal.database.read { db in try await MemberRepository().cohortSummaries(now: portal.clock.now, on: db) }
            #expect(cohorts.map(\.cohort.dueMonth) == ["2026-12", "2027-01", "2027-02"])
            #expect(cohorts.map(\.memberCount) == [2, 2, 1])
        }
    }

    @Test(arguments: TestEngines.all)
    func eachFieldIsCheckedWithItsOwnMessage(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let code = try await AppClient.makeCode(portal)
            let app = AppClient(portal: portal)
            let today = CalendarDate(portal.clock.now)
            let cases: [(String, Any?, String)] = [
                ("sign_up_code", "", "Enter the sign-up code you were given"),
                ("sign_up_code", "K7M", "Enter the 6-character sign-up code you were given, like K7M4XP"),
                ("sign_up_code", "K0O1IL", "Enter the 6-character sign-up code you were given, like K7M4XP"),
                ("pseudonym", nil, "Enter a pseudonym"),
                ("pseudonym", String(repeating: "a", count: 22), "Pseudonym must be 21 characters or fewer"),
                ("pseudonym", "robin hood", "Pseudonym can only contain letters, numbers, full stops (.), hyphens (-) and underscores (_)"),
                ("pseudonym", "<script>", "Pseudonym can only contain letters, numbers, full stops (.), hyphens (-) and underscores (_)"),
                ("password", "", "Enter a password"),
                ("password", "Ab1!", "Password must be 8 characters or more"),
                ("password", "pass word 12", "Password can only contain letters, numbers and the symbols ! @ # $ % ^ & *"),
                ("password", "Passwört123", "Password can only contain letters, numbers and the symbols ! @ # $ % ^ & *"),
                (
                    "password", "password1",
                    "This password is too common and easy to guess. Choose a different one, such as three or four random words"
                ),
                ("avatar", "medical-heart", "Choose one of the avatars offered"),
                ("avatar", "dragon", "Choose one of the avatars offered"),
                ("due_date", nil, "Enter your due date"),
                ("due_date", "2027-02-30", "Enter your due date as a real date, like 2027-04-25"),
                ("due_date", "25/04/2027", "Enter your due date as a real date, like 2027-04-25"),
                ("due_date", today.adding(months: 11).iso, "Due date must be within the next 10 months"),
                ("due_date", today.adding(months: -13).iso, "Due date must be within the last 12 months"),
                ("recovery_email", "", "Enter an email address"),
                ("recovery_email", "robin.example.org", "Enter an email address in the correct format, like name@example.com"),
                ("security_question", "", "Choose a security question"),
                ("security_question", "What is your mother's maiden name?", "Choose one of the security questions offered"),
                ("security_answer", "   ", "Enter the answer to your security question"),
                ("security_answer", String(repeating: "x", count: 101), "Answer must be 100 characters or fewer"),
                ("state", "Tennessee", "Choose a US state from the list, using its two-letter code, like TN"),
                ("zip_code", "3720", "Enter a ZIP code of 5 digits, like 37203"),
                ("bio", String(repeating: "b", count: 501), "Bio must be 500 characters or fewer")
            ]
            for (field, value, message) in cases {
                let body = AppClient.registration(code: code, pseudonym: "Checked", portal: portal, [field: value])
                let response = try await app.send(.post, "/api/v1/registrations", json: body)
                #expect(response.status == .unprocessableContent, "\(field)=\(String(describing: value)): \(response.status.code)")
                #expect(response.errorCode == "validation_failed")
                #expect(response.fieldErrors == [field: message], "\(field)=\(String(describing: value))")
            }
            // Nothing was made and the code still works.
            #expect(try await portal.database.read { db in try await MemberRepository().count(on: db) } == 0)
            let good = try await app.send(
                .post,
                "/api/v1/registrations",
                json: AppClient.registration(code: code, pseudonym: "Checked", portal: portal)
            )
            #expect(good.status == .created)
        }
    }

    @Test(arguments: TestEngines.all)
    func malformedBodiesAreRefusedInTheOneErrorShape(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let app = AppClient(portal: portal)
            for raw in ["not json", "[1,2]", #"{"pseudonym": 12}"#] {
                let response = try await app.send(.post, "/api/v1/registrations", raw: raw)
                #expect(response.status == .badRequest, "\(raw)")
                #expect(response.errorCode == "invalid_request")
                #expect(response.error["message"] is String)
                #expect(response.error["fields"] is [String: String])
            }
            let missing = try await app.get("/api/v1/no-such-thing")
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "not_found")
        }
    }

    @Test(arguments: TestEngines.all)
    func aTakenPseudonymIsAConflictWhateverItsCase(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await AppClient.registered(portal, pseudonym: "RobinHope")
            let code = try await AppClient.makeCode(portal)
            let response = try await AppClient(portal: portal).send(
                .post,
                "/api/v1/registrations",
                json: AppClient.registration(code: code, pseudonym: "robinhope", portal: portal)
            )
            #expect(response.status == .conflict)
            #expect(response.errorCode == "pseudonym_taken")
            #expect(response.fieldErrors["pseudonym"] == "That pseudonym is already taken. Choose another")
            // The code was not used up by the refused attempt.
            let retry = try await AppClient(portal: portal).send(
                .post,
                "/api/v1/registrations",
                json: AppClient.registration(code: code, pseudonym: "RobinHope2", portal: portal)
            )
            #expect(retry.status == .created)
        }
    }

    @Test(arguments: TestEngines.all)
    func expiredAndRevokedCodesCannotBeUsed(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let expiring = try await AppClient.makeCode(portal, lifetime: 30 * 86_400)
            let revoked = try await AppClient.makeCode(portal)
            let admin = try await portal.createStaff(.administrator, username: "revoker")
            try await portal.database.transaction { db in
                let all = try await SignUpCodeRepository().list(status: nil, search: "", page: .init(number: 1), now: portal.clock.now, on: db)
                _ = try await SignUpCodeRepository().revoke(id: all.items[0].id, by: admin.id, now: portal.clock.now, on: db)
            }
            portal.clock.advance(by: 30 * 86_400 + 1)
            for code in [expiring, revoked] {
                let response = try await AppClient(portal: portal).send(
                    .post,
                    "/api/v1/registrations",
                    json: AppClient.registration(code: code, pseudonym: "Late", portal: portal)
                )
                #expect(response.status == .unprocessableContent)
                #expect(response.fieldErrors["sign_up_code"] == MemberAPIController.wrongCode)
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func guessingCodesIsThrottledPerCodeAndPerAddress(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.trustForwardedFor = true }) { portal in
            let real = try await AppClient.makeCode(portal)
            func attempt(_ code: String, from address: String) async throws -> AppResponse {
                try await AppClient(portal: portal).send(
                    .post,
                    "/api/v1/registrations",
                    json: AppClient.registration(code: code, pseudonym: "Guesser", portal: portal),
                    headers: [.xForwardedFor: address]
                )
            }
            // Ten wrong codes from one address pause that address, even for a real code.
            for index in 0..<SignInThrottle.registrationAddressLimit {
                let wrong = String(repeating: "ABCDEFGHJK".map(String.init)[index], count: 6)
                #expect(try await attempt(wrong, from: "192.0.2.10").status == .unprocessableContent)
            }
            let paused = try await attempt(real, from: "192.0.2.10")
            #expect(paused.status == .tooManyRequests)
            #expect(paused.errorCode == "too_many_attempts")
            let retryAfter = try #require(paused.headers[.retryAfter].flatMap(Int.init))
            #expect(retryAfter > 0 && retryAfter <= 15 * 60)

            // Five tries of one code from different addresses pause that code.
            for index in 0..<SignInThrottle.signUpCodeLimit {
                #expect(try await attempt("ZZZZZZ", from: "198.51.100.\(index)").status == .unprocessableContent)
            }
            #expect(try await attempt("ZZZZZZ", from: "198.51.100.99").status == .tooManyRequests)

            // Another address with the real code is not held up, and the pause ends.
            #expect(try await attempt(real, from: "203.0.113.5").status == .created)
            portal.clock.advance(by: 15 * 60 + 1)
            #expect(try await attempt("YYYYYY", from: "192.0.2.10").status == .unprocessableContent)
        }
    }
}

@Suite struct MemberSignInTests {
    @Test(arguments: TestEngines.all)
    func signInGivesATokenAndSignOutEndsIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await AppClient.registered(portal, pseudonym: "Wren")
            let app = AppClient(portal: portal)
            let wrong = try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Wren", "password": "Wrong#pass1"])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.errorCode == "invalid_credentials")
            let unknown = try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Nobody", "password": "Wrong#pass1"])
            #expect(unknown.error["message"] as? String == wrong.error["message"] as? String, "no hint that a pseudonym exists")
            let empty = try await app.send(.post, "/api/v1/sessions", json: [:])
            #expect(empty.fieldErrors == ["pseudonym": "Enter your pseudonym", "password": "Enter your password"])

            let signedIn = try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "wren", "password": "Sunrise#2027"])
            #expect(signedIn.status == .created)
            let member = AppClient(portal: portal, token: try #require(signedIn.object["token"] as? String))
            let me = try await member.get("/api/v1/me")
            #expect(me.status == .ok)
            #expect(me.object["pseudonym"] as? String == "Wren")
            #expect(try await member.send(.delete, "/api/v1/sessions/current").status == .noContent)
            #expect(try await member.get("/api/v1/me").status == .unauthorized)

            let history = try await portal.database.read { db in
                try await MemberRepository().signIns(memberID: Int64(me.object["id"] as? Int ?? 0), on: db).map(\.kind)
            }
            #expect(history == [.signIn, .failed, .registered])
            let audits = try await portal.auditEntries(action: .signIn).filter { $0.actorRole == "member" }
            #expect(audits.map(\.outcome).sorted() == ["failure", "failure", "success"])
        }
    }

    @Test(arguments: TestEngines.all)
    func fiveWrongPasswordsPauseSignIn(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await AppClient.registered(portal, pseudonym: "Lark")
            let app = AppClient(portal: portal)
            for _ in 0..<SignInThrottle.accountLimit {
                #expect(try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Lark", "password": "Wrong#pass1"]).status == .unauthorized)
            }
            let paused = try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Lark", "password": "Sunrise#2027"])
            #expect(paused.status == .tooManyRequests)
            #expect(paused.headers[.retryAfter] != nil)
            portal.clock.advance(by: SignInThrottle.pause + 1)
            #expect(try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Lark", "password": "Sunrise#2027"]).status == .created)
        }
    }

    @Test(arguments: TestEngines.all)
    func tokensLapseWhenUnusedAndRenewWithUseUpToTheirLifetime(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (idle, _) = try await AppClient.registered(portal)
            let (busy, _) = try await AppClient.registered(portal)
            // Used every six days, a token outlives the seven-day idle limit...
            for _ in 0..<4 {
                portal.clock.advance(by: 6 * 86_400)
                #expect(try await busy.get("/api/v1/me").status == .ok)
            }
            // ...while one left alone for seven days has lapsed.
            #expect(try await idle.get("/api/v1/me").status == .unauthorized)
            // No token lives beyond thirty days from sign-in, however often it is used.
            portal.clock.advance(by: 5 * 86_400)
            #expect(try await busy.get("/api/v1/me").status == .ok)
            portal.clock.advance(by: 1 * 86_400 + 1)
            #expect(try await busy.get("/api/v1/me").status == .unauthorized)
        }
    }

    @Test(arguments: TestEngines.all)
    func disablingAMemberRevokesEveryTokenAtOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (phone, member) = try await AppClient.registered(portal, pseudonym: "Finch")
            let tablet = AppClient(
                portal: portal,
                token: try await AppClient(portal: portal)
                    .send(.post, "/api/v1/sessions", json: ["pseudonym": "Finch", "password": "Sunrise#2027"]).object["token"] as? String
            )
            #expect(try await tablet.get("/api/v1/me").status == .ok)
            let id = Int64(try #require(member["id"] as? Int))
            try await portal.database.transaction { db in
                try await MemberRepository().setStatus(id: id, .disabled, now: portal.clock.now, on: db)
            }
            #expect(try await phone.get("/api/v1/me").status == .unauthorized)
            #expect(try await tablet.get("/api/v1/me").status == .unauthorized)
            let signIn = try await AppClient(portal: portal).send(.post, "/api/v1/sessions", json: ["pseudonym": "Finch", "password": "Sunrise#2027"])
            #expect(signIn.status == .forbidden)
            #expect(signIn.errorCode == "account_disabled")
        }
    }
}

@Suite struct MemberRecoveryTests {
    @Test(arguments: TestEngines.all)
    func theRightEmailAndAnswerSetANewPasswordAndSignOutEverywhere(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (phone, _) = try await AppClient.registered(portal, pseudonym: "Heron", ["recovery_email": "Heron.Mail@Example.org"])
            let app = AppClient(portal: portal)
            let wrong = try await app.send(
                .post,
                "/api/v1/account-recovery",
                json: [
                    "recovery_email": "heron.mail@example.org", "security_answer": "Rex", "new_password": "Evening#2027"
                ]
            )
            #expect(wrong.status == .unauthorized)
            #expect(wrong.errorCode == "recovery_failed")
            #expect(try await phone.get("/api/v1/me").status == .ok, "a failed attempt changes nothing")

            // Case and extra spaces in the answer and email do not matter.
            let right = try await app.send(
                .post,
                "/api/v1/account-recovery",
                json: [
                    "recovery_email": "HERON.MAIL@example.org", "security_answer": "  bIScuit ", "new_password": "Evening#2027"
                ]
            )
            #expect(right.status == .noContent, "\(right.text)")
            #expect(try await phone.get("/api/v1/me").status == .unauthorized, "every old token is revoked")
            #expect(try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Heron", "password": "Sunrise#2027"]).status == .unauthorized)
            #expect(try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "Heron", "password": "Evening#2027"]).status == .created)
            let audits = try await portal.auditEntries(action: .memberRecovered)
            #expect(audits.map(\.outcome).sorted() == ["failure", "success"])
        }
    }

    @Test(arguments: TestEngines.all)
    func recoveryIsThrottledAndChecked(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await AppClient.registered(portal, pseudonym: "Egret", ["recovery_email": "egret@example.org"])
            let app = AppClient(portal: portal)
            let invalid = try await app.send(
                .post,
                "/api/v1/account-recovery",
                json: ["recovery_email": "nope", "security_answer": "", "new_password": "short"]
            )
            #expect(
                invalid.fieldErrors == [
                    "recovery_email": "Enter an email address in the correct format, like name@example.com",
                    "security_answer": "Enter the answer to your security question",
                    "new_password": "Password must be 8 characters or more"
                ]
            )
            for _ in 0..<SignInThrottle.accountLimit {
                let response = try await app.send(
                    .post,
                    "/api/v1/account-recovery",
                    json: [
                        "recovery_email": "egret@example.org", "security_answer": "guess", "new_password": "Evening#2027"
                    ]
                )
                #expect(response.status == .unauthorized)
            }
            let paused = try await app.send(
                .post,
                "/api/v1/account-recovery",
                json: [
                    "recovery_email": "egret@example.org", "security_answer": "Biscuit", "new_password": "Evening#2027"
                ]
            )
            #expect(paused.status == .tooManyRequests)
        }
    }
}

@Suite struct MemberProfileTests {
    @Test(arguments: TestEngines.all)
    func sheChangesWhatSheMayAndNeverHerPseudonym(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, _) = try await AppClient.registered(portal, pseudonym: "Plover")
            let changed = try await app.send(
                .patch,
                "/api/v1/me",
                json: [
                    "pseudonym": "Someone_Else", "avatar": "bird", "recovery_email": "new@example.org", "state": "ky", "zip_code": "40202",
                    "bio": "Fourteen months clean."
                ]
            )
            #expect(changed.status == .ok, "\(changed.text)")
            #expect(changed.object["pseudonym"] as? String == "Plover")
            #expect((changed.object["avatar"] as? [String: Any])?["id"] as? String == "bird")
            #expect(changed.object["recovery_email"] as? String == "new@example.org")
            #expect(changed.object["state"] as? String == "KY")
            #expect(changed.object["bio"] as? String == "Fourteen months clean.")

            let cleared = try await app.send(.patch, "/api/v1/me", json: ["state": "", "zip_code": "", "bio": ""])
            #expect(cleared.object["state"] == nil)
            #expect(cleared.object["zip_code"] == nil)
            #expect(cleared.object["bio"] as? String == "")

            let bad = try await app.send(
                .patch,
                "/api/v1/me",
                json: ["avatar": "medical-star", "recovery_email": "x", "bio": String(repeating: "b", count: 501)]
            )
            #expect(bad.status == .unprocessableContent)
            #expect(Set(bad.fieldErrors.keys) == ["avatar", "recovery_email", "bio"])
            #expect(try await app.get("/api/v1/me").object["recovery_email"] as? String == "new@example.org", "a refused change changes nothing")
        }
    }

    @Test(arguments: TestEngines.all)
    func changingThePasswordNeedsTheCurrentOneAndSignsOutOtherDevices(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (phone, _) = try await AppClient.registered(portal, pseudonym: "Curlew")
            let tablet = AppClient(
                portal: portal,
                token: try await AppClient(portal: portal)
                    .send(.post, "/api/v1/sessions", json: ["pseudonym": "Curlew", "password": "Sunrise#2027"]).object["token"] as? String
            )
            let wrong = try await phone.send(.post, "/api/v1/me/password", json: ["current_password": "Nope#1234", "new_password": "Evening#2027"])
            #expect(wrong.fieldErrors == ["current_password": "Your current password is not right"])
            let right = try await phone.send(.post, "/api/v1/me/password", json: ["current_password": "Sunrise#2027", "new_password": "Evening#2027"])
            #expect(right.status == .noContent)
            #expect(try await phone.get("/api/v1/me").status == .ok)
            #expect(try await tablet.get("/api/v1/me").status == .unauthorized)
        }
    }

    @Test(arguments: TestEngines.all)
    func othersSeeOnlyThePublicProfileAndSheSeesTheDeletionNumber(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var settings = portal.portal.programSettings.current
            settings.deletionPhone = "615-555-0134"
            try await portal.database.transaction { db in try await portal.portal.programSettings.save(settings, now: portal.clock.now, on: db) }
            portal.portal.programSettings.adopt(settings)

            let (reader, _) = try await AppClient.registered(portal)
            let (writer, profile) = try await AppClient.registered(portal, pseudonym: "Sandpiper", ["bio": "<b>hello</b>"])
            let own = try await writer.get("/api/v1/me")
            #expect((own.object["deletion"] as? [String: Any])?["phone"] as? String == "615-555-0134")
            let seen = try await reader.get("/api/v1/members/\(try #require(profile["id"] as? Int))")
            #expect(seen.status == .ok)
            #expect(Set(seen.object.keys) == ["id", "pseudonym", "avatar", "bio", "cohort"])
            #expect(seen.object["bio"] as? String == "<b>hello</b>", "plain text, returned as typed for the app to show as text")
            #expect(!seen.text.contains("example.org") && !seen.text.contains("security"))
            #expect(try await reader.get("/api/v1/members/999999").status == .notFound)
            let program = try await AppClient(portal: portal).get("/api/v1/program")
            #expect(program.object["deletion_phone"] as? String == "615-555-0134")
            #expect((program.object["security_questions"] as? [String])?.count == 5)
        }
    }

    @Test(arguments: TestEngines.all)
    func aMedicalProfessionalsPublicProfileShowsNoRealNameOrBirthDate(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let nurse = try await portal.createStaff(.medicalProfessional, username: "nurse.amira")
            try await portal.database.transaction { db in
                try await StaffProfileRepository().create(
                    StaffProfile(
                        firstName: "Amira",
                        lastName: "Haddad",
                        dateOfBirth: CalendarDate(year: 1984, month: 2, day: 11)!,
                        avatar: Avatar.medical("medical-leaf")!,
                        bio: "Midwife, 12 years in addiction care."
                    ),
                    accountID: nurse.id,
                    on: db
                )
            }
            let physician = try await portal.createStaff(.physician, username: "dr.who")
            let (app, _) = try await AppClient.registered(portal)
            let profile = try await app.get("/api/v1/staff/\(nurse.id)")
            #expect(profile.status == .ok)
            #expect(profile.object["display_name"] as? String == "nurse.amira")
            #expect(profile.object["bio"] as? String == "Midwife, 12 years in addiction care.")
            #expect((profile.object["avatar"] as? [String: Any])?["medical"] as? Bool == true)
            #expect(!profile.text.contains("Amira\"") && !profile.text.contains("Haddad") && !profile.text.contains("1984"))
            #expect(try await app.get("/api/v1/staff/\(physician.id)").status == .notFound)
            #expect(try await AppClient(portal: portal).get("/api/v1/staff/\(nurse.id)").status == .unauthorized)
        }
    }
}
