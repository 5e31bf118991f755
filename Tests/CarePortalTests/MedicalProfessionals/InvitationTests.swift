import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The test clock starts on 18 November 2026 at 11:06:40 UTC.
@Suite struct InvitationTests {
    static let password = "quiet river morning walk"

    @Test func aMedicalProfessionalIsInvitedOnlyWhenEighteenOrOlder() throws {
        let today = try #require(CalendarDate(year: 2026, month: 12, day: 7))
        var form = InvitationForm(
            first_name: " Ana ",
            last_name: "Silva",
            date_of_birth_day: "8",
            date_of_birth_month: "12",
            date_of_birth_year: "2008",
            email: "ana@example.org"
        )
        let young = form.validated(today: today)
        #expect(young.invitee == nil)
        #expect(young.dateProblem?.message.contains("must be 18 or older") == true)
        form.date_of_birth_day = "7"
        let invitee = try #require(form.validated(today: today).invitee)
        #expect(invitee.firstName == "Ana")
        #expect(invitee.role == .medicalProfessional)
        #expect(invitee.dateOfBirth == CalendarDate(year: 2008, month: 12, day: 7))
    }

    @Test func theStaffFormAsksForARoleAndNoDateOfBirthForOtherRoles() throws {
        let today = try #require(CalendarDate(year: 2026, month: 12, day: 7))
        var form = InvitationForm(role_shown: "1", first_name: "Sam", last_name: "Okafor", email: "sam@example.org")
        #expect(form.validated(today: today).errors["role"] == "Select the role they will have")
        form.role = "pharmacist"
        let invitee = try #require(form.validated(today: today).invitee)
        #expect(invitee.role == .pharmacist)
        #expect(invitee.dateOfBirth == nil)
    }

    static func inviteForm(
        first: String = "Amira",
        last: String = "Haddad",
        day: String = "11",
        month: String = "2",
        year: String = "1984",
        email: String = "amira.haddad@example.org"
    ) -> [(String, String)] {
        [
            ("first_name", first), ("last_name", last), ("date_of_birth_day", day), ("date_of_birth_month", month),
            ("date_of_birth_year", year), ("email", email)
        ]
    }

    static func acceptForm(
        token: String,
        username: String = "nurse.amira",
        password: String = InvitationTests.password,
        confirmation: String? = nil,
        avatar: String = "medical-star",
        bio: String = "Parkinson's nurse for 12 years."
    ) -> [(String, String)] {
        [
            ("token", token), ("username", username), ("password", password), ("password_confirmation", confirmation ?? password),
            ("avatar", avatar), ("bio", bio)
        ]
    }

    /// Every email in the outbox, oldest first.
    static func mail(_ portal: TestPortal) async throws -> [OutboxMessage] {
        try await portal.outboxMessages()
    }

    /// The token in the link of an invitation email.
    static func token(in message: OutboxMessage) throws -> String {
        let prefix = "\(TestPortal.baseURL)/invitation?token="
        let line = try #require(message.bodyText.split(separator: "\n").first { $0.hasPrefix(prefix) }, "no invitation link in the email")
        return String(line.dropFirst(prefix.count))
    }

    /// An administrator invites Amira Haddad; returns the administrator's browser and the token emailed to her.
    static func invite(_ portal: TestPortal, form: [(String, String)] = inviteForm()) async throws -> (Visitor, String) {
        var (admin, _) = try await portal.signedIn(.administrator)
        try await admin.get("/medical-professionals/invite")
        let response = try await admin.post("/medical-professionals/invite", form: form)
        let message = try #require(try await mail(portal).last)
        let token = try token(in: message)
        if portal.portal.deliversMail {
            #expect(response.status == .seeOther, "the invitation was not sent: \(response.text)")
        } else {
            // No mail server: the link is shown once, to the administrator.
            #expect(response.status == .ok && response.text.contains("invitation?token=\(token)<"), "the link was not shown: \(response.text)")
        }
        return (admin, token)
    }

