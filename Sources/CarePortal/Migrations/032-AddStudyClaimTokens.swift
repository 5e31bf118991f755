import PortalPlatform
import SQLKit

/// A participant's app account may be claimed with an emailed token instead of a one-time password
/// staff read out: the same columns as a patient's account (`ClaimTokens`), only the token's hash kept.
struct AddStudyClaimTokens: Migration {
    let version = 32
    let name = "AddStudyClaimTokens"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        // One column at a time: SQLite adds one per statement.
        try await db.alter(table: "study_participants").column("claim_token_hash", type: .text).run()
        for column in ["claim_sent_at", "claim_expires_at", "claim_revoked_at", "claimed_at"] {
            try await db.alter(table: "study_participants").column(column, type: .bigint).run()
        }
        try await db.create(index: "study_participants_claim_token").on("study_participants").column("claim_token_hash").unique().run()
    }
}
