import Foundation
import PortalPlatform

struct SignUpCodeRow: Sendable, Encodable {
    let number: String
    let note: String
    let created: String
    let expires: String
    let statusTitle: String
    let statusTag: String
    /// For a used code: who used it and when.
    let usedBy: String?
    let usedByPath: String?
    let revokePath: String?

    init(_ code: SignUpCode, now: Date, pseudonyms: [Int64: String], clock: ProgramClock) {
        let status = code.status(at: now)
        number = "#\(code.id)"
        note = code.note.isEmpty ? "—" : code.note
        created = clock.dateTime(code.createdAt)
        expires = clock.dateTime(code.expiresAt)
        statusTitle = status.title
        let pseudonym = code.usedByMemberID.flatMap { pseudonyms[$0] }
        usedBy = code.usedAt.map { "by \(pseudonym ?? "a member whose data was deleted"), \(clock.dateTime($0))" }
        usedByPath = pseudonym == nil ? nil : code.usedByMemberID.map { SiteURL.member($0).path }
        statusTag = switch status {
        case .unused: "tag--blue"
        case .used: "tag--green"
        case .expired: "tag--grey"
        case .revoked: "tag--red"
        }
        revokePath = status == .unused ? SiteURL.signUpCodeRevoke(code.id).path : nil
    }
}

struct SignUpCodesPage: Page {
    static let template = TemplateName.signUpCodes
    let layout: Layout
    let search: String
    let statusOptions: [FilterOption]
    let rows: [SignUpCodeRow]
    /// The rendered `PaginationView`.
    let pagination: String
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
        [FormField("note", label: "Private note (optional)", value: note,
                   hint: "Something to find this code again, such as the last 4 digits of her phone number. Only administrators see it.",
                   width: 30)]
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
