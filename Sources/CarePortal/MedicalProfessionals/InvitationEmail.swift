import Foundation
import PortalPlatform

extension StaffInvitation {
    /// The address in the email; the token travels only here and in the accept form, never in a log or the audit log.
    static func link(token: SecretToken, settings: Settings) -> String {
        "\(settings.baseURL)\(SiteURL.invitation.path)?token=\(token.value)"
    }
}

extension Mail {
    /// The plain-text invitation a member of staff receives, addressed by first name.
    static func invitation(_ invitation: StaffInvitation, token: SecretToken, settings: Settings, clock: ProgramClock) -> Mail {
        Mail(
            recipient: invitation.email,
            subject: "Your invitation to \(settings.programName)",
            body: """
                Hello \(invitation.firstName),

                \(invitation.role == .medicalProfessional
                    ? "You are invited to join \(settings.programName) as a medical professional, to answer members' questions."
                    : "You are invited to join \(settings.programName) as \(invitation.role == .administrator ? "an" : "a") \(invitation.role.title.lowercased()).")

                Open this link to choose your username and password\(invitation.role == .medicalProfessional ? " and avatar" : ""):
                \(StaffInvitation.link(token: token, settings: settings))

                The link works once, until \(clock.dateTime(invitation.expiresAt)). If it has expired, ask the administrator who invited you to send a new invitation.

                If you did not expect this email, you can ignore it.

                \(settings.programName)
                """,
            secrets: [token.value]
        )
    }
}
