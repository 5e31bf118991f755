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
}
