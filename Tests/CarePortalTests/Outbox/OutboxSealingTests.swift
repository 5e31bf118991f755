import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Secrets do not rest in the outbox: bodies sealed under the sealing key, dropped once delivered,
/// masked on the Outbox page; without a mail server the link is shown once to whoever made it.
@Suite struct OutboxSealingTests {
    /// The text of the first element with `id` on `page`.
    static func shownOnce(_ page: String, id: String = "shown-once") throws -> String {
        let start = try #require(page.range(of: #"id="\#(id)">"#), "nothing shown once on the page")
        let rest = page[start.upperBound...]
        return String(rest[..<(rest.range(of: "<")?.lowerBound ?? rest.endIndex)])
    }

    /// Every byte the database keeps, as text: SQLite's file and write-ahead log; on PostgreSQL every row
    /// of the tables a token could reach (the outbox, sessions with their flash messages, the audit log).
    static func storedText(_ portal: TestPortal) async throws -> String {
        switch portal.engine {
        case .sqlite:
            let path = String(portal.portal.settings.databaseURL.dropFirst("sqlite://".count))
            return [path, path + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }
                .map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
        case .postgres:
            return try await portal.database.read { db in
                var text: [String] = []
                for table in ["outbox", "sessions", "audit_log", "staff_invitations", "password_resets", "study_participants"] {
                    text += try await db.raw("SELECT CAST(t AS TEXT) AS row FROM \(ident: table) t").all().map {
                        try $0.decode(column: "row", as: String.self)
                    }
                }
                return text.joined(separator: "\n")
            }
        }
    }

    /// A physician's patient with an unclaimed app account, made straight in storage.
    static func patient(of physician: StaffAccount, in portal: TestPortal) async throws -> Patient {
        try await portal.database.transaction { db in
            let patient = try await PatientRepository().create(
                PatientContact(
                    firstName: "Rosa",
                    middleName: "",
                    lastName: "Quintero",
                    medicalNumber: "NHS 401 023 2137",
                    email: "rosa@example.org",
                    phone: "01632 960 555",
                    address: "4 Mill Lane"
                ),
                physicianID: physician.id,
                now: portal.clock.now,
                on: db
            )
            try await PatientAccountRepository().create(
                patientID: patient.id,
                token: ClaimToken(randomBytes: Dependencies.systemRandomBytes),
                now: portal.clock.now,
                on: db
            )
            return patient
        }
    }

