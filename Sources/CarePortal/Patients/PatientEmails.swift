import Foundation
import Hummingbird
import PortalPlatform

extension Mail {
    /// The email that lets a new patient claim her app account. The token travels only here: never in a
    /// log or the audit log. It carries no health information.
    static func claimToken(patient: Patient, token: ClaimToken, expiresAt: Date, settings: Settings) -> Mail {
        Mail(
            recipient: patient.contact.email,
            subject: "Your \(settings.programName) app account",
            body: """
                Hello \(patient.contact.firstName),

                Your physician has set up an account for you in the \(settings.programName) app, where you can see your medications and exercises, tick them off each day and get reminders.

                To claim it, open the app and choose "I have a claim token", or open \(settings.baseURL)\(SiteURL.appPatientClaim.path) in your phone's browser, and enter:

                \(token.grouped)

                You are shown your name and medical number to confirm, then you choose a username and password.

                The token works once, until \(DisplayTime.dateTime(expiresAt)). If it has expired, ask your physician to send a new one.

                If you did not expect this email, you can ignore it.

                \(settings.programName)
                """,
            secrets: [token.grouped, token.value]
        )
    }

    /// A reminder that doses or exercises are still to do today. Names nothing: email is not the place for health details.
    static func reminder(to email: String, firstName: String, toDo: Int, settings: Settings, frequency: ReminderSettings.Frequency) -> Mail {
        Mail(
            recipient: email,
            subject: "A reminder from \(settings.programName)",
            body: """
                Hello \(firstName),

                You have \(toDo) \(toDo == 1 ? "medication or exercise" : "medications and exercises") still to do today. Open the \(settings.programName) app to see them and tick them off.

                You asked for reminders \(frequency.title.lowercased()). To change how often, or to stop these emails, go to Options in the app.

                \(settings.programName)
                """
        )
    }
}

/// Without a mail server, a patient's claim token, shown once to the physician who made it.
struct PatientClaimShownOnce {
    let portal: Portal

    func page(_ patient: Patient, token: ClaimToken, expiresAt: Date, heading: String, earlier: String?, context: PortalContext) -> Response {
        portal.pages.response(
            ShownOncePage(
                layout: portal.layout(heading, context: context, current: .patients),
                heading: heading,
                lead: "Give \(patient.fullName) this claim token yourself: in the app she chooses “I have a claim token” and enters it.",
                label: "Claim token",
                secret: token.grouped,
                note: "It works once, until \(portal.programSettings.current.clock.dateTime(expiresAt)).\(earlier.map { " \($0)" } ?? "")",
                continuePath: SiteURL.patient(patient.id).path,
                continueTitle: "Open \(patient.fullName)’s record"
            )
        )
    }
}
