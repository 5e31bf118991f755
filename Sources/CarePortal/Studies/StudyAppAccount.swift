import Foundation
import PortalPlatform
import SQLKit

/// The study app's accounts for the shared app-account machinery: a participant signs in with the
/// username made at enrolment; her tokens live in `study_participant_tokens`, and only an active
/// participant's are in force, so withdrawing her ends them at once.
extension AppAccountKind {
    static let participant = AppAccountKind(
        role: "participant",
        apiPrefix: "/api/v1/study",
        identifierField: "username",
        identifierName: "username",
        passwordProblem: { password, username, policy in policy.problem(with: password, username: username) },
        tokens: .init(
            table: "study_participant_tokens",
            ownerColumn: "participant_id",
            ownerTable: "study_participants",
            ownerKey: "id",
            ownerInForce: { $0.where(SQLColumn("status", table: "study_participants"), .equal, SQLBind(StudyParticipant.Status.active.rawValue)) }
        ),
        pagesPath: "/app/study",
        pagesTitle: "Your study",
        credentials: { username, db in
            try await StudyRepository().credentials(username: username, on: db).map {
                Credentials(accountID: $0.id, passwordHash: $0.passwordHash, mayUseApp: $0.active)
            }
        },
        refusal: { _ in StudyAPIController.withdrawn },
        noteActivity: { participantID, activity, now, _, db in
            switch activity {
            case .signedIn, .renewedToken: try await StudyRepository().markActive(id: participantID, at: now, on: db)
            case .failedSignIn: break
            }
        }
    )
}

extension Access {
    /// The study app with a participant's bearer token in force.
    static let participant = Access.app(.participant)
    /// The Study section: administrators and researchers.
    static let studyStaff = Access.staff([.administrator, .researcher])
    /// The participant's pages in the web app, with her app cookie in force.
    static let participantPages = Access.appPage(.participant)
}

extension PortalContext {
    /// The participant behind the bearer token; participant routes always have one.
    func requireParticipant() throws -> AppAccountHolder {
        guard let holder = appAccount, holder.kind == .participant else { throw APIError.unauthorized }
        return holder
    }
}

extension AppAccountRef {
    static func participant(_ id: Int64) -> AppAccountRef { AppAccountRef(role: AppAccountKind.participant.role, accountID: id) }
}

extension FeedbackInbox {
    /// The study's feedback inbox, where researchers read what participants send from the app: each
    /// message under her study id, linked to her record.
    static let researchStudy = FeedbackInbox(
        program: .researchStudy,
        access: .studyStaff,
        page: .studyFeedback,
        handled: SiteURL.studyFeedbackHandled,
        sender: "participant",
        auditAction: .studyFeedbackHandled,
        authors: { authors, db in
            let ids = authors.filter { $0.role == AppAccountKind.participant.role }.map(\.accountID)
            let codes = try await StudyRepository().studyCodes(ids: ids, on: db)
            return Dictionary(
                uniqueKeysWithValues: codes.map {
                    (AppAccountRef.participant($0.key), FeedbackInbox.Author(name: $0.value, path: SiteURL.studyParticipant($0.key).path))
                }
            )
        }
    )
}