    /// Makes every kind of secret email there is without a mail server and returns the secrets: an
    /// invitation link and a study claim token (shown once to their makers), and a reset link someone
    /// asked for herself (only emailed: read here by opening the outbox as the sender does).
    static func secretsOfEveryKind(_ portal: TestPortal) async throws -> [String] {
        var (admin, _) = try await portal.signedIn(.administrator)
        try await admin.get("/medical-professionals/invite")
        let invited = try await admin.post("/medical-professionals/invite", form: InvitationTests.inviteForm())
        #expect(invited.status == .ok)
        let link = try shownOnce(invited.text)
        let invitationToken = String(try #require(link.split(separator: "=").last))

        var (researcher, _) = try await portal.signedIn(.researcher)
        try await researcher.get(SiteURL.newStudyParticipant.path)
        let enrolled = try await StudyClaimTests.enrol(&researcher, portal, code: "NU-077", email: "nu077@example.org")
        let claimToken = try shownOnce(enrolled.text, id: "study-claim-token")

        _ = try await portal.createStaff(.physician, username: "dr.rivera", email: "rivera@clinic.example")
        var visitor = Visitor(portal: portal)
        try await visitor.get("/sign-in/forgotten-password")
        let asked = try await visitor.post("/sign-in/forgotten-password", form: [("email", "rivera@clinic.example")])
        let resetToken = try await PasswordResetTests.resetToken(portal, to: "rivera@clinic.example")
        #expect(!asked.text.contains(resetToken), "a reset link someone asks for is only ever emailed")

        return [invitationToken, claimToken, claimToken.replacingOccurrences(of: "-", with: ""), resetToken]
    }

    @Test(arguments: TestEngines.all)
    func noLinkOrTokenRestsInTheDatabase(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // setup
            let secrets = try await Self.secretsOfEveryKind(portal)
            #expect(try await portal.outboxMessages().count == 3)

            // validate: no token in the database's bytes, and the outbox holds its bodies only sealed
            let stored = try await Self.storedText(portal)
            #expect(stored.contains("rivera@clinic.example"), "the search reads the stored rows")
            for secret in secrets { #expect(!stored.contains(secret)) }
            let rows = try await portal.database.read { db in
                try await db.select().column("sealed_body").column("plain_body").from("outbox").all()
            }
            for row in rows {
                #expect(try row.decode(column: "plain_body", as: String?.self) == nil)
                #expect(try row.decode(column: "sealed_body", as: String.self).hasPrefix("v1.\(portal.portal.sealer.key.id)."))
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func aDeliveredMessageKeepsItsRecipientSubjectAndTimesButNoBody(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // setup
            let token = SecretToken(randomBytes: Dependencies.systemRandomBytes)
            try await OutboxTests.enqueue(
                Mail(
                    recipient: "a@example.org",
                    subject: "Reset your password",
                    body: "Open \(TestPortal.baseURL)/reset?token=\(token.value)",
                    secrets: [token.value]
                ),
                in: portal
            )
            let transport = RecordingMailTransport()

            // MUT
            #expect(try await OutboxTests.sender(transport, in: portal).deliverDue() == 1)

            // validate: the mail server got the whole text; the outbox keeps only who, what about, when and how it went
            #expect(transport.messages.first?.body?.contains(token.value) == true)
            let delivered = try #require(try await portal.database.read { db in try await portal.portal.outbox.find(id: 1, on: db) })
            #expect(delivered.status == .sent)
            #expect(delivered.body == nil)
            #expect(delivered.recipient == "a@example.org")
            #expect(delivered.subject == "Reset your password")
            #expect(delivered.sentAt != nil)
            let row = try #require(
                try await portal.database.read { db in
                    try await db.select().column("sealed_body").column("plain_body").from("outbox").first()
                }
            )
            #expect(try row.decode(column: "sealed_body", as: String?.self) == nil)
            #expect(try row.decode(column: "plain_body", as: String?.self) == nil)
            var (admin, _) = try await portal.signedIn(.administrator)
            let page = try await admin.get("/outbox/1")
            #expect(page.text.contains("only its recipient, subject, times and status are kept"))
            #expect(!(try await Self.storedText(portal)).contains(token.value))
        }
    }

    @Test(arguments: TestEngines.all)
    func theOutboxPageNeverShowsALiveLinkOrToken(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // setup
            let secrets = try await Self.secretsOfEveryKind(portal)
            // A body written before messages declared their secrets, with a link and a claim token in it.
            try await portal.database.transaction { db in
                try await db.insert(into: "outbox")
                    .columns("created_at", "recipient", "subject", "plain_body", "status", "attempts", "next_attempt_at")
                    .values(
                        SQLBind(Int64(0)),
                        SQLBind("old@example.org"),
                        SQLBind("Old"),
                        SQLBind("Open \(TestPortal.baseURL)/invitation?token=oldsecretvalue123 or enter ABCD-EFGH-JKMN-PQRS-TUVW"),
                        SQLBind("pending"),
                        SQLBind(0),
                        SQLBind(Int64(0))
                    )
                    .run()
            }
            var (admin, _) = try await portal.signedIn(.administrator)

            // MUT and validate: every message's page masks every secret
            let messages = try await portal.outboxMessages()
            #expect(messages.count == 4)
            for message in messages {
                let page = try await admin.get("/outbox/\(message.id)")
                #expect(page.status == .ok)
                for secret in secrets + ["oldsecretvalue123", "ABCD-EFGH-JKMN-PQRS-TUVW"] { #expect(!page.text.contains(secret)) }
                #expect(page.text.contains(OutboxMessage.mask))
            }
            let invitation = try await admin.get("/outbox/\(try #require(messages.first { $0.recipient == "amira.haddad@example.org" }).id)")
            #expect(invitation.text.contains("/invitation?token=\(OutboxMessage.mask)"))
            #expect(invitation.text.contains("Hello Amira"), "the rest of the text is shown")
            let list = try await admin.get("/outbox")
            for secret in secrets { #expect(!list.text.contains(secret)) }
        }
    }

    @Test(arguments: TestEngines.all)
    func aBodyWrittenBeforeBodiesWereSealedIsSealedAndStillDelivered(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // setup: a waiting message as migration 55 leaves it
            try await portal.database.transaction { db in
                try await db.insert(into: "outbox")
                    .columns("created_at", "recipient", "subject", "plain_body", "status", "attempts", "next_attempt_at")
                    .values(
                        SQLBind(Int64(0)),
                        SQLBind("old@example.org"),
                        SQLBind("Old"),
                        SQLBind("token=oldsecretvalue123"),
                        SQLBind("pending"),
                        SQLBind(0),
                        SQLBind(Int64(0))
                    )
                    .run()
            }
            // MUT: what the server does when it starts
            #expect(try await portal.database.transaction { db in try await portal.portal.outbox.sealPlainBodies(on: db) } == 1)
            // validate
            #expect(!(try await Self.storedText(portal)).contains("oldsecretvalue123") || portal.engine == .sqlite)
            let row = try #require(
                try await portal.database.read { db in
                    try await db.select().column("sealed_body").column("plain_body").from("outbox").first()
                }
            )
            #expect(try row.decode(column: "plain_body", as: String?.self) == nil)
            #expect(!(try row.decode(column: "sealed_body", as: String.self)).contains("oldsecretvalue123"))
            let transport = RecordingMailTransport()
            #expect(try await OutboxTests.sender(transport, in: portal).deliverDue() == 1)
            #expect(transport.messages.first?.body == "token=oldsecretvalue123")
        }
    }

    @Test(arguments: TestEngines.all)
    func theLinkIsShownOnceToItsMakerWhenNoMailServerIsSetUp(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // An invitation: the link, once, on the page the form answers with.
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/medical-professionals/invite")
            let invited = try await admin.post("/medical-professionals/invite", form: InvitationTests.inviteForm())
            #expect(invited.status == .ok)
            #expect(invited.text.contains("No mail server is set up"))
            let link = try Self.shownOnce(invited.text)
            #expect(link.hasPrefix("\(TestPortal.baseURL)/invitation?token="))
            let token = String(try #require(link.split(separator: "=").last))
            #expect(!(try await admin.get("/medical-professionals").text.contains(token)), "shown once only")
            // It works: the invited medical professional sets up her account with it.
            let (_, accepted) = try await InvitationTests.accept(portal, token: token)
            #expect(accepted.status == .seeOther)

            // Sending an invitation again shows the new link once.
            try await admin.get("/medical-professionals/invite")
            try await admin.post(
                "/medical-professionals/invite",
                form: InvitationTests.inviteForm(first: "Tomás", last: "Reyes", email: "tomas@example.org")
            )
            let open = try #require(
                try await portal.database.read { db in try await StaffInvitationRepository().open(on: db) }.first { $0.email == "tomas@example.org" }
            )
            let resent = try await admin.post(SiteURL.invitationResend(open.id).path)
            #expect(resent.status == .ok)
            #expect(try Self.shownOnce(resent.text).hasPrefix("\(TestPortal.baseURL)/invitation?token="))

            // A patient's claim token, sent again by her physician.
            var (physician, doctor) = try await portal.signedIn(.physician)
            let patient = try await Self.patient(of: doctor, in: portal)
            try await physician.get(SiteURL.patient(patient.id).path)
            let claim = try await physician.post(SiteURL.patientClaimResend(patient.id).path)
            #expect(claim.status == .ok)
            let claimToken = try Self.shownOnce(claim.text)
            #expect(claimToken.count == 24)
            let check = try await AppClient(portal: portal).send(.post, SiteURL.apiPatientClaimCheck.path, json: ["claim_token": claimToken])
            #expect(check.status == .ok, "the token shown works")

            // A study participant's claim token, at enrolment and sent again.
            var (researcher, _) = try await portal.signedIn(.researcher)
            try await researcher.get(SiteURL.newStudyParticipant.path)
            let enrolled = try await StudyClaimTests.enrol(&researcher, portal, code: "NU-078", email: "nu078@example.org")
            let first = try Self.shownOnce(enrolled.text, id: "study-claim-token")
            let id = try await StudyClaimTests.participantID("NU-078", in: portal)
            try await researcher.get(SiteURL.studyParticipant(id).path)
            let again = try await researcher.post(SiteURL.studyParticipantClaimResend(id).path)
            let second = try Self.shownOnce(again.text)
            #expect(first != second)
            let claimed = try await StudyClaimTests.claim(second, in: portal)
            #expect(claimed.status == .created)
        }
    }

