import Foundation
import PortalPlatform
import SQLKit
import SafeHTML

/// Renders every stored question, reply and earlier reply version again from its source with the
/// current SafeHTML policy, so a tightened policy reaches what was posted before it.
public struct DeskResanitizer: Sendable {
    public struct Report: Sendable, Equatable {
        public var examined = 0
        public var changed = 0
    }

    let database: Database
    static let batchSize = 500

    public func run() async throws -> Report {
        let repository = DeskRepository(engine: database.engine)
        var report = Report()
        for table in DeskBodyTable.allCases {
            var afterID: Int64 = 0
            while true {
                let after = afterID
                let batch = try await database.transaction { db in
                    let rows = try await repository.bodies(of: table, after: after, limit: Self.batchSize, on: db)
                    var changed = 0
                    var threads = Set<Int64>()
                    for row in rows {
                        // A source that no longer renders (say, over today's size limit) keeps its earlier HTML.
                        guard let body = try? InformationDesk.render(row.source), body.html != row.html else { continue }
                        try await repository.setBody(of: table, id: row.id, html: body.html, text: table == .replyVersions ? nil : body.text, on: db)
                        changed += 1
                        if let thread = try await repository.threadID(of: table, id: row.id, on: db) { threads.insert(thread) }
                    }
                    for thread in threads { try await repository.reindex(threadID: thread, on: db) }
                    return (lastID: rows.last?.id, examined: rows.count, changed: changed)
                }
                report.examined += batch.examined
                report.changed += batch.changed
                guard let last = batch.lastID else { break }
                afterID = last
            }
        }
        try await database.transaction { db in
            try await AuditLog(now: Date.init).record(
                AuditEvent(
                    actor: .system,
                    action: .contentResanitized,
                    origin: .commandLine,
                    detail: "\(report.examined) bodies examined, \(report.changed) rendered again"
                ),
                on: db
            )
        }
        return report
    }
}
