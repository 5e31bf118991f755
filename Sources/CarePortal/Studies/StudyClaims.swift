import Foundation
import PortalPlatform
import SQLKit

/// How a participant gets her app login at enrolment: a one-time password staff give her, or a claim
/// token emailed to her, with which she chooses her own password in the app (as patients claim theirs).
enum StudyLogin: String, Sendable, CaseIterable {
    case password
    case email

    var title: String {
        switch self {
        case .password: "Show a one-time password for me to give her"
        case .email: "Email her a claim token: she chooses her own password in the app"
        }
    }
}

/// Her claim token's state, when she was enrolled with one.
struct StudyClaim: Sendable, Equatable {
    let sentAt: Date
    let expiresAt: Date?
    let revokedAt: Date?
    let claimedAt: Date?

    func status(at now: Date) -> ClaimStatus {
        ClaimStatus(expiresAt: expiresAt, revokedAt: revokedAt, claimedAt: claimedAt, now: now)
    }
}

extension StudyRepository {
    /// The shared claim-token machinery on `study_participants`: only an active participant's token works.
    static let claims = ClaimTokens(table: "study_participants", key: "id") {
        $0.where("status", .equal, StudyParticipant.Status.active.rawValue)
    }

    /// Claims her account with the token: her own password replaces the unknown one she was enrolled with.
    func claim(token: String, passwordHash: String, now: Date, on db: any SQLDatabase) async throws -> Int64? {
        try await Self.claims.claim(token: token, now: now, on: db) { update in
            update.set("password_hash", to: passwordHash).set("must_change_password", to: Int64(0))
        }
    }
}

extension Mail {
    /// The email that lets a new participant claim her study app account. The token travels only here:
    /// never in a log or the audit log. It says nothing of her health, her arm or why she is in the study.
    static func studyClaimToken(
        to email: String,
        username: String,
        token: ClaimToken,
        expiresAt: Date,
        settings: Settings,
        clock: ProgramClock
    ) -> Mail {
        Mail(
            recipient: email,
            subject: "Your \(settings.programName) app account",
            body: """
                Hello,

                The study team has set up your account in the \(settings.programName) app.

                Your username is: \(username)

                To choose your password, open the app and choose "I have a claim token", or open \(settings.baseURL)\(SiteURL.appStudyClaim.path) in your phone's browser, and enter:

                \(token.grouped)

                The token works once, until \(clock.dateTime(expiresAt)). If it has expired, ask the study team to send a new one.

                If you did not expect this email, you can ignore it.

                \(settings.programName)
                """,
            secrets: [token.grouped, token.value]
        )
    }
}

/// Study app claims with a wrong token from this address.
extension SignInThrottle.Key {
    static func participantClaim(_ address: String) -> Self {
        Self(stored: "participant-claim:\(address)", limit: SignInThrottle.registrationAddressLimit)
    }
}
