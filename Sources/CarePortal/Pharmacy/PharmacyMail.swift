import Foundation
import PortalPlatform

/// The pharmacy's emails: to its staff about a refill, and to customers about their account.
extension Mail {
    /// The pharmacy's word of a new refill request: its number, pickup or delivery, and the link to it in the
    /// portal. Neither the medication nor the customer (HIPAA's minimum necessary): the portal, behind a
    /// pharmacist's sign-in, says both.
    static func newRefill(_ refill: PharmacyRefill, to address: String, store: String, baseURL: String) -> Mail {
        Mail(
            recipient: address,
            subject: "New refill request \(refill.id) (\(refill.fulfilment.title.lowercased()))",
            body: """
                A customer asked \(store) for a refill, for \(refill.fulfilment.title.lowercased()).

                Sign in to the portal to see it:
                \(baseURL)\(SiteURL.pharmacyRefill(refill.id).path)
                """
        )
    }

    /// News about an order: that there is some, and where to read it. Never a medication, a strength or a
    /// status (HIPAA's minimum necessary): the app, behind her password, says what it is.
    static func orderNews(to customer: PharmacyCustomer, store: String) -> Mail {
        Mail(
            recipient: customer.email,
            subject: "News about your order from \(store)",
            body: """
                Hello \(customer.details.firstName),

                There is news about your order. Open the \(store) app and sign in to see it.

                \(store)
                """
        )
    }

    static func pharmacyWelcome(to email: String, firstName: String, store: String) -> Mail {
        Mail(
            recipient: email,
            subject: "Welcome to the \(store) app",
            body: """
                Hello \(MailText.name(firstName, otherwise: "there")),

                Your \(store) account is ready. Sign in to the app with this email address and the password you chose.

                If you did not create this account, please call the pharmacy.

                \(store)
                """
        )
    }

    /// AccountAlreadyExists, told only to the address's owner.
    static func pharmacyAlreadyRegistered(to email: String, store: String) -> Mail {
        Mail(
            recipient: email,
            subject: "Someone tried to register with your email address",
            body: """
                Hello,

                Someone tried to create a \(store) account with this email address, which already has one. If it was you, sign in to the app; if you have forgotten your password, choose "Forgot password" on the sign-in screen.

                If it was not you, you can ignore this email: nothing about your account has changed.

                \(store)
                """
        )
    }

    /// The reset link: a secret that works once, for an hour. It is never a password.
    static func pharmacyPasswordReset(to customer: PharmacyCustomer, link: String, token: SecretToken, store: String) -> Mail {
        Mail(
            recipient: customer.email,
            subject: "Choose a new password for \(store)",
            body: """
                Hello \(customer.details.firstName),

                Someone asked to choose a new password for your \(store) account. To choose one, open this link within an hour:

                \(link)

                The link works once. If you did not ask for this, you can ignore this email: your password has not changed.

                \(store)
                """,
            secrets: [token.value]
        )
    }
}
