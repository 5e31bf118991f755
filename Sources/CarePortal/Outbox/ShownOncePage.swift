import Foundation
import PortalPlatform

extension Portal {
    /// Whether mail leaves the outbox: a mail transport is set up (`SMTP_URL`).
    var deliversMail: Bool { dependencies.mailTransport != nil }
}

/// Where no mail server is set up, the link or token an email carries is shown once to the member of
/// staff whose form made it, on the page that answers the form; the outbox keeps the email sealed and
/// masks the secret, so it is never shown again.
struct ShownOncePage: Page {
    static let template = TemplateName.shownOnce
    let layout: Layout
    /// "Amira Haddad is invited".
    let heading: String
    /// What to do with it: "Give Amira Haddad this link yourself …".
    let lead: String
    /// "Invitation link", "Claim token".
    let label: String
    let secret: String
    /// Until when it works, and what happens to earlier ones.
    let note: String
    let continuePath: String
    let continueTitle: String

    let labelLowercased: String

    init(layout: Layout, heading: String, lead: String, label: String, secret: String, note: String, continuePath: String, continueTitle: String) {
        self.layout = layout
        self.heading = heading
        self.lead = lead
        self.label = label
        self.secret = secret
        self.note = note
        self.continuePath = continuePath
        self.continueTitle = continueTitle
        labelLowercased = label.lowercased()
    }
}