    /// Opens the link in a new browser and sets up the account.
    static func accept(_ portal: TestPortal, token: String, form: [(String, String)]? = nil) async throws -> (Visitor, TestResponse) {
        var visitor = Visitor(portal: portal)
        try await visitor.get("/invitation?token=\(token)")
        let response = try await visitor.post("/invitation", form: form ?? acceptForm(token: token))
        return (visitor, response)
    }

    static func medicalProfessionalCount(_ portal: TestPortal) async throws -> Int {
        var query = StaffListQuery()
        query.role = .medicalProfessional
        return try await portal.database.read { [query] db in try await StaffAccountRepository().list(query, on: db).totalCount }
    }

    static func profileCount(_ portal: TestPortal) async throws -> Int {
        try await portal.database.read { db in
            try await db.raw("SELECT COUNT(*) AS count FROM staff_profiles").first()?.decode(column: "count", as: Int.self) ?? 0
        }
    }

    @Test(arguments: TestEngines.all)
    func anInvitedMedicalProfessionalSetsUpTheirAccountFromTheEmailedLinkAndLandsSignedIn(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            // setup
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/medical-professionals/invite")

            // MUT: the administrator invites
            let sent = try await admin.post("/medical-professionals/invite", form: Self.inviteForm())
            #expect(sent.status == .seeOther)
            #expect(sent.location == "/medical-professionals")
            let list = try await admin.get("/medical-professionals")
            #expect(list.text.contains("An invitation has been sent to Amira Haddad at amira.haddad@example.org"))
            #expect(list.text.contains("<td class=\"table__cell\">Amira Haddad</td>"))
            #expect(list.text.contains("Waiting"))
            #expect(list.text.contains("25 Nov 2026, 06:06 EST"), "expires 7 days after sending")

            // validate: one plain-text email to her, addressed by first name, with the link and its expiry
            let messages = try await Self.mail(portal)
            #expect(messages.count == 1)
            let message = try #require(messages.first)
            #expect(message.recipient == "amira.haddad@example.org")
            #expect(message.subject == "Your invitation to CarePortal")
            #expect(message.bodyText.hasPrefix("Hello Amira,\n"))
            #expect(message.bodyText.contains("until 25 Nov 2026, 06:06 EST"))
            #expect(message.bodyText.hasSuffix("\nCarePortal"))
            let token = try Self.token(in: message)
            #expect(token.count == 43, "256 random bits, base64url")

            // Only the token's hash is stored.
            let rows = try await portal.database.read { db in try await db.raw("SELECT * FROM staff_invitations").all() }
            #expect(rows.count == 1)
            for column in try #require(rows.first).allColumns {
                let value = (try? rows[0].decode(column: column, as: String?.self)) ?? nil
                #expect(value?.contains(token) != true, "column \(column) holds the token")
            }
            #expect(try rows[0].decode(column: "token_hash", as: String.self) == SecretToken.hash(token))

