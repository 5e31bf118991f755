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
        try await database.transaction { [credentials, hashes] db in
            guard try await accounts.count(on: db) == 0 else { throw RefusedRealData() }
            var administratorID: Int64?
            for (credential, hash) in zip(credentials, hashes) {
                let account = try await accounts.create(
                    username: credential.username, email: "\(credential.username)@demo.invalid", role: credential.role,
                    status: .active, passwordHash: hash, now: dependencies.now(), on: db
                )
                if credential.role == .administrator { administratorID = account.id }
                if credential.role == .medicalProfessional {
                    try await StaffProfileRepository().create(StaffProfile(
                        firstName: "Morgan", lastName: "Demo (demo data)", dateOfBirth: CalendarDate(year: 1985, month: 6, day: 14)!,
                        avatar: Avatar.medical("medical-leaf")!, bio: "Demo account. A nurse who answers questions about medication and recovery."
                    ), accountID: account.id, on: db)
                }
                if credential.role == .physician {
                    try await accounts.createPhysicianProfile(PhysicianProfile(
                        firstName: "Dana", middleName: "", lastName: "Demo (demo data)",
                        practiceLocation: "Demo Movement Disorders Clinic, Springfield", medicalIDNumber: "DEMO-0000000"
                    ), accountID: account.id, on: db)
                }
            }
            if let administratorID {
                try await inviteDemoMedicalProfessionals(invitedBy: administratorID, on: db)
            }
            try await AuditLog(now: dependencies.now).record(
                AuditEvent(actor: .system, action: .demoDataSeeded, origin: .commandLine, detail: "demo staff accounts and invitations"), on: db
            )
        }
        return credentials
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
