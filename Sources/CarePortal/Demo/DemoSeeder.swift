import Foundation
import PortalPlatform
import SQLKit

/// Clearly marked demo content for trying the portal; refuses a database that holds real accounts.
/// It makes one demo staff account per role, then each feature adds its own demo content (its
/// `seedDemo` step), in the order of `Features.all`, all in one transaction.
public struct DemoSeeder: Sendable {
    public struct Credential: Sendable, Equatable {
        /// What the account is, as `seed-demo` prints it ("Administrator", "Patient (web app)").
        public let title: String
        /// The staff role; nil for an account of the people's web app.
        public let role: StaffRole?
        public let username: String
        public let password: String
        /// Where the account signs in.
        public let signInPath: String
    }

    public struct RefusedRealData: Error, CustomStringConvertible {
        public var description: String {
            "This database already has staff accounts, so demo data was not added. Use an empty database for the demo."
        }
    }

    static let auditActions: [AuditAction] = [.demoDataSeeded]

    let database: Database
    let dependencies: Dependencies
    /// Seals the demo emails in the outbox, as the server does.
    let sealer: Sealer
    /// For the links in the demo emails.
    var settings = Settings()
    var features: [any PortalFeature.Type] = Features.all

    public func seed() async throws -> [Credential] {
        let accounts = StaffAccountRepository()
        let hasher = PasswordHasher(cost: dependencies.passwordHashCost)
        let people: [(StaffRole, String)] = [
            (.administrator, "demo.admin"), (.medicalProfessional, "demo.medpro"), (.physician, "demo.physician"),
            (.pharmacist, "demo.pharmacist"), (.researcher, "demo.researcher")
        ]
        var credentials: [Credential] = []
        for (role, username) in people {
            credentials.append(
                Credential(
                    title: role.title,
                    role: role,
                    username: username,
                    password: DemoData.password(dependencies.randomBytes),
                    signInPath: PlatformPath.signIn
                )
            )
        }
        var hashes: [String] = []
        for credential in credentials { hashes.append(try await hasher.hash(credential.password)) }
        // Demo app accounts share one random password, told only for the accounts the web app's parts name (one of each kind).
        let appPassword = DemoData.password(dependencies.randomBytes)
        let appPasswordHash = try await hasher.hash(appPassword)
        let appAnswerHash = try await hasher.hash(DemoData.password(dependencies.randomBytes))
        try await database.transaction { [credentials, hashes] db in
            guard try await accounts.count(on: db) == 0 else { throw RefusedRealData() }
            var staff: [StaffAccount] = []
            for ((role, _), (credential, hash)) in zip(people, zip(credentials, hashes)) {
                let account = try await accounts.create(
                    username: credential.username,
                    email: "\(credential.username)@demo.invalid",
                    role: role,
                    status: .active,
                    passwordHash: hash,
                    now: dependencies.now(),
                    on: db
                )
                if role == .physician {
                    try await accounts.createPhysicianProfile(
                        PhysicianProfile(
                            firstName: "Dana",
                            middleName: "",
                            lastName: "Demo (demo data)",
                            practiceLocation: "Demo Movement Disorders Clinic, Springfield",
                            practicePhone: "2175550134",
                            medicalIDNumber: "DEMO-0000000"
                        ),
                        accountID: account.id,
                        on: db
                    )
                }
                staff.append(account)
            }
            let demo = DemoData(
                dependencies: dependencies,
                sealer: sealer,
                settings: settings,
                engine: database.engine,
                database: database,
                now: dependencies.now(),
                staff: staff,
                appPasswordHash: appPasswordHash,
                appAnswerHash: appAnswerHash
            )
            for feature in features { try await feature.seedDemo(demo, on: db) }
            try await AuditLog(now: dependencies.now).record(
                AuditEvent(
                    actor: .system,
                    action: .demoDataSeeded,
                    origin: .commandLine,
                    detail: "demo staff accounts and each program's demo data"
                ),
                on: db
            )
        }
        let webApp = features.flatMap { $0.appParts }.compactMap { part in
            part.demoIdentifier.map {
                Credential(
                    title: "\(Self.readable(part.kind.role)) (web app)",
                    role: nil,
                    username: $0,
                    password: appPassword,
                    signInPath: part.kind.signInPagePath
                )
            }
        }
        return credentials + webApp
    }

    /// "Care receiver" from `care_receiver`: a kind of account as the printed list names it.
    static func readable(_ role: String) -> String {
        let words = role.replacingOccurrences(of: "_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    static let memberCount = DemoData.memberCount
    static let threadCount = DemoData.threadCount
    public static let demoPatientCount = DemoData.patientCount
}

/// What every feature's demo step starts from: the demo staff accounts, the clock and the settings.
struct DemoData: Sendable {
    let dependencies: Dependencies
    let sealer: Sealer
    /// For the links in the demo emails and where uploads are kept.
    let settings: Settings
    let engine: Database.Engine
    /// Where uploads are kept with this database (`UploadStore.of`); the demo's are written in its transaction.
    let database: Database
    let now: Date
    /// One demo staff account per role.
    let staff: [StaffAccount]
    /// Hashes of random secrets nobody is told, for demo app accounts, which exist to be seen in the portal.
    let appPasswordHash: String
    let appAnswerHash: String

    /// The outbox the demo emails go to, sealed under the portal's key; no sender is woken.
    var outbox: Outbox { Outbox(now: dependencies.now, sealer: sealer, wakeSender: {}) }

    func uploads(_ folder: String) -> UploadStore {
        UploadStore.of(
            folder,
            database: database,
            dataDirectory: settings.dataDirectory,
            randomBytes: dependencies.randomBytes,
            now: dependencies.now
        )
    }

    func account(_ role: StaffRole) -> StaffAccount? {
        staff.first { $0.role == role }
    }

    /// Sixteen letters and digits, unlike anything on the common-password list.
    static func password(_ randomBytes: @Sendable (Int) -> [UInt8]) -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        return String(randomBytes(16).map { alphabet[Int($0) % alphabet.count] })
    }
}

extension AuditAction {
    static let demoDataSeeded = AuditAction("demo_data_seeded", title: "Demo data added")
}
