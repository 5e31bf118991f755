import Foundation
import Hummingbird
import Logging
import NIOPosix
import PortalPlatform

/// What the `careportal` command's subcommands do; the executable only parses arguments and calls these.
public enum Commands {
    /// Migrates, then serves until SIGTERM or SIGINT, finishing requests in flight.
    public static func serve(settings: Settings) async throws {
        MemoryArenas.limitForServer()
        let portal = try await buildApplication(settings: settings, dependencies: .live(settings: settings))
        try await portal.application.runService()
    }

    public static func migrate(settings: Settings) async throws -> [Int] {
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        return try await database.whileRunning {
            try await Migrator(database: database, logger: logger(settings)).migrate()
        }
    }

    public struct CreateUserFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Creates an active staff account; the password comes from the caller (standard input), never the command line.
    public static func createUser(settings: Settings, role: StaffRole, username: String, email: String?, password: String) async throws -> Int64 {
        if let problem = FieldRules.usernameProblem(username) { throw CreateUserFailed(description: problem) }
        if let email, let problem = FieldRules.emailProblem(email) { throw CreateUserFailed(description: problem) }
        if let problem = PasswordPolicy.standard.problem(with: password, username: username) { throw CreateUserFailed(description: problem) }
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        let hash = try await PasswordHasher(cost: PasswordHasher.productionCost).hash(password)
        return try await database.whileRunning {
            try await Migrator(database: database, logger: logger(settings)).migrate()
            do {
                return try await database.transaction { db in
                    let account = try await StaffAccountRepository().create(
                        username: username,
                        email: email,
                        role: role,
                        status: .active,
                        passwordHash: hash,
                        now: Date(),
                        on: db
                    )
                    try await AuditLog(now: Date.init).record(
                        AuditEvent(
                            actor: .system,
                            action: .accountCreated,
                            recordType: "staff_account",
                            recordID: "\(account.id)",
                            origin: .commandLine,
                            detail: "role \(role.rawValue)"
                        ),
                        on: db
                    )
                    return account.id
                }
            } catch is UsernameTaken {
                throw CreateUserFailed(description: "The username \(username) is already taken")
            }
        }
    }

    /// Makes a sign-up code on behalf of an administrator and returns it with its expiry, to be shown once.
    public static func createSignUpCode(settings: Settings, administrator: String, note: String) async throws -> (code: String, expires: Date) {
        guard note.count <= SignUpCodesController.noteMaximumLength else {
            throw CreateUserFailed(description: "The note must be \(SignUpCodesController.noteMaximumLength) characters or fewer")
        }
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        return try await database.whileRunning {
            try await Migrator(database: database, logger: logger(settings)).migrate()
            let programSettings = ProgramSettingsStore(database: database, defaults: .defaults(programName: settings.programName))
            try await programSettings.refresh()
            return try await database.transaction { db in
                guard let account = try await StaffAccountRepository().find(username: administrator, on: db),
                    account.role == .administrator, account.status == .active
                else { throw CreateUserFailed(description: "\(administrator) is not an active administrator") }
                let (code, created) = try await SignUpCodeRepository().issue(
                    note: note,
                    lifetime: programSettings.current.codeLifetime,
                    createdBy: account.id,
                    randomBytes: Dependencies.systemRandomBytes,
                    now: Date(),
                    on: db
                )
                try await AuditLog(now: Date.init).record(
                    AuditEvent(
                        actor: AuditActor(accountID: account.id, role: account.role.rawValue, name: account.username),
                        action: .signUpCodeCreated,
                        recordType: "sign_up_code",
                        recordID: "\(created.id)",
                        origin: .commandLine
                    ),
                    on: db
                )
                return (code, created.expiresAt)
            }
        }
    }

    /// Fills an empty database with demo accounts and returns their sign-in details, to be shown once.
    public static func seedDemo(settings: Settings) async throws -> [DemoSeeder.Credential] {
        let sealer = try Sealer.load(settings)
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        return try await database.whileRunning {
            try await Migrator(database: database, logger: logger(settings)).migrate()
            return try await DemoSeeder(database: database, dependencies: Dependencies(), sealer: sealer, settings: settings).seed()
        }
    }

    /// Renders every stored post again from its source with the current SafeHTML policy.
    public static func resanitize(settings: Settings) async throws -> DeskResanitizer.Report {
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        return try await database.whileRunning {
            try await Migrator(database: database, logger: logger(settings)).migrate()
            return try await DeskResanitizer(database: database).run()
        }
    }

    /// Counts every event into the analytics' aggregates again on the program's current clock (after its
    /// time zone changed); returns how many days of counts there are now.
    public static func recountAnalytics(settings: Settings) async throws -> Int {
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        return try await database.whileRunning {
            try await Migrator(database: database, logger: logger(settings)).migrate()
            return try await database.transaction { db in
                let clock = try await ProgramSettingsRepository().clock(on: db)
                try await AnalyticsAggregates().rebuild(clock: clock, on: db)
                return try await AnalyticsAggregates().stored(on: db).counts.count
            }
        }
    }

    /// What the backup commands record in the audit log.
    static let auditActions: [AuditAction] = [.backupTaken, .backupRestored, .sealingKeyRotated, .uploadsMovedIntoDatabase]

