import Foundation
import PortalPlatform
import SQLKit

/// Claiming a patient's app account with the token her physician emailed: finding whose it is (a wrong
/// token counts against the address, so tokens cannot be guessed) and making the account hers with a
/// username and password. The patient API and the web app both claim through this.
enum PatientClaim {
    static let wrongToken =
        "This claim token is not valid. Check it against the email from your physician: each token works once, and only until it expires"

    /// The patient a claim token opens; throws the API's error shape (`claim_token`, or 429 while paused).
    static func patient(token typed: String?, origin: AuditOrigin, portal: Portal) async throws -> Patient {
        let (_, ownerID) = try await PatientAccountRepository.claims.ownerOfClaimRequest(
            typed,
            throttleKey: origin.address.map { .patientClaim($0) },
            failedClaim: AuditEvent(
                actor: .anonymous,
                action: .patientAccountClaimed,
                recordType: "patient",
                outcome: .failure,
                origin: origin,
                detail: "claim token not usable"
            ),
            wrongToken: wrongToken,
            now: portal.now,
            portal: portal
        )
        guard let patient = try await portal.database.read({ db in try await PatientRepository().find(id: ownerID, on: db) }) else {
            throw APIError.validation(["claim_token": wrongToken])
        }
        return patient
    }

    /// Whoever holds the token reads her name and number: recorded like any read of her record. Returns her physician's name.
    static func recordChecked(_ patient: Patient, where place: String, origin: AuditOrigin, portal: Portal) async throws -> String {
        try await portal.database.transaction { db in
            try await portal.audit.record(
                AuditEvent(
                    actor: .anonymous,
                    action: .patientViewed,
                    recordType: "patient",
                    recordID: "\(patient.id)",
                    origin: origin,
                    detail: "claim token checked in \(place)"
                ),
                on: db
            )
            return try await PatientRepository().physicianNames(ids: [patient.physicianID], on: db)[patient.physicianID] ?? ""
        }
    }

    /// The problems with a username and password she chose, by field.
    static func problems(username: String, password: String, portal: Portal) -> [String: String] {
        var problems: [String: String] = [:]
        if let problem = FieldRules.usernameProblem(username) { problems["username"] = problem }
        if let problem = portal.passwordPolicy.problem(with: password, username: username) { problems["password"] = problem }
        return problems
    }

    /// Someone else has the username she chose.
    struct UsernameTaken: Error {}

    /// Makes the account hers (checked with `problems` first) and signs her in: the token's one use, audited,
    /// with a bearer token issued in the same transaction.
    static func claim(
        _ patient: Patient,
        token typed: String,
        username: String,
        password: String,
        origin: AuditOrigin,
        portal: Portal
    ) async throws -> (token: String, expiresAt: Date) {
        let hash = try await portal.passwords.hash(password)
        let now = portal.now
        do {
            return try await portal.database.transaction { db in
                guard
                    try await PatientAccountRepository().claim(
                        token: ClaimToken.normalized(typed),
                        username: username,
                        passwordHash: hash,
                        now: now,
                        on: db
                    ) == patient.id
                else {
                    throw APIError.validation(["claim_token": wrongToken])
                }
                try await PatientRepository().markActivity(id: patient.id, at: now, on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: AuditActor(accountID: patient.id, role: "patient", name: nil),
                        action: .patientAccountClaimed,
                        recordType: "patient",
                        recordID: "\(patient.id)",
                        origin: origin
                    ),
                    on: db
                )
                return try await AppAccountKind.patient.bearerTokens.issue(
                    ownerID: patient.id,
                    randomBytes: portal.dependencies.randomBytes,
                    now: now,
                    on: db
                )
            }
        } catch is PatientUsernameTaken {
            throw UsernameTaken()
        }
    }
}
