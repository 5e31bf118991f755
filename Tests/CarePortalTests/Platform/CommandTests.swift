import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct CommandTests {
    static func settings(_ url: String) -> Settings {
        var settings = Settings()
        settings.databaseURL = url
        settings.logLevel = .error
        // Demo illustrations are written under DATA_DIR: a folder of the test's own, not the repository's ./data.
        settings.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-data-\(UUID().uuidString)").path
        // PostgreSQL needs the sealing key given; SQLite makes one in that folder.
        if url.hasPrefix("postgres") { settings.sealingKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() }
        return settings
    }

    @Test(arguments: TestEngines.all)
    func createUserMakesAnActiveAccountAndAuditsIt(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        let id = try await Commands.createUser(
            settings: Self.settings(url),
            role: .administrator,
            username: "chief",
            email: "chief@example.org",
            password: "a long enough passphrase"
        )
        await #expect(throws: Commands.CreateUserFailed.self) {
            _ = try await Commands.createUser(
                settings: Self.settings(url),
                role: .physician,
                username: "CHIEF",
                email: nil,
                password: "another passphrase"
            )
        }
        await #expect(throws: Commands.CreateUserFailed.self) {
            _ = try await Commands.createUser(settings: Self.settings(url), role: .physician, username: "dr.x", email: nil, password: "password")
        }
        let database = try Database(url: url, logger: TestDatabase.logger)
        let (account, entries) = try await database.whileRunning {
            try await database.read { db in
                (
                    try await StaffAccountRepository().find(id: id, on: db),
                    try await AuditLog(now: Date.init).list(AuditQuery(), on: db).items
                )
            }
        }
        try await TestDatabase.drop(url)
        #expect(account?.role == .administrator)
        #expect(account?.status == .active)
        #expect(entries.contains { $0.action == AuditAction.accountCreated.rawValue && $0.recordID == "\(id)" && $0.address == "command line" })
    }

    @Test(arguments: TestEngines.all)
    func seedDemoFillsAnEmptyDatabaseOnceAndRefusesRealData(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        let credentials = try await Commands.seedDemo(settings: Self.settings(url))
        #expect(Set(credentials.compactMap(\.role)) == Set(StaffRole.allCases))
        #expect(credentials.contains { $0.role == nil && $0.username == "demo.patient1" && $0.signInPath == "/app/patient/sign-in" })
        #expect(credentials.allSatisfy { $0.password.count >= 16 && PasswordPolicy.standard.problem(with: $0.password) == nil })
        await #expect(throws: DemoSeeder.RefusedRealData.self) {
            _ = try await Commands.seedDemo(settings: Self.settings(url))
        }
        let database = try Database(url: url, logger: TestDatabase.logger)
        let desk = DeskRepository(engine: engine)
        var everything = DeskListQuery()
        everything.filter = .all
        everything.page = PageRequest(number: 1, size: 200)
        let allThreads = everything
        let ((members, cohorts, codes, threads, flagged, anonymous), (careAccounts, careMemories, securedTitles, careLinks)) =
            try await database.whileRunning {
                try await database.read { db in
                    (
                        (
                            try await MemberRepository().count(on: db),
                            try await MemberRepository().cohortSummaries(now: Date(), on: db),
                            try await SignUpCodeRepository().list(
                                status: nil,
                                search: "",
                                page: PageRequest(number: 1, size: 100),
                                now: Date(),
                                on: db
                            ).items,
                            try await desk.counts(allThreads, on: db),
                            try await desk.openFlagTotal(on: db),
                            try await desk.list(allThreads, on: db).items.filter(\.isAnonymous).count
                        ),
                        // Memory care's demo: its four accounts, her memories (one secured, sealed under her key) and links.
                        (
                            try await db.count(in: "care_accounts"), try await db.count(in: "care_memories"),
                            try await db.select().column("title").from("care_memories").where("secured", .equal, Int64(1)).all().map {
                                try $0.decode(column: "title", as: String.self)
                            },
                            try await db.count(in: "care_links")
                        )
                    )
                }
            }
        #expect(careAccounts == 4 && careMemories >= 6 && securedTitles == [""] && careLinks == 3)
        try await TestDatabase.drop(url)
        #expect(members == DemoSeeder.memberCount)
        #expect(threads.all == DemoSeeder.threadCount)
        #expect(threads.waiting > 0 && threads.answered > threads.waiting && threads.accepted > 0)
        #expect(flagged > 0 && anonymous > 0)
        #expect(cohorts.count >= 10 && cohorts.allSatisfy { $0.memberCount > 0 })
        let statuses = Set(codes.map { $0.status(at: Date()) })
        #expect(statuses == Set(SignUpCode.Status.allCases), "every code status appears")
    }

    @Test(arguments: TestEngines.all)
    func createSignUpCodeMakesAUsableCodeForAnAdministratorOnly(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        _ = try await Commands.createUser(
            settings: Self.settings(url),
            role: .administrator,
            username: "chief",
            email: nil,
            password: "a long enough passphrase"
        )
        _ = try await Commands.createUser(
            settings: Self.settings(url),
            role: .physician,
            username: "dr.x",
            email: nil,
            password: "a long enough passphrase"
        )
        let asked = Date()
        let (code, expires) = try await Commands.createSignUpCode(settings: Self.settings(url), administrator: "chief", note: "phone 0134")
        let answered = Date()
        #expect(code.count == 6 && code.allSatisfy(SignUpCode.alphabet.contains))
        #expect(
            expires >= asked.addingTimeInterval(30 * 86_400 - 1) && expires <= answered.addingTimeInterval(30 * 86_400 + 1),
            "the code lasts thirty days from when it was made"
        )
        await #expect(throws: Commands.CreateUserFailed.self) {
            _ = try await Commands.createSignUpCode(settings: Self.settings(url), administrator: "dr.x", note: "")
        }
        let database = try Database(url: url, logger: TestDatabase.logger)
        let (usable, entries) = try await database.whileRunning {
            try await database.read { db in
                (
                    try await SignUpCodeRepository().isUsable(code: code, now: Date(), on: db),
                    try await AuditLog(now: Date.init).list(AuditQuery(), on: db).items
                )
            }
        }
        try await TestDatabase.drop(url)
        #expect(usable)
        #expect(entries.contains { $0.action == AuditAction.signUpCodeCreated.rawValue && $0.actorName == "chief" && $0.address == "command line" })
    }
}
