import Foundation
import PortalPlatform

/// The sign-up codes list's rows (`TableRows`): the code's number, its private note, when it was made and when it
/// expires, its status (with who used it and when, linking to her record while she has one), and a button to
/// revoke it while it is unused.
enum SignUpCodeRows {
    static func html(_ codes: [SignUpCode], now: Date, pseudonyms: [Int64: String], clock: ProgramClock, csrfToken: String) -> TableRows {
        TableRows(codes) { code, cells in
            let status = code.status(at: now)
            let number = "#\(code.id)"
            cells.text(number)
            cells.text(code.note.isEmpty ? "—" : code.note)
            cells.text(clock.dateTime(code.createdAt))
            cells.text(clock.dateTime(code.expiresAt))
            cells.cell { content in
                content.tag(status.title, tone: status.tagTone)
                guard let usedAt = code.usedAt else { return }
                let pseudonym = code.usedByMemberID.flatMap { pseudonyms[$0] }
                content.lineBreak()
                content.smaller { used in
                    let text = "by \(pseudonym ?? "a member whose data was deleted"), \(clock.dateTime(usedAt))"
                    if pseudonym != nil, let memberID = code.usedByMemberID {
                        used.link(text, to: SiteURL.member(memberID).path)
                    } else {
                        used.text(text)
                    }
                }
            }
            cells.cell { content in
                guard status == .unused else { return }
                content.postButton("Revoke", hidden: " code \(number)", to: SiteURL.signUpCodeRevoke(code.id).path, csrfToken: csrfToken)
            }
        }
    }
}

extension SignUpCode.Status {
    var tagTone: TableRows.TagTone {
        switch self {
        case .unused: .blue
        case .used: .green
        case .expired: .grey
        case .revoked: .red
        }
    }
}

struct SignUpCodesPage: Page {
    static let template = TemplateName.signUpCodes
    let layout: Layout
    let search: String
    let statusOptions: [FilterOption]
    /// The rendered rows (`SignUpCodeRows`).
    let rows: RenderedHTML
    let hasRows: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let isFiltered: Bool
    let action = SiteURL.signUpCodes.path
    let newCodePath = SiteURL.newSignUpCode.path
}

struct NewSignUpCodePage: Page {
    static let template = TemplateName.newSignUpCode
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = SiteURL.newSignUpCode.path
    let listPath = SiteURL.signUpCodes.path

    static func fields(note: String = "") -> [FormField] {
        [
            FormField(
                "note",
                label: "Private note (optional)",
                value: note,
                hint: "Something to find this code again, such as the last 4 digits of her phone number. Only administrators see it.",
                width: 30
            )
        ]
    }
}

extension NewSignUpCodePage {
    /// The form again with what is wrong with it.
    init(layout: Layout, note: String, errors: FormErrors) {
        var fields = Self.fields(note: note)
        errors.apply(to: &fields)
        self.init(layout: layout, errors: errors.items, fields: fields)
    }
}

/// Shown once: after this page only a hash of the code exists.
struct SignUpCodeCreatedPage: Page {
    static let template = TemplateName.signUpCodeCreated
    let layout: Layout
    let code: String
    /// The code spelled out for reading aloud, e.g. "K 7 M – 4 X P".
    let spokenCode: String
    let note: String?
    let expires: String
    let listPath = SiteURL.signUpCodes.path
    let newCodePath = SiteURL.newSignUpCode.path
}

extension SignUpCodeCreatedPage {
    /// The new code, shown once, with her note and until when it works.
    init(layout: Layout, code: String, note: String, expiresAt: Date, clock: ProgramClock) {
        self.init(
            layout: layout,
            code: code,
            spokenCode: SignUpCodesController.spoken(code),
            note: note.isEmpty ? nil : note,
            expires: clock.dateTime(expiresAt)
        )
    }
}
