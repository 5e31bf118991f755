import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

extension StudyAPI {
    struct Claim: Decodable, Sendable {
        var claimToken: String?
        var password: String?
    }
}

/// A participant enrolled with an emailed claim token chooses her password with it and is signed in. The
/// token works once, only until it expires and only while she is in the study; wrong tokens count against
/// the address, so tokens cannot be guessed. The study API and the web app both claim through this.
enum ParticipantClaim {
    static let wrongToken =
        "This claim token is not valid. Check it against the email from the study team: each token works once, and only until it expires"

    /// Claims with `typed` and `password`, audited, issuing a bearer token in the same transaction. Throws the
    /// API's error shape: `claim_token` (or 429 while paused) and `password`.
    static func claim(
        token typed: String?,
        password: String,
        origin: AuditOrigin,
        portal: Portal
    ) async throws -> (StudyParticipant, token: String, expiresAt: Date) {
        let studies = StudyRepository()
        let now = portal.now
        let (token, ownerID) = try await StudyRepository.claims.ownerOfClaimRequest(
            typed,
            throttleKey: origin.address.map { .participantClaim($0) },
            failedClaim: AuditEvent(
                actor: .anonymous,
                action: .studyAccountClaimed,
                recordType: "study_participant",
                outcome: .failure,
                origin: origin,
                detail: "claim token not usable"
            ),
            wrongToken: wrongToken,
            now: now,
            portal: portal
        )
        guard let participant = try await portal.database.read({ db in try await studies.participant(id: ownerID, on: db) }) else {
            throw APIError.validation(["claim_token": wrongToken])
        }
        if let problem = AppAccountKind.participant.passwordProblem(password, participant.username, portal.passwordPolicy) {
            throw APIError.validation(["password": problem])
        }
        let hash = try await portal.passwords.hash(password)
        let issued = try await portal.database.transaction { db in
            // Checked again as it is used: of two claims with one token, one wins.
            guard try await studies.claim(token: token, passwordHash: hash, now: now, on: db) == participant.id else {
                throw APIError.validation(["claim_token": wrongToken])
            }
            try await studies.markActive(id: participant.id, at: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: participant.id, role: AppAccountKind.participant.role, name: nil),
                    action: .studyAccountClaimed,
                    recordType: "study_participant",
                    recordID: "\(participant.id)",
                    origin: origin
                ),
                on: db
            )
            return try await AppAccountKind.participant.bearerTokens.issue(
                ownerID: participant.id,
                randomBytes: portal.dependencies.randomBytes,
                now: now,
                on: db
            )
        }
        return (participant, issued.token, issued.expiresAt)
    }
}

/// `POST /api/v1/study/claim` (`ParticipantClaim`).
extension StudyAPIController {
    @Sendable func claim(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(StudyAPI.Claim.self)
        let (participant, token, expiresAt) = try await ParticipantClaim.claim(
            token: body.claimToken,
            password: body.password ?? "",
            origin: portal.origin(of: request, context: context),
            portal: portal
        )
        return .json(
            StudyAPI.Session(token: token, expiresAt: expiresAt, studyId: participant.studyCode, mustChangePassword: false),
            status: .created
        )
    }
}
