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

/// `POST /api/v1/study/claim`: a participant enrolled with an emailed claim token chooses her password
/// with it and is signed in. The token works once, only until it expires and only while she is in the
/// study; wrong tokens count against the address, so tokens cannot be guessed.
extension StudyAPIController {
    static let wrongClaimToken = "This claim token is not valid. Check it against the email from the study team: each token works once, and only until it expires"

    @Sendable func claim(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(StudyAPI.Claim.self)
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let (token, ownerID) = try await StudyRepository.claims.ownerOfClaimRequest(
            body.claimToken, throttleKey: origin.address.map { .participantClaim($0) },
            failedClaim: AuditEvent(
                actor: .anonymous, action: .studyAccountClaimed, recordType: "study_participant", outcome: .failure, origin: origin,
                detail: "claim token not usable"
            ),
            wrongToken: Self.wrongClaimToken, now: now, portal: portal
        )
        guard let participant = try await portal.database.read({ db in try await studies.participant(id: ownerID, on: db) }) else {
            throw APIError.validation(["claim_token": Self.wrongClaimToken])
        }
        let password = body.password ?? ""
        if let problem = AppAccountKind.participant.passwordProblem(password, participant.username, portal.passwordPolicy) {
            throw APIError.validation(["password": problem])
        }
        let hash = try await portal.passwords.hash(password)
        let session = try await portal.database.transaction { db -> StudyAPI.Session in
            // Checked again as it is used: of two claims with one token, one wins.
            guard try await studies.claim(token: token, passwordHash: hash, now: now, on: db) == participant.id else {
                throw APIError.validation(["claim_token": Self.wrongClaimToken])
            }
            try await studies.markActive(id: participant.id, at: now, on: db)
            try await portal.audit.record(AuditEvent(
                actor: AuditActor(accountID: participant.id, role: AppAccountKind.participant.role, name: nil), action: .studyAccountClaimed,
                recordType: "study_participant", recordID: "\(participant.id)", origin: origin
            ), on: db)
            let issued = try await tokens.issue(ownerID: participant.id, randomBytes: portal.dependencies.randomBytes, now: now, on: db)
            return StudyAPI.Session(token: issued.token, expiresAt: issued.expiresAt, studyId: participant.studyCode, mustChangePassword: false)
        }
        return .json(session, status: .created)
    }
}
