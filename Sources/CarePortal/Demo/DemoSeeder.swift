import Foundation
import SQLKit

/// Clearly marked demo content for trying the portal; refuses a database that holds real accounts.
public struct DemoSeeder: Sendable {
    public struct Credential: Sendable, Equatable {
        public let role: StaffRole
        public let username: String
        public let password: String
    }

    public struct RefusedRealData: Error, CustomStringConvertible {
        public var description: String {
            "This database already has staff accounts, so demo data was not added. Use an empty database for the demo."
        }
    }

    let database: Database
    let dependencies: Dependencies
    /// For the links in the demo invitations' emails.
    var settings = Settings()

    public func seed() async throws -> [Credential] {
        let accounts = StaffAccountRepository()
        let hasher = PasswordHasher(cost: dependencies.passwordHashCost)
        let people: [(StaffRole, String)] = [
            (.administrator, "demo.admin"), (.medicalProfessional, "demo.medpro"), (.physician, "demo.physician"),
        ]
        var credentials: [Credential] = []
        for (role, username) in people {
            credentials.append(Credential(role: role, username: username, password: demoPassword()))
        }
        var hashes: [String] = []
        for credential in credentials { hashes.append(try await hasher.hash(credential.password)) }
        // Demo members share one random password nobody is told: they exist to be seen in the portal.
        let memberPasswordHash = try await hasher.hash(demoPassword())
        let memberAnswerHash = try await hasher.hash(demoPassword())
        try await database.transaction { [credentials, hashes] db in
            guard try await accounts.count(on: db) == 0 else { throw RefusedRealData() }
            var administratorID: Int64?
            var deskStaff: [DeskAuthor] = []
            var physicianID: Int64?
            for (credential, hash) in zip(credentials, hashes) {
                let account = try await accounts.create(
                    username: credential.username, email: "\(credential.username)@demo.invalid", role: credential.role,
                    status: .active, passwordHash: hash, now: dependencies.now(), on: db
                )
                if credential.role == .administrator { administratorID = account.id }
                if credential.role != .physician { deskStaff.append(account.deskAuthor) }
                if credential.role == .medicalProfessional {
                    try await StaffProfileRepository().create(StaffProfile(
                        firstName: "Morgan", lastName: "Demo (demo data)", dateOfBirth: CalendarDate(year: 1985, month: 6, day: 14)!,
                        avatar: Avatar.medical("medical-leaf")!, bio: "Demo account. A nurse who answers questions about medication and recovery."
                    ), accountID: account.id, on: db)
                }
                if credential.role == .physician {
                    physicianID = account.id
                    try await accounts.createPhysicianProfile(PhysicianProfile(
                        firstName: "Dana", middleName: "", lastName: "Demo (demo data)",
                        practiceLocation: "Demo Movement Disorders Clinic, Springfield", medicalIDNumber: "DEMO-0000000"
                    ), accountID: account.id, on: db)
                }
            }
            if let administratorID {
                try await seedMembers(createdBy: administratorID, passwordHash: memberPasswordHash, answerHash: memberAnswerHash, on: db)
                try await inviteDemoMedicalProfessionals(invitedBy: administratorID, on: db)
                var everyone = MemberListQuery()
                everyone.page = PageRequest(number: 1, size: 200)
                let memberIDs = try await MemberRepository().list(everyone, on: db).items.map(\.id)
                try await DemoDesk(now: dependencies.now(), repository: DeskRepository(engine: database.engine))
                    .seed(count: Self.threadCount, members: memberIDs, staff: deskStaff, on: db)
            }
            if let physicianID {
                try await seedCatalogueAndPatients(physicianID: physicianID, passwordHash: memberPasswordHash, on: db)
            }
            try await AuditLog(now: dependencies.now).record(
                AuditEvent(
                    actor: .system, action: .demoDataSeeded, origin: .commandLine,
                    detail: "demo staff accounts, members, codes, invitations, information-desk threads, catalogue and patients"
                ), on: db
            )
        }
        return credentials
    }

    static let memberCount = 36
    static let threadCount = 250

