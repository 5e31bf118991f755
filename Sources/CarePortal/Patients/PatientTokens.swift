import Foundation
import SQLKit

/// The bearer tokens the patient app signs in with, kept in `patient_tokens` by the shared
/// `BearerTokens` machinery, with the same lifetimes as the member app's. Only a claimed account's
/// tokens are in force; removing the patient removes them.
struct PatientTokens: Sendable {
    /// Who a token in force belongs to.
    struct Holder: Sendable {
        var patientID: Int64
        var tokenHash: String
        var expiresAt: Date
        var renewed: Bool
    }

    private let tokens = BearerTokens(store: .init(
        table: "patient_tokens", ownerColumn: "patient_id", ownerTable: "patient_accounts", ownerKey: "patient_id",
        ownerInForce: { $0.where(SQLColumn("claimed_at", table: "patient_accounts"), .isNot, SQLLiteral.null) }
    ))

    func issue(patientID: Int64, randomBytes: @Sendable (Int) -> [UInt8], now: Date, on db: any SQLDatabase) async throws -> (token: String, expiresAt: Date) {
        try await tokens.issue(ownerID: patientID, randomBytes: randomBytes, now: now, on: db)
    }

    func resolve(_ token: String, now: Date, in database: Database) async throws -> Holder? {
        try await tokens.resolve(token, now: now, in: database).map {
            Holder(patientID: $0.ownerID, tokenHash: $0.tokenHash, expiresAt: $0.expiresAt, renewed: $0.renewed)
        }
    }

    func revoke(tokenHash: String, on db: any SQLDatabase) async throws {
        try await tokens.revoke(tokenHash: tokenHash, on: db)
    }

    func count(patientID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await tokens.count(ownerID: patientID, on: db)
    }

    func deleteExpired(now: Date, on db: any SQLDatabase) async throws {
        try await tokens.deleteExpired(now: now, on: db)
    }
}
