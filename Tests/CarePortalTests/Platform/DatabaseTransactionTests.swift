import Foundation
import Testing
@testable import CarePortal

/// Many transactions at once all commit: on SQLite they take turns in memory rather than failing
/// with "database is locked"; a failed one rolls back and lets the next one start.
@Suite struct DatabaseTransactionTests {
    @Test(arguments: TestEngines.all)
    func concurrentTransactionsAllCommitAndAFailedOneLeavesNothing(engine: Database.Engine) async throws {
        struct Abandoned: Error {}
        try await TestPortal.run(engine) { portal in
            let audit = portal.portal.audit
            func event(_ n: Int) -> AuditEvent {
                AuditEvent(actor: .anonymous, action: .accessDenied, recordType: "test", recordID: "\(n)", origin: .commandLine)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 1...30 {
                    group.addTask {
                        do {
                            try await portal.database.transaction { db in
                                try await audit.record(event(n), on: db)
                                if n % 10 == 0 { throw Abandoned() }
                            }
                        } catch is Abandoned {}
                    }
                }
                try await group.waitForAll()
            }
            var query = AuditQuery()
            query.action = .accessDenied
            query.page = PageRequest(number: 1, size: 100)
            let entries = try await portal.database.read { db in try await audit.list(query, on: db) }
            let expected = Set((1...30).filter { $0 % 10 != 0 }.map { "\($0)" })
            #expect(Set(entries.items.compactMap(\.recordID)) == expected)
        }
    }

    /// A transaction inside another, or an access record waiting for a commit inside one, throws at once
    /// instead of waiting for the turn its own caller holds.
    @Test(arguments: TestEngines.all)
    func aTransactionInsideATransactionIsRefusedNotAwaited(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let event = AuditEvent(actor: .anonymous, action: .accessDenied, recordType: "test", recordID: "inner", origin: .commandLine)
            try await portal.database.transaction { _ in
                await #expect(throws: NestedTransaction.self) {
                    try await portal.database.transaction { db in try await portal.portal.audit.record(event, on: db) }
                }
                await #expect(throws: NestedTransaction.self) { try await portal.portal.recordAccess(event) }
            }
            // Outside, both work, and the refused inner one left nothing.
            try await portal.database.transaction { db in try await portal.portal.audit.record(event, on: db) }
            try await portal.portal.recordAccess(event)
            var query = AuditQuery()
            query.record = "test:inner"
            let entries = try await portal.database.read { db in try await portal.portal.audit.list(query, on: db) }
            #expect(entries.items.count == 2)
        }
    }

    /// More entries than one statement may bind are written in several.
    @Test(arguments: TestEngines.all)
    func aLargeBatchOfAuditEntriesIsWrittenWhole(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let events = (1...3_100).map {
                AuditEvent(actor: .anonymous, action: .patientViewed, recordType: "batch", recordID: "\($0)", origin: .commandLine)
            }
            try await portal.database.transaction { db in try await portal.portal.audit.record(events, on: db) }
            let count = try await portal.database.read { db in
                try await db.raw("SELECT COUNT(*) AS n FROM audit_log WHERE record_type = 'batch'").first()?.decode(column: "n", as: Int.self)
            }
            #expect(count == 3_100)
        }
    }
}