    /// Copies the database (while the servers may be running) and the data folder into a new archive at
    /// `path`: SQLite with its online backup API, PostgreSQL with `pg_dump` (README.md, "Operations").
    public static func backup(settings: Settings, to path: String) async throws -> BackupReport {
        let archive = DataBackup.absolute(path)
        let source: DataBackup.Source
        switch try DatabaseLocation(url: settings.databaseURL) {
        case .sqlite(let databasePath):
            try DataBackup.refuseUnlessPossible(databasePath: databasePath, dataDirectory: settings.dataDirectory, archivePath: archive)
            source = .sqlite(path: databasePath)
        case .postgres:
            try DataBackup.refuseUnlessPossible(databasePath: nil, dataDirectory: settings.dataDirectory, archivePath: archive)
            let tools = try PostgresTools(url: settings.databaseURL)
            let version = try await schema(settings) { try await $0.currentVersion() }
            guard version > 0 else {
                throw BackupRefused("The database has no CarePortal schema (no schema_migrations table): nothing was backed up.")
            }
            source = .postgres(tools, schemaVersion: version)
        }
        // Recorded before anything is copied, as every export is, so the backup holds its own entry.
        try await record(.backupTaken, detail: archive, settings: settings)
        return try await NIOThreadPool.singleton.runIfActive {
            try DataBackup.create(source, dataDirectory: settings.dataDirectory, archivePath: archive, now: Date())
        }
    }

    /// Puts a backup archive back where DATABASE_URL and DATA_DIR point, both of which must be empty (a SQLite
    /// file that does not exist yet, or a PostgreSQL database without a table), and records in the restored
    /// audit log which backup it was.
    public static func restore(settings: Settings, from path: String) async throws -> BackupReport {
        let target: DataRestore.Target
        switch try DatabaseLocation(url: settings.databaseURL) {
        case .sqlite(let databasePath):
            target = .sqlite(path: databasePath)
        case .postgres:
            let tools = try PostgresTools(url: settings.databaseURL)
            let tables = try await schema(settings) { try await $0.tableCount() }
            guard tables == 0 else {
                throw BackupRefused(
                    """
                    The database DATABASE_URL names holds \(tables) tables. A restore never replaces a database: create a new, \
                    empty one (createdb) and point DATABASE_URL at it (nothing was restored).
                    """
                )
            }
            target = .postgres(tools)
        }
        let report = try await NIOThreadPool.singleton.runIfActive {
            try DataRestore.restore(
                archivePath: path,
                into: target,
                dataDirectory: settings.dataDirectory,
                latestSchemaVersion: SchemaHistory.latestVersion
            )
        }
        if case .postgres = target {
            let version = try await schema(settings) { try await $0.currentVersion() }
            guard version == report.manifest.schemaVersion else {
                throw BackupRefused(
                    "The restored database is at schema version \(version), not the \(report.manifest.schemaVersion) its manifest says."
                )
            }
        }
        do {
            try await record(
                .backupRestored,
                detail: "backup of \(report.manifest.createdAt), \(report.fileCount) files",
                settings: settings
            )
        } catch {
            throw BackupRefused("The backup was restored, but the restore could not be recorded in its audit log: \(error)")
        }
        return report
    }

    /// On PostgreSQL, moves the uploads kept under DATA_DIR (by a CarePortal from before they were kept in the
    /// database) into the database, each checked by its SHA-256 before its file is removed.
    public static func moveUploadsIntoDatabase(settings: Settings) async throws -> UploadMove.Report {
        guard case .postgres = try DatabaseLocation(url: settings.databaseURL) else {
            throw UploadsStayInDataDir()
        }
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        return try await database.whileRunning {
            try await Migrator(database: database, logger: logger(settings)).migrate()
            let report = try await UploadMove.move(dataDirectory: settings.dataDirectory, database: database, now: Date.init)
            try await database.transaction { db in
                try await AuditLog(now: Date.init).record(
                    AuditEvent(
                        actor: .system,
                        action: .uploadsMovedIntoDatabase,
                        recordType: "uploads",
                        origin: .commandLine,
                        detail: "\(report.moved) files, \(report.bytes) bytes; \(report.alreadyThere) already there; \(report.left.count) left"
                    ),
                    on: db
                )
            }
            return report
        }
    }

    public struct UploadsStayInDataDir: Error, CustomStringConvertible {
        public var description: String {
            "DATABASE_URL is a SQLite database: its uploads stay under DATA_DIR, beside it. Only on PostgreSQL are they kept in the database."
        }
    }

    /// Asks the database's migrator something (its schema version, its tables), without migrating it.
    private static func schema<T: Sendable>(_ settings: Settings, _ ask: @Sendable (Migrator) async throws -> T) async throws -> T {
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        return try await database.whileRunning { try await ask(Migrator(database: database, logger: logger(settings))) }
    }

    /// Writes one command-line audit entry into the database, without migrating it.
    private static func record(_ action: AuditAction, detail: String, settings: Settings) async throws {
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        try await database.whileRunning {
            try await database.transaction { db in
                try await AuditLog(now: Date.init).record(
                    AuditEvent(
                        actor: .system,
                        action: action,
                        recordType: "backup",
                        origin: .commandLine,
                        detail: detail
                    ),
                    on: db
                )
            }
        }
    }

    static func logger(_ settings: Settings) -> Logger {
        var logger = Logger(label: "careportal")
        logger.logLevel = settings.logLevel
        return logger
    }
}

extension AuditAction {
    static let backupTaken = AuditAction("backup_taken", title: "Backup taken")
    static let backupRestored = AuditAction("backup_restored", title: "Restored from a backup")
    static let uploadsMovedIntoDatabase = AuditAction("uploads_moved_into_database", title: "Uploads moved into the database")
}