    @Test(arguments: TestEngines.all)
    func withAMailServerTheLinkIsEmailedAndNeverShown(engine: Database.Engine) async throws {
        let transport = RecordingMailTransport()
        try await TestPortal.run(engine, mailTransport: transport) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/medical-professionals/invite")
            let invited = try await admin.post("/medical-professionals/invite", form: InvitationTests.inviteForm())
            #expect(invited.status == .seeOther)
            #expect(!invited.text.contains("invitation?token="))
            // The running sender delivers it; read it as the mail server got it.
            let token = try InvitationTests.token(in: try #require(try await transport.delivered(in: portal).last))
            #expect(!(try await admin.get(invited.location ?? "/").text.contains(token)))
        }
    }

    @Test(arguments: TestEngines.all)
    func rotationSealsEverythingAgainAndTheFormerKeyIsNoLongerNeeded(engine: Database.Engine) async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        let givenKey = SealingKey.generate()
        try SealingKeySource.writeNew(givenKey, to: keys.appendingPathComponent("given.key").path)
        // SQLite keeps the embedded default in DATA_DIR; on PostgreSQL the operator gives a key file.
        try await TestPortal.run(
            engine,
            configure: { settings in
                settings.sealingKey = nil
                if engine == .postgres { settings.sealingKeyFile = keys.appendingPathComponent("given.key").path }
            }
        ) { portal in
            // setup: a waiting email, a second factor, and one sealed before the sealing key (no version, no purpose)
            let former = portal.portal.sealer
            let token = SecretToken(randomBytes: Dependencies.systemRandomBytes)
            try await OutboxTests.enqueue(
                Mail(recipient: "a@example.org", subject: "Link", body: "token=\(token.value)", secrets: [token.value]),
                in: portal
            )
            let first = try await portal.createStaff(.physician, username: "dr.one")
            let second = try await portal.createStaff(.physician, username: "dr.two")
            let legacy = try AESGCMLegacy.seal("LEGACYSECRETLEGACYSECRETLEGACY23", key: former.key)
            try await portal.database.transaction { db in
                try await SecondFactorRepository().begin(
                    accountID: first.id,
                    sealedSecret: try SecondFactorSealer(sealer: former).seal("NEWSECRETNEWSECRETNEWSECRETNEW23"),
                    now: portal.clock.now,
                    on: db
                )
                try await SecondFactorRepository().begin(accountID: second.id, sealedSecret: legacy, now: portal.clock.now, on: db)
            }
            let newKeyFile = engine == .postgres ? keys.appendingPathComponent("next.key").path : nil

            // MUT
            let rotated = try await Commands.rotateSealingKey(settings: portal.portal.settings, newKeyFile: newKeyFile)

            // validate: every sealed value is under the new key, which alone opens them
            #expect(rotated.resealed == 3)
            #expect(rotated.formerKeyID == former.key.id)
            let newKey = try SealingKeySource.key(from: try #require(FileManager.default.contents(atPath: rotated.newKeyPath)))
            #expect(newKey.id == rotated.newKeyID)
            #expect(newKey.id != former.key.id)
            #expect((try FileManager.default.attributesOfItem(atPath: rotated.newKeyPath)[.posixPermissions] as? Int) == 0o600)
            if engine == .sqlite {
                #expect(rotated.newKeyPath == SealingKeySource.defaultPath(in: portal.portal.settings.dataDirectory))
                #expect(!FileManager.default.fileExists(atPath: SealingKeySource.nextPath(of: rotated.newKeyPath)))
            }
            let onlyNew = Sealer(key: newKey)
            let (secrets, body) = try await portal.database.read { db in
                let secrets = try await db.select().column("sealed_secret").from("second_factors").orderBy("account_id").all()
                    .map { try $0.decode(column: "sealed_secret", as: String.self) }
                return (secrets, try await Outbox(now: Date.init, sealer: onlyNew, wakeSender: {}).find(id: 1, on: db)?.body)
            }
            #expect(body == "token=\(token.value)")
            #expect(secrets.allSatisfy { $0.hasPrefix("v1.\(newKey.id).") })
            #expect(
                try secrets.map { try SecondFactorSealer(sealer: onlyNew).open($0) }
                    == ["NEWSECRETNEWSECRETNEWSECRETNEW23", "LEGACYSECRETLEGACYSECRETLEGACY23"]
            )
            #expect(throws: Unsealable.self) { try SecondFactorSealer(sealer: former).open(secrets[0]) }
            #expect(try await portal.auditEntries(action: .sealingKeyRotated).count == 1)
        }
    }

    @Test func theKeyFileIsMadeOwnerOnlyAndOnlyForTheEmbeddedDefault() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-sealing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var settings = Settings()
        settings.dataDirectory = folder.path
        settings.databaseURL = "sqlite://\(folder.path)/careportal.sqlite"

        // The embedded default: made once, 0600, the same key on every start.
        let made = try Sealer.load(settings)
        let path = SealingKeySource.defaultPath(in: folder.path)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        #expect(try Sealer.load(settings).key.id == made.key.id)

        // A key given by the operator: nothing is made in DATA_DIR.
        let elsewhere = folder.appendingPathComponent("other")
        var given = settings
        given.dataDirectory = elsewhere.path
        given.sealingKey = Data(repeating: 7, count: 32).base64EncodedString()
        #expect(try Sealer.load(given).key.id == (try SealingKey(bytes: Data(repeating: 7, count: 32))).id)
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
        given.sealingKey = "too short"
        #expect(throws: SealingKeyProblem.self) { try Sealer.load(given) }

        // PostgreSQL without a key given: refused, and no key made.
        var postgres = Settings()
        postgres.dataDirectory = elsewhere.path
        postgres.databaseURL = "postgres://careportal@127.0.0.1:5432/careportal"
        #expect(throws: SealingKeyProblem.self) { try Sealer.load(postgres) }
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))

        // A deployment's second-factor.key becomes the sealing key, so secrets sealed under it still open.
        let upgraded = folder.appendingPathComponent("upgraded")
        try FileManager.default.createDirectory(at: upgraded, withIntermediateDirectories: true)
        let legacyKey = SealingKey.generate()
        let legacyPath = SealingKeySource.legacySecondFactorPath(in: upgraded.path)
        _ = FileManager.default.createFile(
            atPath: legacyPath,
            contents: legacyKey.key.withUnsafeBytes { Data($0) },
            attributes: [.posixPermissions: 0o600]
        )
        let sealedBefore = try AESGCMLegacy.seal("JBSWY3DPEHPK3PXP", key: legacyKey)
        var upgradedSettings = settings
        upgradedSettings.dataDirectory = upgraded.path
        let adopted = try Sealer.load(upgradedSettings)
        #expect(adopted.key.id == legacyKey.id)
        #expect(!FileManager.default.fileExists(atPath: legacyPath))
        #expect(try SecondFactorSealer(sealer: adopted).open(sealedBefore) == "JBSWY3DPEHPK3PXP")
        #expect(
            (try FileManager.default.attributesOfItem(atPath: SealingKeySource.defaultPath(in: upgraded.path))[.posixPermissions] as? Int) == 0o600
        )
    }
}

/// Two-factor secrets as they were sealed under `second-factor.key`: bare base64, no associated data.
enum AESGCMLegacy {
    static func seal(_ text: String, key: SealingKey) throws -> String {
        try AES.GCM.seal(Data(text.utf8), using: key.key).combined!.base64EncodedString()
    }
}
