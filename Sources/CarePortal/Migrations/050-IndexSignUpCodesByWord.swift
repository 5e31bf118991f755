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
        try await db.create(table: "sign_up_code_words")
            .column("word_start", type: .text, .notNull)
            .column("code_id", type: .bigint, .notNull, .references("sign_up_codes", "id", onDelete: .cascade))
            .column("created_at", type: .bigint, .notNull)
            .primaryKey("word_start", "code_id")
            .run()
        try await db.create(index: "sign_up_code_words_start").on("sign_up_code_words")
            .column("word_start").column("created_at").column("code_id").run()
        try await db.create(index: "sign_up_code_words_code").on("sign_up_code_words").column("code_id").run()
        let repository = SignUpCodeRepository()
        var after: Int64 = 0
        while true {
            let rows = try await db.select().columns("id", "note", "created_at").from("sign_up_codes")
                .where("id", .greaterThan, after).orderBy("id").limit(500).all()
            guard let last = rows.last else { break }
            for row in rows {
                try await repository.writeSearchWords(
                    codeID: try row.decode(column: "id", as: Int64.self), note: try row.decode(column: "note", as: String.self),
                    createdAt: try row.decode(column: "created_at", as: Int64.self), on: db
                )
            }
            after = try last.decode(column: "id", as: Int64.self)
        }
    }
}
