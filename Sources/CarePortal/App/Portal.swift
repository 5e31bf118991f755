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
    let deskCounts = DeskCountsCache()

    var now: Date { dependencies.now() }
}
