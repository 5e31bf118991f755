import Foundation
import Hummingbird
import PortalPlatform

/// Administrators make sign-up codes to read to women over the phone, and revoke unused ones.
struct SignUpCodesController {
    static let access = Access.administrators
    let portal: Portal
    let codes = SignUpCodeRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.signUpCodes.pattern, access: Self.access, list)
        routes.get(SiteURL.newSignUpCode.pattern, access: Self.access, showNew)
        routes.post(SiteURL.newSignUpCode.pattern, access: Self.access, create)
        routes.post(SiteURL.pattern(SiteURL.signUpCodeRevoke), access: Self.access, revoke)
    }

    static let noteMaximumLength = 100

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let status = request.query("status").flatMap(SignUpCode.Status.init(rawValue:))
        // A note is at most 100 characters, so no longer search could match one (and each word typed is looked up).
        let search = String((request.query("q") ?? "").prefix(Self.noteMaximumLength))
        let pageRequest = try request.pageRequest()
        let now = portal.now
        let (page, pseudonyms) = try await portal.database.read { db in
            let page = try await codes.list(status: status, search: search, page: pageRequest, now: now, on: db)
            return (page, try await MemberRepository().pseudonyms(ids: page.items.compactMap(\.usedByMemberID), on: db))
        }
        let address = ListAddress(path: SiteURL.signUpCodes.path, parameters: [("status", status?.rawValue), ("q", search)])
        let rows = SignUpCodeRows.html(
            page.items,
            now: now,
            pseudonyms: pseudonyms,
            clock: portal.programSettings.current.clock,
            csrfToken: context.session?.csrfToken ?? ""
        )
        return portal.pages.response(
            SignUpCodesPage(
                layout: portal.layout("Sign-up codes", context: context, current: .signUpCodes),
                search: search,
                statusOptions: [FilterOption(value: "", title: "All codes", isSelected: status == nil)]
                    + SignUpCode.Status.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == status) },
                rows: rows.html,
                hasRows: !rows.isEmpty,
                pagination: portal.pages.html(PaginationView(page, address: address, noun: "codes")),
                isFiltered: status != nil || !search.isEmpty
            )
        )
    }

    @Sendable func showNew(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(
            NewSignUpCodePage(
                layout: portal.layout("New sign-up code", context: context, current: .signUpCodes),
                errors: [],
                fields: NewSignUpCodePage.fields()
            )
        )
    }

    private struct NewCodeForm: Decodable {
        var note: String?

        var trimmedNote: String { note?.trimmed ?? "" }

        /// What is wrong with the note, by field.
        var problems: FormErrors {
            var errors = FormErrors()
            if trimmedNote.count > SignUpCodesController.noteMaximumLength {
                errors.add("note", "The note must be \(SignUpCodesController.noteMaximumLength) characters or fewer")
            }
            return errors
        }
    }

    @Sendable func create(request: Request, context: PortalContext) async throws -> Response {
        guard let staff = context.staff else { throw AccessDenied() }
        let form = try await request.form(NewCodeForm.self, context: context)
        let (note, errors) = (form.trimmedNote, form.problems)
        guard errors.isEmpty else {
            let layout = portal.layout("New sign-up code", context: context, current: .signUpCodes)
            return portal.pages.response(NewSignUpCodePage(layout: layout, note: note, errors: errors), status: .unprocessableContent)
        }
        let origin = portal.origin(of: request, context: context)
        let (code, created) = try await portal.database.transaction { db in
            let (code, created) = try await codes.issue(
                note: note,
                lifetime: portal.programSettings.current.codeLifetime,
                createdBy: staff.id,
                randomBytes: portal.dependencies.randomBytes,
                now: portal.now,
                on: db
            )
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .signUpCodeCreated,
                    recordType: "sign_up_code",
                    recordID: "\(created.id)",
                    origin: origin
                ),
                on: db
            )
            return (code, created)
        }
        let layout = portal.layout("Sign-up code", context: context, current: .signUpCodes)
        let clock = portal.programSettings.current.clock
        return portal.pages.response(SignUpCodeCreatedPage(layout: layout, code: code, note: note, expiresAt: created.expiresAt, clock: clock))
    }

    @Sendable func revoke(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let staff = context.staff else { throw AccessDenied() }
        let origin = portal.origin(of: request, context: context)
        let revoked = try await portal.database.transaction { db in
            guard try await codes.find(id: id, on: db) != nil else { throw HTTPError(.notFound) }
            guard try await codes.revoke(id: id, by: staff.id, now: portal.now, on: db) else { return false }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .signUpCodeRevoked,
                    recordType: "sign_up_code",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return true
        }
        try await portal.flash(
            revoked
                ? Flash(.success, "Code #\(id) is revoked and can no longer be used.")
                : Flash(.warning, "Code #\(id) was not revoked: it has already been used, has expired or was revoked before."),
            context: context
        )
        return seeOther(.signUpCodes)
    }

    /// "K7M4XP" → "K 7 M – 4 X P": two groups of three, one character at a time.
    static func spoken(_ code: String) -> String {
        let characters = code.map(String.init)
        let middle = characters.count / 2
        return characters[..<middle].joined(separator: " ") + " – " + characters[middle...].joined(separator: " ")
    }
}
