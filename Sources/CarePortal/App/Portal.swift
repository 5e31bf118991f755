import Foundation
import Logging

/// The shared machinery every controller works with.
struct Portal: Sendable {
    let settings: Settings
    let dependencies: Dependencies
    let database: Database
    let sessions: Sessions
    let audit: AuditLog
    let pages: PageRenderer
    let passwords: PasswordHasher
    let passwordPolicy: PasswordPolicy
    let outbox: Outbox
    let programSettings: ProgramSettingsStore
    let logger: Logger
    let deskList = DeskListCache()
    let recentAdherence = RecentAdherenceCache(budget: 20_000)
    let patientCharts = PatientChartsCache(budget: 2_000)
    let deskReplies = DeskRepliesCache.make()
    /// Audit entries that stand alone (a record was opened), committed together with any others
    /// recorded at the same moment.
    private let accessRecords: GroupCommit<AuditEvent>

    init(
        settings: Settings, dependencies: Dependencies, database: Database, sessions: Sessions, audit: AuditLog,
        pages: PageRenderer, passwords: PasswordHasher, passwordPolicy: PasswordPolicy, outbox: Outbox,
        programSettings: ProgramSettingsStore, logger: Logger
    ) {
        self.settings = settings
        self.dependencies = dependencies
        self.database = database
        self.sessions = sessions
        self.audit = audit
        self.pages = pages
        self.passwords = passwords
        self.passwordPolicy = passwordPolicy
        self.outbox = outbox
        self.programSettings = programSettings
        self.logger = logger
        accessRecords = GroupCommit { events in
            try await database.transaction { db in try await audit.record(events, on: db) }
        }
    }

    var now: Date { dependencies.now() }

    /// Records an audit entry that goes with no other change, such as a patient's record being read;
    /// returns once it is committed. Inside a transaction, record the entry on that transaction's
    /// database instead (`audit.record(_:on:)`): waiting here for a commit that needs the writer's
    /// turn the caller holds would never end, so it throws `NestedTransaction`.
    func recordAccess(_ event: AuditEvent) async throws {
        guard !Database.isInTransaction else { throw NestedTransaction() }
        try await accessRecords.submit(event)
    }
}

/// Services that hold the portal (`Housekeeping`, `PatientReminders`) are described in the log when the
/// server starts at `debug`; the portal's settings hold secrets (the database's and the mail server's
/// passwords), so its description is its name alone.
extension Portal: CustomStringConvertible {
    var description: String { "Portal" }
}
