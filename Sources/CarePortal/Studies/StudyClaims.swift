import Foundation
import Hummingbird
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

/// Her claim token sent again: a new one replaces the earlier, emailed and logged in the caller's transaction;
/// or why there is none to send.
enum StudyClaimResend: Sendable {
    case sent(StudyParticipant, email: String, expires: Date)
    /// She has claimed her account, was given a one-time password, or has been withdrawn.
    case nothingToSend(studyCode: String)
    case alreadyClaimed(studyCode: String)

    /// The participant it was sent to, when it was.
    var participant: StudyParticipant? {
        if case .sent(let participant, _, _) = self { return participant }
        return nil
    }

    func message(clock: ProgramClock) -> Flash {
        switch self {
        case .sent(_, let email, let expires):
            Flash(
                .success,
                "A new claim token has been emailed to \(email); it works until \(clock.dateTime(expires)). The earlier one no longer works."
            )
        case .nothingToSend(let studyCode):
            Flash(
                .warning,
                "\(studyCode) has no claim token to send: she has claimed her account, was given a one-time password, or has been withdrawn."
            )
        case .alreadyClaimed(let studyCode): Flash(.warning, "\(studyCode) has already claimed her app account.")
        }
    }

    static func send(
        _ token: ClaimToken,
        participantID id: Int64,
        actor: AuditActor,
        origin: AuditOrigin,
        now: Date,
        portal: Portal,
        on db: any SQLDatabase
    ) async throws -> StudyClaimResend {
        guard let participant = try await StudyRepository().participant(id: id, on: db) else { throw HTTPError(.notFound) }
        guard StudyParticipantsController.maySendClaim(participant, now: now), let email = participant.email else {
            return .nothingToSend(studyCode: participant.studyCode)
        }
        guard try await StudyRepository.claims.issue(ownerID: id, token: token, now: now, on: db) else {
            return .alreadyClaimed(studyCode: participant.studyCode)
        }
        let expires = ClaimTokens.expiry(sentAt: now)
        try await portal.outbox.enqueue(
            .studyClaimToken(
                to: email,
                username: participant.username,
                token: token,
                expiresAt: expires,
                settings: portal.settings,
                clock: portal.programSettings.current.clock
            ),
            on: db
        )
        try await portal.audit.record(
            AuditEvent(
                actor: actor,
                action: .studyClaimTokenSent,
                recordType: "study_participant",
                recordID: "\(id)",
                origin: origin,
                detail: "sent again"
            ),
            on: db
        )
        return .sent(participant, email: email, expires: expires)
    }
}

extension ShownOncePage {
    /// Her new claim token, for staff to give her themselves when no mail server sends it.
    init(claimToken token: ClaimToken, for participant: StudyParticipant, heading: String, now: Date, clock: ProgramClock, layout: Layout) {
        self.init(
            layout: layout,
            heading: heading,
            lead:
                "Give her this claim token yourself: in the app she chooses “I have a claim token”, enters it and chooses her password. Her username is \(participant.username).",
            label: "Claim token",
            secret: token.grouped,
            note: "It works once, until \(clock.dateTime(ClaimTokens.expiry(sentAt: now))). The earlier one no longer works.",
            continuePath: SiteURL.studyParticipant(participant.id).path,
            continueTitle: "Open \(participant.studyCode)’s record"
        )
    }
}
