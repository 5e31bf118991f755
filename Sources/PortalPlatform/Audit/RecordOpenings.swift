import Foundation
import Hummingbird
import SQLKit

/// "Who opened my record, when, and why": the staff openings of one person's record that the audit log
/// already holds, as that person may read them in her app (the HIPAA accounting-of-disclosures idea).
/// Only openings by a staff account count; what she did herself, or a system job, does not.
package struct RecordOpenings: Sendable {
    /// One opening as she reads it.
    package struct Opening: Encodable, Sendable {
        package let openedAt: Date
        /// "dr.ana, Physician", or "A member of staff" where the program hides staff names.
        package let by: String
        /// The staff member's role ("Physician"), always shown.
        package let role: String
        /// The staff member's username; absent where the program hides staff names.
        package let name: String?
        /// Why, in her words: "Looked at your record".
        package let why: String
    }

    /// A page of openings, newest first.
    package struct Page: Encodable, Sendable {
        package let openings: [Opening]
        package let page: Int
        package let pageCount: Int
        package let totalCount: Int
    }

    /// The kind of record (`audit_log.record_type`) and, for each audited action that opens it, why in her words.
    package let recordType: String
    package let reasons: [AuditAction: String]

    package init(recordType: String, reasons: [AuditAction: String]) {
        self.recordType = recordType
        self.reasons = reasons
    }

    static let pageSize = 20

    /// Page `number` of the openings of record `recordID`, newest first.
    package func page(_ number: Int, of recordID: Int64, hidingNames: Bool, on db: any SQLDatabase) async throws -> Page {
        let actions = reasons.keys.map(\.rawValue).sorted()
        let found = try await db.seek(
            PageRequest(number: number, size: Self.pageSize),
            order: ListOrder("time", keys: [.integer("occurred_at"), .integer("id")], descending: true),
            rows: { builder in
                builder.from("audit_log")
                    .where("record_type", .equal, recordType).where("record_id", .equal, "\(recordID)")
                    .where("action", .in, actions).where("outcome", .equal, AuditOutcome.success.rawValue)
                    .where("actor_account_id", .isNot, SQLLiteral.null)
                    .where("actor_role", .in, StaffRole.allCases.map(\.rawValue))
            },
            decode: { row in
                let role = StaffRole(rawValue: try row.decode(column: "actor_role", as: String.self))?.title ?? "Staff"
                let name = hidingNames ? nil : try row.decode(column: "actor_name", as: String?.self)
                let action = try row.decode(column: "action", as: String.self)
                return Opening(
                    openedAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
                    by: name.map { "\($0), \(role)" } ?? "A member of staff",
                    role: role,
                    name: name,
                    why: reasons.first { $0.key.rawValue == action }?.value ?? "Opened your record"
                )
            }
        )
        return Page(openings: found.items, page: found.request.number, pageCount: found.pageCount, totalCount: found.totalCount)
    }
}

extension Portal {
    /// `GET …/record-openings?page=N` for the app account signed in: her record's openings by staff.
    package func recordOpeningsResponse(_ openings: RecordOpenings, of holder: AppAccountHolder, request: Request) async throws -> Response {
        guard let number = Int(request.uri.queryParameters.get("page") ?? "1"), (1...100_000).contains(number) else {
            throw APIError.invalidQuery(["page": "Use a page number from 1"])
        }
        let hiding = programSettings.current.hidesStaffNamesFromPeople
        let page = try await database.read { db in try await openings.page(number, of: holder.accountID, hidingNames: hiding, on: db) }
        return .json(page)
    }
}