            // MUT: she opens the link without being signed in, and sets up the account
            var amira = Visitor(portal: portal)
            let form = try await amira.get("/invitation?token=\(token)")
            #expect(form.status == .ok)
            #expect(form.text.contains("Hello Amira."))
            #expect(form.text.contains(#"<input type="hidden" name="token" value="\#(token)">"#))
            for avatar in Avatar.medicalSet {
                #expect(form.text.contains(#"value="\#(avatar.id)""#))
                #expect(form.text.contains(#"<img class="avatar-choice__image" src="\#(avatar.path)" alt="""#))
                #expect(form.text.contains(avatar.name))
            }
            for avatar in Avatar.memberSet { #expect(!form.text.contains(avatar.path), "member avatar \(avatar.id) offered") }
            let accepted = try await amira.post("/invitation", form: Self.acceptForm(token: token))
            #expect(accepted.status == .seeOther)
            #expect(accepted.location == SiteURL.desk.path)

            // Signed in as a medical professional, on the information desk.
            let home = try await amira.get(SiteURL.desk.path)
            #expect(home.status == .ok)
            #expect(home.text.contains("Signed in as <strong>nurse.amira</strong> (Medical professional)"))
            #expect(home.text.contains("Your account is ready. You are signed in as nurse.amira."))

            let account = try #require(
                try await portal.database.read { db in
                    try await StaffAccountRepository().credentials(username: "nurse.amira", on: db)
                }?.account
            )
            #expect(account.role == .medicalProfessional)
            #expect(account.status == .active)
            #expect(account.email == "amira.haddad@example.org")
            let profile = try #require(
                try await portal.database.read { db in try await StaffProfileRepository().find(accountID: account.id, on: db) }
            )
            #expect(
                profile
                    == StaffProfile(
                        firstName: "Amira",
                        lastName: "Haddad",
                        dateOfBirth: CalendarDate(year: 1984, month: 2, day: 11)!,
                        avatar: Avatar.medical("medical-star")!,
                        bio: "Parkinson's nurse for 12 years."
                    )
            )
            let invitation = try #require(try await portal.database.read { db in try await StaffInvitationRepository().find(id: 1, on: db) })
            #expect(invitation.acceptedAt == portal.clock.now)
            #expect(invitation.accountID == account.id)
            #expect(invitation.status(at: portal.clock.now) == .accepted)

            let acceptances = try await portal.auditEntries(action: .invitationAccepted)
            #expect(acceptances.count == 1)
            #expect(acceptances.first?.actorAccountID == account.id)
            #expect(acceptances.first?.recordID == "\(invitation.id)")
            #expect(try await portal.auditEntries(action: .invitationSent).count == 1)

            // The link no longer works.
            var later = Visitor(portal: portal)
            let reopened = try await later.get("/invitation?token=\(token)")
            #expect(reopened.status == .notFound)
            #expect(reopened.text.contains("This invitation link cannot be used"))
            #expect(reopened.text.contains("Ask an administrator to send you a new invitation."))

            // The administrator now sees the account, not the invitation.
            let after = try await admin.get("/medical-professionals")
            #expect(after.text.contains(#"<a class="link" href="/staff/\#(account.id)">nurse.amira</a>"#))
            #expect(after.text.contains("No invitations are waiting."))
        }
    }

    @Test(arguments: TestEngines.all)
    func theInviteFormExplainsEachProblemBesideItsFieldAndKeepsWhatWasTyped(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/medical-professionals/invite")

            let empty = try await admin.post(
                "/medical-professionals/invite",
                form: Self.inviteForm(first: "", last: "", day: "", month: "", year: "", email: "")
            )
            #expect(empty.status == .unprocessableContent)
            for (anchor, message) in [
                ("first_name", "Enter their first name"), ("last_name", "Enter their last name"),
                ("date_of_birth_day", "Enter their date of birth"), ("email", "Enter an email address")
            ] {
                #expect(empty.text.contains(##"<li><a href="#\##(anchor)">\##(message)</a></li>"##), "summary lacks \(message)")
                #expect(empty.text.contains("<span class=\"visually-hidden\">Error:</span> \(message)</p>"), "no message beside \(anchor)")
            }
            #expect(empty.text.contains("<title>Error: Invite a medical professional"))

            let cases: [(day: String, month: String, year: String, anchor: String, message: String)] = [
                ("", "3", "1980", "date_of_birth_day", "Date of birth must include a day"),
                ("27", "", "", "date_of_birth_month", "Date of birth must include a month and year"),
                ("31", "4", "1980", "date_of_birth_day", "Date of birth must be a real date"),
                ("29", "2", "1981", "date_of_birth_day", "Date of birth must be a real date"),
                ("27", "13", "1980", "date_of_birth_month", "Date of birth must be a real date"),
                ("2x", "3", "1980", "date_of_birth_day", "Date of birth must be a real date"),
                ("27", "3", "80", "date_of_birth_year", "Year must include 4 numbers"),
                ("18", "11", "2026", "date_of_birth_day", "Date of birth must be in the past"),
                (
                    "19", "11", "2008", "date_of_birth_day",
                    "Date of birth must be on or before 18 November 2008, as a medical professional must be 18 or older"
                ),
                ("18", "11", "1925", "date_of_birth_day", "Date of birth must be on or after 19 November 1925. Check the year")
            ]
            for entry in cases {
                let response = try await admin.post(
                    "/medical-professionals/invite",
                    form: Self.inviteForm(
                        first: "Amira",
                        last: "Haddad",
                        day: entry.day,
                        month: entry.month,
                        year: entry.year,
                        email: "amira.haddad@example.org"
                    )
                )
                let label = "\(entry.day)/\(entry.month)/\(entry.year)"
                #expect(response.status == .unprocessableContent, "\(label) was accepted")
                #expect(response.text.contains(##"<li><a href="#\##(entry.anchor)">\##(entry.message)</a></li>"##), "\(label): no \(entry.message)")
                #expect(response.text.contains(#"<p class="error-message" id="date_of_birth-error">"#))
                #expect(response.text.contains(#"id="\#(entry.anchor)" name="\#(entry.anchor)" type="text" inputmode="numeric""#))
                #expect(response.text.contains(#"value="Amira""#) && response.text.contains(#"value="amira.haddad@example.org""#))
                for (part, value) in [("day", entry.day), ("month", entry.month), ("year", entry.year)] {
                    #expect(response.text.contains(#"name="date_of_birth_\#(part)" type="text" inputmode="numeric" value="\#(value)""#))
                }
            }

            let badEmail = try await admin.post("/medical-professionals/invite", form: Self.inviteForm(email: "amira.example.org"))
            #expect(badEmail.status == .unprocessableContent)
            #expect(badEmail.text.contains("Enter an email address in the correct format, like name@example.com"))
            #expect(badEmail.text.contains(#"value="amira.example.org""#))
            let longName = String(repeating: "a", count: 101)
            let tooLong = try await admin.post("/medical-professionals/invite", form: Self.inviteForm(first: longName))
            #expect(tooLong.text.contains("Their first name must be 100 characters or fewer"))

            #expect(try await portal.database.read { db in try await StaffInvitationRepository().open(on: db) }.isEmpty)
            #expect(try await Self.mail(portal).isEmpty)

            // The oldest and youngest ages accepted: 100 (101 tomorrow) and 18 today.
            let oldest = try await admin.post(
                "/medical-professionals/invite",
                form: Self.inviteForm(day: "19", month: "11", year: "1925", email: "oldest@example.org")
            )
            #expect(oldest.status == .seeOther)
            let youngest = try await admin.post(
                "/medical-professionals/invite",
                form: Self.inviteForm(day: "18", month: "11", year: "2008", email: "youngest@example.org")
            )
            #expect(youngest.status == .seeOther)

            // A second invitation to an address with one open is refused, whatever the case of its letters.
            let again = try await admin.post("/medical-professionals/invite", form: Self.inviteForm(email: "Oldest@Example.org"))
            #expect(again.status == .unprocessableContent)
            #expect(
                again.text.contains(
                    "An invitation to this email address is already open. Send it again or revoke it from the list of medical professionals"
                )
            )
            #expect(try await portal.database.read { db in try await StaffInvitationRepository().open(on: db) }.count == 2)
            #expect(try await Self.mail(portal).count == 2)
        }
    }

    @Test(arguments: TestEngines.all)
    func theAcceptFormExplainsEachProblemAndKeepsWhatWasTyped(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, token) = try await Self.invite(portal)
            try await portal.createStaff(.physician, username: "taken.name")
            var amira = Visitor(portal: portal)
            try await amira.get("/invitation?token=\(token)")

            let empty = try await amira.post("/invitation", form: [("token", token)])
            #expect(empty.status == .unprocessableContent)
            for (anchor, message) in [("username", "Enter a username"), ("password", "Enter a password"), ("avatar", "Select an avatar")] {
                #expect(empty.text.contains(##"<li><a href="#\##(anchor)">\##(message)</a></li>"##), "summary lacks \(message)")
                #expect(empty.text.contains("<span class=\"visually-hidden\">Error:</span> \(message)</p>"), "no message beside \(anchor)")
            }
            #expect(empty.text.contains(#"<input class="radio__input" id="avatar" name="avatar" type="radio""#), "the summary's link has a target")

            let cases: [([(String, String)], String, String)] = [
                (Self.acceptForm(token: token, username: String(repeating: "n", count: 22)), "username", "Username must be 21 characters or fewer"),
                (
                    Self.acceptForm(token: token, username: "nurse amira"), "username",
                    "Username can only contain letters, numbers, full stops (.), hyphens (-) and underscores (_)"
                ),
                (Self.acceptForm(token: token, password: "short"), "password", "Password must be 8 characters or more"),
                (
                    Self.acceptForm(token: token, password: "password"), "password",
                    "This password is too common and easy to guess. Choose a different one, such as three or four random words"
                ),
                (Self.acceptForm(token: token, confirmation: "quiet river morning wal"), "password_confirmation", "The passwords do not match"),
                (Self.acceptForm(token: token, avatar: "sun"), "avatar", "Select an avatar"),
                (Self.acceptForm(token: token, bio: String(repeating: "b", count: 501)), "bio", "Bio must be 500 characters or fewer"),
                (Self.acceptForm(token: token, username: "Taken.Name"), "username", "That username is already taken. Choose another one")
            ]
            for (form, anchor, message) in cases {
                let response = try await amira.post("/invitation", form: form)
                #expect(response.status == .unprocessableContent, "accepted despite: \(message)")
                #expect(response.text.contains(##"<li><a href="#\##(anchor)">\##(message)</a></li>"##), "summary lacks \(message)")
                #expect(response.text.contains("<span class=\"visually-hidden\">Error:</span> \(message)</p>"), "no message beside \(anchor)")
                #expect(response.text.contains(#"<input type="hidden" name="token" value="\#(token)">"#))
                #expect(!response.text.contains(Self.password), "a password was sent back")
            }

            let kept = try await amira.post(
                "/invitation",
                form: Self.acceptForm(
                    token: token,
                    username: "nurse.amira",
                    confirmation: "something else",
                    avatar: "medical-sun",
                    bio: "Line one\r\nLine two"
                )
            )
            #expect(kept.text.contains(#"value="nurse.amira""#))
            #expect(kept.text.contains(#"value="medical-sun" checked"#))
            #expect(kept.text.contains(">Line one\nLine two</textarea>"))

            // A bio of exactly 500 characters, counting a line break as one, is accepted.
            let bio = String(repeating: "b", count: 249) + "\r\n" + String(repeating: "c", count: 250)
            #expect(try await Self.medicalProfessionalCount(portal) == 0)
            let accepted = try await amira.post("/invitation", form: Self.acceptForm(token: token, bio: bio))
            #expect(accepted.status == .seeOther)
            let profile = try await portal.database.read { db -> StaffProfile? in
                guard let account = try await StaffAccountRepository().credentials(username: "nurse.amira", on: db)?.account else { return nil }
                return try await StaffProfileRepository().find(accountID: account.id, on: db)
            }
            #expect(profile?.bio.count == 500)
        }
    }

    @Test(arguments: TestEngines.all)
    func anInvitationLinkStopsWorkingSevenDaysAfterItWasSent(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, token) = try await Self.invite(portal)
            portal.clock.advance(by: 7 * 86_400 - 1)
            var amira = Visitor(portal: portal)
            #expect(try await amira.get("/invitation?token=\(token)").status == .ok)

            portal.clock.advance(by: 1)
            let expired = try await amira.get("/invitation?token=\(token)")
            #expect(expired.status == .notFound)
            #expect(expired.text.contains("This invitation link cannot be used"))
            // A form opened in time but sent too late is refused as well.
            let late = try await amira.post("/invitation", form: Self.acceptForm(token: token))
            #expect(late.status == .notFound)
            #expect(late.text.contains("This invitation link cannot be used"))
            #expect(try await Self.medicalProfessionalCount(portal) == 0)

            // The administrator's session has long ended; a fresh one sees the invitation as expired.
            var (admin, _) = try await portal.signedIn(.administrator)
            let list = try await admin.get("/medical-professionals")
            #expect(list.text.contains(#"<strong class="tag tag--grey">Expired</strong>"#))
        }
    }

    @Test(arguments: TestEngines.all)
    func aLinkMakesOneAccountEvenWhenItsFormIsSentTwice(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, token) = try await Self.invite(portal)
            var firstTab = Visitor(portal: portal)
            var secondTab = Visitor(portal: portal)
            try await firstTab.get("/invitation?token=\(token)")
            try await secondTab.get("/invitation?token=\(token)")

            let first = try await firstTab.post("/invitation", form: Self.acceptForm(token: token, username: "nurse.amira"))
            let second = try await secondTab.post("/invitation", form: Self.acceptForm(token: token, username: "amira.h"))

            #expect(first.status == .seeOther)
            #expect(second.status == .notFound)
            #expect(second.text.contains("This invitation link cannot be used"))
            #expect(try await Self.medicalProfessionalCount(portal) == 1)
            #expect(try await Self.profileCount(portal) == 1)
            #expect(try await portal.auditEntries(action: .invitationAccepted).count == 1)

            // The conditional update itself refuses a second acceptance.
            let again = try await portal.database.transaction { db in
                try await StaffInvitationRepository().accept(token: token, now: portal.clock.now, on: db)
            }
            #expect(again == nil)
        }
    }

    @Test(arguments: TestEngines.all)
    func resendingSendsANewLinkForSevenMoreDaysAndTheOldLinkStopsWorking(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            let (_, oldToken) = try await Self.invite(portal)
            portal.clock.advance(by: 6 * 86_400)
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/medical-professionals")

            let resent = try await admin.post("/medical-professionals/invitations/1/resend")
            #expect(resent.location == "/medical-professionals")
            let list = try await admin.get("/medical-professionals")
            #expect(
                list.text.contains(
                    "A new invitation has been sent to Amira Haddad at amira.haddad@example.org. The link in the earlier email no longer works."
                )
            )
            #expect(list.text.contains("1 Dec 2026, 06:06 EST"), "expires 7 days after resending")

            let messages = try await Self.mail(portal)
            try #require(messages.count == 2)
            #expect(messages.allSatisfy { $0.recipient == "amira.haddad@example.org" })
            let newToken = try Self.token(in: messages[1])
            #expect(newToken != oldToken)
            #expect(messages[1].bodyText.contains("until 1 Dec 2026, 06:06 EST"))
            #expect(try await portal.auditEntries(action: .invitationResent).count == 1)

            var amira = Visitor(portal: portal)
            #expect(try await amira.get("/invitation?token=\(oldToken)").status == .notFound)
            portal.clock.advance(by: 6 * 86_400)
            #expect(try await amira.get("/invitation?token=\(newToken)").status == .ok, "the new link works past the first link's expiry")
            let accepted = try await amira.post("/invitation", form: Self.acceptForm(token: newToken))
            #expect(accepted.status == .seeOther)

            // An accepted invitation is not sent again.
            (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/medical-professionals")
            try await admin.post("/medical-professionals/invitations/1/resend")
            #expect(
                try await admin.get("/medical-professionals").text.contains(
                    "That invitation was not sent again: it has already been accepted or revoked."
                )
            )
            #expect(try await Self.mail(portal).count == 2)
            #expect(try await admin.post("/medical-professionals/invitations/999999/resend").status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func revokingAnInvitationStopsItsLinkAtOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, mailTransport: MailServerNotAnswering()) { portal in
            var (admin, token) = try await Self.invite(portal)
            var amira = Visitor(portal: portal)
            try await amira.get("/invitation?token=\(token)")
            try await admin.get("/medical-professionals")

            let revoked = try await admin.post("/medical-professionals/invitations/1/revoke")
            #expect(revoked.location == "/medical-professionals")
            let list = try await admin.get("/medical-professionals")
            #expect(list.text.contains("The invitation to Amira Haddad is revoked. Its link no longer works."))
            #expect(list.text.contains("No invitations are waiting."))
            #expect(!list.text.contains("amira.haddad@example.org"))

            let late = try await amira.post("/invitation", form: Self.acceptForm(token: token))
            #expect(late.status == .notFound)
            #expect(late.text.contains("This invitation link cannot be used"))
            #expect(try await Self.medicalProfessionalCount(portal) == 0)

            let audit = try await portal.auditEntries(action: .invitationRevoked)
            #expect(audit.count == 1)
            #expect(audit.first?.recordID == "1")

            try await admin.post("/medical-professionals/invitations/1/revoke")
            #expect(
                try await admin.get("/medical-professionals").text.contains(
                    "That invitation was not revoked: it has already been accepted or revoked."
                )
            )
            try await admin.post("/medical-professionals/invitations/1/resend")
            #expect(try await Self.mail(portal).count == 1, "a revoked invitation is not sent again")
            #expect(try await portal.auditEntries(action: .invitationRevoked).count == 1)
            #expect(try await admin.post("/medical-professionals/invitations/999999/revoke").status == .notFound)

            // The address can be invited afresh.
            try await admin.get("/medical-professionals/invite")
            #expect(try await admin.post("/medical-professionals/invite", form: Self.inviteForm()).status == .seeOther)
        }
    }

    @Test(arguments: TestEngines.all)
    func onlyAdministratorsSeeAndUseTheInvitationPages(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, token) = try await Self.invite(portal)
            let (medicalProfessional, _) = try await Self.accept(portal, token: token)
            let (physician, _) = try await portal.signedIn(.physician)
            for var visitor in [medicalProfessional, physician] {
                #expect(try await visitor.get("/medical-professionals").status == .forbidden)
                #expect(try await visitor.get("/medical-professionals/invite").status == .forbidden)
                try await visitor.get("/")
                #expect(try await visitor.post("/medical-professionals/invite", form: Self.inviteForm(email: "x@example.org")).status == .forbidden)
                #expect(try await visitor.post("/medical-professionals/invitations/1/revoke").status == .forbidden)
                #expect(!(try await visitor.get("/").text.contains(">Medical professionals</a>")))
                #expect(try await visitor.get("/staff/1").status == .forbidden, "the staff account page shows real names")
            }
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get("/").text.contains(#"href="/medical-professionals">Medical professionals</a>"#))
            #expect(try await portal.database.read { db in try await StaffInvitationRepository().open(on: db) }.isEmpty)
        }
    }

    @Test(arguments: TestEngines.all)
    func administratorsSeeTheRealNameAndDateOfBirthOnTheStaffAccountPage(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, token) = try await Self.invite(portal)
            _ = try await Self.accept(portal, token: token, form: Self.acceptForm(token: token, bio: "Nurse.\nAsk me about tremor."))
            let account = try #require(
                try await portal.database.read { db in
                    try await StaffAccountRepository().credentials(username: "nurse.amira", on: db)
                }?.account
            )

            let page = try await admin.get("/staff/\(account.id)")
            #expect(page.status == .ok)
            #expect(
                page.text.contains(
                    #"<dt class="summary-list__key">Real name</dt><dd class="summary-list__value summary-list__value--text">Amira Haddad</dd>"#
                )
            )
            #expect(
                page.text.contains(
                    #"<dt class="summary-list__key">Date of birth</dt><dd class="summary-list__value summary-list__value--text">11 February 1984</dd>"#
                )
            )
            #expect(page.text.contains("Star with medical mark"))
            #expect(page.text.contains("Nurse.\nAsk me about tremor."))
            #expect(page.text.contains("Disable account"), "disabling is on the same page")

            try await admin.post("/staff/\(account.id)/disable")
            let list = try await admin.get("/medical-professionals")
            #expect(list.text.contains(#"<strong class="tag tag--grey">Disabled</strong>"#))
        }
    }

    @Test(arguments: TestEngines.all)
    func namesAndBiosAreShownAsTextNeverAsMarkup(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let name = "<script>alert('first')</script>"
            var (admin, token) = try await Self.invite(portal, form: Self.inviteForm(first: name, last: "O'Brien & \"Co\""))
            let list = try await admin.get("/medical-professionals")
            #expect(!list.text.contains(name))
            #expect(list.text.contains("&lt;script&gt;alert(&#39;first&#39;)&lt;/script&gt; O&#39;Brien &amp; &quot;Co&quot;"))

            var amira = Visitor(portal: portal)
            let form = try await amira.get("/invitation?token=\(token)")
            #expect(!form.text.contains(name))
            #expect(form.text.contains("Hello &lt;script&gt;alert(&#39;first&#39;)&lt;/script&gt;."))

            let bio = "<script>alert(\"bio\")</script> <b>bold</b>"
            let accepted = try await amira.post("/invitation", form: Self.acceptForm(token: token, bio: bio))
            #expect(accepted.status == .seeOther)
            let account = try #require(
                try await portal.database.read { db in
                    try await StaffAccountRepository().credentials(username: "nurse.amira", on: db)
                }?.account
            )
            let profile = try await portal.database.read { db in try await StaffProfileRepository().find(accountID: account.id, on: db) }
            #expect(profile?.bio == bio, "the bio is stored as typed")
            let page = try await admin.get("/staff/\(account.id)")
            #expect(!page.text.contains("<script>"))
            #expect(!page.text.contains("<b>bold</b>"))
            #expect(page.text.contains("&lt;script&gt;alert(&quot;bio&quot;)&lt;/script&gt; &lt;b&gt;bold&lt;/b&gt;"))
            #expect(page.text.contains("&lt;script&gt;alert(&#39;first&#39;)&lt;/script&gt; O&#39;Brien &amp; &quot;Co&quot;"))
        }
    }

    @Test(arguments: TestEngines.all)
    func theLinksTokenNeverReachesTheLogsOrTheAuditLog(engine: Database.Engine) async throws {
        let logs = CapturedLogs()
        try await TestPortal.run(engine, logHandler: logs.handler) { portal in
            var (admin, token) = try await Self.invite(portal)
            try await admin.get("/medical-professionals")
            try await admin.post("/medical-professionals/invitations/1/resend")
            let newToken = try Self.token(in: try #require(try await Self.mail(portal).last))
            var amira = Visitor(portal: portal)
            try await amira.get("/invitation?token=\(token)")
            let (_, accepted) = try await Self.accept(portal, token: newToken)
            #expect(accepted.status == .seeOther)

            let rows = try await portal.database.read { db in try await db.raw("SELECT * FROM audit_log").all() }
            #expect(rows.count >= 4)
            for row in rows {
                for column in row.allColumns {
                    guard let value = try? row.decode(column: column, as: String?.self) else { continue }
                    for secret in [token, newToken] { #expect(!value.contains(secret), "audit column \(column) holds a token") }
                }
            }
            let lines = logs.all
            #expect(lines.contains { $0.contains("/invitation") }, "the request log was captured")
            for line in lines {
                for secret in [token, newToken] { #expect(!line.contains(secret), "a log line holds a token") }
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func seedDemoInvitesTwoMedicalProfessionalsWhoseLinksWork(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        var settings = CommandTests.settings(url)
        settings.baseURL = "https://demo.example.org"
        let credentials = try await Commands.seedDemo(settings: settings)
        await #expect(throws: DemoSeeder.RefusedRealData.self) { _ = try await Commands.seedDemo(settings: settings) }

        let sealer = try Sealer.load(settings)
        let database = try Database(url: url, logger: TestDatabase.logger)
        let (invitations, mail, medicalProfile) = try await database.whileRunning {
            try await database.read { db in
                let medicalProfessional = try await StaffAccountRepository().credentials(
                    username: try #require(credentials.first { $0.role == .medicalProfessional }).username,
                    on: db
                )
                return (
                    try await StaffInvitationRepository().open(role: .medicalProfessional, on: db),
                    // The demo's patients' claim emails and the staff step's physician invitation wait in the outbox too.
                    try await Outbox(now: Date.init, sealer: sealer, wakeSender: {}).list(status: nil, page: PageRequest(number: 1), on: db).items
                        .filter { $0.subject.hasPrefix("Your invitation") && $0.recipient != "jordan.demo@example.org" },
                    try await StaffProfileRepository().find(accountID: try #require(medicalProfessional).account.id, on: db)
                )
            }
        }
        try await TestDatabase.drop(url)

        #expect(invitations.count == 2)
        #expect(Set(invitations.map(\.email)) == ["amira.haddad@example.org", "tomas.reyes@example.org"])
        #expect(invitations.allSatisfy { $0.status(at: Date()) == .waiting })
        #expect(mail.count == 2)
        #expect(Set(mail.map(\.recipient)) == Set(invitations.map(\.email)))
        #expect(mail.allSatisfy { $0.bodyText.contains("https://demo.example.org/invitation?token=") })
        #expect(medicalProfile?.avatar.isMedical == true)
    }
}
