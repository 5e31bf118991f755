import Foundation
import Logging

/// The shared machinery every controller works with. What belongs to one feature (its caches, its
/// repositories) lives in that feature's folder, not here.
package struct Portal: Sendable {
    package let settings: Settings
    package let dependencies: Dependencies
    package let database: Database
    package let sessions: Sessions
    package let audit: AuditLog
    package let pages: PageRenderer
    package let passwords: PasswordHasher
    package let passwordPolicy: PasswordPolicy
    package let outbox: Outbox
    /// Seals the portal's secrets at rest under the operator's sealing key (`outbox` holds the same).
    package var sealer: Sealer { outbox.sealer }
    package let programSettings: ProgramSettingsStore
    package let logger: Logger
    /// What the running features bring to the shared pages: navigation, home cards, programs, audit actions.
    package let contributions: Contributions
    /// The audit actions the running features declared, by raw value.
    package let auditVocabulary: AuditVocabulary
    /// Signals of changes, heard by every server (chat messages to push to the sockets each server holds).
    package let live: LiveSignals
    /// The features' WebSocket endpoints.
    package let webSockets = WebSocketEndpoints()
    /// Every app account's notification feed.
    package let notifications: Notifications
    /// What the server measures for the operator's monitoring (`/metrics`).
    package let metrics: PortalMetrics

    package init(
        settings: Settings,
        dependencies: Dependencies,
        database: Database,
        sessions: Sessions,
        audit: AuditLog,
        pages: PageRenderer,
        passwords: PasswordHasher,
        passwordPolicy: PasswordPolicy,
        outbox: Outbox,
        programSettings: ProgramSettingsStore,
        contributions: Contributions,
        logger: Logger,
        metrics: PortalMetrics = PortalMetrics()
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
        self.contributions = contributions
        self.metrics = metrics
        auditVocabulary = AuditVocabulary(contributions.auditActions)
        live = LiveSignals(database: database)
        notifications = Notifications(now: dependencies.now)
    }

    package var now: Date { dependencies.now() }

    /// The uploaded files of one use (`"videos"`, `"deals"`): in the database on PostgreSQL, so every server
    /// serves every file; under `DATA_DIR/<folder>` on SQLite.
    package func uploads(_ folder: String) -> UploadStore {
        UploadStore.of(
            folder,
            database: database,
            dataDirectory: settings.dataDirectory,
            randomBytes: dependencies.randomBytes,
            now: dependencies.now
        )
    }

    /// Records an audit entry that goes with no other change, such as a patient's record being read;
    /// returns once it is committed. Inside a transaction, record the entry on that transaction's
    /// database instead (`audit.record(_:on:)`): waiting here for a commit that needs the writer's
    /// turn the caller holds would never end, so it throws `NestedTransaction`.
    package func recordAccess(_ event: AuditEvent) async throws {
        guard !Database.isInTransaction else { throw NestedTransaction() }
        try await database.writeAlone { db in try await audit.record(event, on: db) }
    }
}

/// Services that hold the portal (`Housekeeping`, `BackgroundJobs`) are described in the log when the
/// server starts at `debug`; the portal's settings hold secrets (the database's and the mail server's
/// passwords), so its description is its name alone.
extension Portal: CustomStringConvertible {
    package var description: String { "Portal" }
}
