import PortalPlatform
import SQLKit

/// Whom each of some rows is written to: every member (`to_everyone`), or the cohorts chosen for it in a
/// link table, read for all the rows in one statement. Broadcasts and surveys are both written this way.
struct CohortAudiences: Sendable {
    private let chosen: [Int64: [Int64]]

    /// The audiences of `rows` (each with `id` and `to_everyone`), their cohorts in `table` by `owner`.
    init(of rows: [any SQLRow], in table: String, by owner: String, on db: any SQLDatabase) async throws {
        let ids = try rows.filter { try !$0.decode(column: "to_everyone", as: Bool.self) }.map { try $0.decode(column: "id", as: Int64.self) }
        chosen = try await db.linkedIDs("cohort_id", in: table, by: owner, for: ids)
    }

    /// The row's cohorts, in order; nil when it is for every member.
    func cohortIDs(of row: any SQLRow) throws -> [Int64]? {
        try row.decode(column: "to_everyone", as: Bool.self) ? nil : chosen[try row.decode(column: "id", as: Int64.self)] ?? []
    }
}