    /// Members spread over eleven due months (two past, nine ahead), each with the code she used; and
    /// codes not used yet, revoked and expired, so every status shows in the lists.
    private func seedMembers(createdBy: Int64, passwordHash: String, answerHash: String, on db: any SQLDatabase) async throws {
        let members = MemberRepository()
        let codes = SignUpCodeRepository()
        let now = dependencies.now()
        let today = CalendarDate(now)
        let first = ["Hopeful", "Brave", "Gentle", "Steady", "Quiet", "Sunny", "Morning", "River", "Willow", "Maple", "Clover", "Juniper"]
        let second = ["Robin", "Wren", "Lark", "Finch", "Heron", "Sparrow", "Dove", "Swan", "Kestrel"]
        let bios = [
            "", "Second baby, first time doing this sober.", "Nine months in recovery and counting.",
            "Mum of two. Here for the company at 3am.", "", "On methadone since March; feeling stronger.", "Nervous but hopeful.",
        ]
        let states: [(String?, String?)] = [("TN", "37203"), (nil, nil), ("KY", "40202"), ("TN", "37916"), (nil, nil), ("OH", "45202")]
        let questions = ProgramSettings.defaults(programName: "").securityQuestions
        for index in 0..<Self.memberCount {
            let pseudonym = "\(first[index % first.count])_\(second[(index * 5 + index / first.count) % second.count])\(index / 9 + 1)"
            let dueDate = today.adding(months: index % 11 - 2)
            let joined = now.addingTimeInterval(-Double((Self.memberCount - index) * 86_400 * 2 + index * 3_600))
            let (code, _) = try await codes.issue(
                note: "demo: \(pseudonym)", lifetime: 30 * 86_400, createdBy: createdBy,
                randomBytes: dependencies.randomBytes, now: joined.addingTimeInterval(-86_400), on: db
            )
            let cohort = try await members.cohort(dueMonth: dueDate.monthKey, now: joined, on: db)
            let location = states[index % states.count]
            let member = try await members.create(NewMember(
                pseudonym: pseudonym, passwordHash: passwordHash, avatarID: Avatar.memberSet[index % Avatar.memberSet.count].id,
                dueDate: dueDate, recoveryEmail: "\(pseudonym.lowercased())@demo.invalid", securityQuestion: questions[index % questions.count],
                securityAnswerHash: answerHash, usState: location.0, zipCode: location.1, bio: bios[index % bios.count]
            ), cohort: cohort, now: joined, on: db)
            if let codeID = try await codes.consume(code: code, memberID: member.id, now: joined, on: db) {
                try await members.setSignUpCode(id: member.id, codeID: codeID, on: db)
            }
            try await members.recordSignIn(memberID: member.id, kind: .registered, origin: .commandLine, now: joined, on: db)
            try await members.markActive(id: member.id, at: now.addingTimeInterval(-Double(index % 12) * 86_400 - 3_600), on: db)
            if index % 13 == 12 { try await members.setStatus(id: member.id, .disabled, now: now, on: db) }
        }
        for note in ["demo: for the clinic on Tuesday", "demo: phone ends 4821", "demo: phone ends 0093"] {
            _ = try await codes.issue(note: note, lifetime: 30 * 86_400, createdBy: createdBy, randomBytes: dependencies.randomBytes, now: now, on: db)
        }
        let (_, revoked) = try await codes.issue(
            note: "demo: read to the wrong number", lifetime: 30 * 86_400, createdBy: createdBy, randomBytes: dependencies.randomBytes, now: now, on: db
        )
        _ = try await codes.revoke(id: revoked.id, by: createdBy, now: now, on: db)
        _ = try await codes.issue(
            note: "demo: never called back", lifetime: 30 * 86_400, createdBy: createdBy, randomBytes: dependencies.randomBytes,
            now: now.addingTimeInterval(-40 * 86_400), on: db
        )
    }

    /// Two medical professionals invited by the demo administrator; their emails wait in the outbox, links and all.
    private func inviteDemoMedicalProfessionals(invitedBy administratorID: Int64, on db: any SQLDatabase) async throws {
        let invitees = [
            Invitee(firstName: "Amira", lastName: "Haddad", dateOfBirth: CalendarDate(year: 1984, month: 2, day: 11)!, email: "amira.haddad@example.org"),
            Invitee(firstName: "Tomás", lastName: "Reyes", dateOfBirth: CalendarDate(year: 1979, month: 9, day: 23)!, email: "tomas.reyes@example.org"),
        ]
        let outbox = Outbox(now: dependencies.now, wakeSender: {})
        for invitee in invitees {
            let token = SecretToken(randomBytes: dependencies.randomBytes)
            let invitation = try await StaffInvitationRepository().create(
                invitee, token: token, createdBy: administratorID, now: dependencies.now(), on: db
            )
            try await outbox.enqueue(.invitation(invitation, token: token, settings: settings), on: db)
        }
    }

    /// Four random words' worth of letters and digits, unlike anything on the common-password list.
    private func demoPassword() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        let bytes = dependencies.randomBytes(16)
        return String(bytes.map { alphabet[Int($0) % alphabet.count] })
    }
}
