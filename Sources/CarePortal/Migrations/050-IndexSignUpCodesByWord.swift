import PortalPlatform
import SQLKit

/// The sign-up codes' search of their notes reads this table: every start of every word of each code's note
/// (`WordStarts`), with the time the code was made, indexed `(word_start, created_at, code_id)`, so that a search
/// reads its page, newest first, from one range of the index, and counts there, where `LIKE '%…%'` tested every
/// note. The rows of the codes already made are written here; `SignUpCodeRepository` writes each new code's.
struct IndexSignUpCodesByWord: Migration {
    let version = 50
    let name = "IndexSignUpCodesByWord"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.createSearchTable(
            "sign_up_code_words",
            column: "word_start",
            owner: "code_id",
            references: "sign_up_codes",
            copied: [("created_at", .bigint)],
            order: ["created_at"]
        )
        let repository = SignUpCodeRepository()
        try await db.forEachBatch(of: "sign_up_codes", columns: ["note", "created_at"]) { rows in
            for row in rows {
                try await repository.writeSearchWords(
                    codeID: try row.decode(column: "id", as: Int64.self),
                    note: try row.decode(column: "note", as: String.self),
                    createdAt: try row.decode(column: "created_at", as: Int64.self),
                    on: db
                )
            }
        }
    }
}
