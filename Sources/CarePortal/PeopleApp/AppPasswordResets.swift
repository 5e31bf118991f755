import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// A forgotten password for an app account (a pharmacy customer's, a care receiver's or a caregiver's): the
/// emailed link's page, where she chooses a new password, and the API call an app makes with the same link.
/// Each kind keeps its links in a table of its own and says how its new password is written and audited.
struct AppPasswordReset: Sendable {
    let portal: Portal
    let links: PasswordResetLinks
    /// What the page calls her app: "the Greenway Pharmacy app".
    let appName: String
    /// The page the emailed link opens.
    let page: SiteURL
    /// Writes her new password and ends every session of her account, in the transaction that uses the link.
    let save: @Sendable (_ accountID: Int64, _ passwordHash: String, _ origin: AuditOrigin, _ db: any SQLDatabase) async throws -> Void

    static let sent = "If this address has an account, we have sent it a link to choose a new password. The link works once, for an hour."
    static let expired = "This link has expired or has already been used. Ask for a new one from the app's sign-in screen"

    /// The link the email carries.
    func link(for token: SecretToken) -> String {
        "\(portal.settings.baseURL)\(page.path)?token=\(token.value)"
    }

    /// A new password from a reset link: the link is used once, the password checked, every session ended.
    /// Problems are handed to `refuse` by field (`token`, `password`); her account's id on success.
    func complete(token: String, password: String, origin: AuditOrigin, refuse: ([String: String]) throws -> Void) async throws -> Int64 {
        let hash = SecretToken.hash(token.trimmed)
        let now = portal.now
        guard !token.trimmed.isEmpty, try await portal.database.read({ db in try await links.isUsable(tokenHash: hash, now: now, on: db) }) else {
            try refuse(["token": Self.expired])
            throw APIError.validation(["token": Self.expired])
        }
        if let problem = portal.passwordPolicy.problem(with: password, username: nil) {
            try refuse(["password": problem])
            throw APIError.validation(["password": problem])
        }
        let passwordHash = try await portal.passwords.hash(password)
        let accountID = try await portal.database.transaction { db -> Int64? in
            guard let id = try await links.use(tokenHash: hash, now: now, on: db) else { return nil }
            try await save(id, passwordHash, origin, db)
            return id
        }
        guard let accountID else {
            try refuse(["token": Self.expired])
            throw APIError.validation(["token": Self.expired])
        }
        return accountID
    }

    // MARK: The apps' calls

    /// What an app sends to ask for a link: the address she typed.
    struct Ask: Decodable, Sendable {
        var email: String?
    }

    /// What an app sends from the link: its token and her new password.
    struct Completion: Decodable, Sendable {
        var token: String?
        var password: String?
    }

    /// `POST …/password-resets/complete`: 204, or 422 with the problem by field.
    func complete(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(Completion.self)
        _ = try await complete(token: body.token ?? "", password: body.password ?? "", origin: portal.origin(of: request, context: context)) {
            throw APIError.validation($0)
        }
        return .noContent
    }

    // MARK: The link's page

    private struct ResetForm: Decodable {
        var token: String?
        var password: String?
    }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(page.pattern, access: .everyone) { request, context in try await form(request: request, context: context) }
        routes.post(page.pattern, access: .everyone) { request, context in try await submit(request: request, context: context) }
    }

    func form(request: Request, context: PortalContext) async throws -> Response {
        let token = request.query("token") ?? ""
        let usable = try await portal.database.read { db in try await links.isUsable(tokenHash: SecretToken.hash(token), now: portal.now, on: db) }
        return try await portal.withFormSession(context: context) { context in
            portal.pages.response(
                AppPasswordResetPage(
                    layout: portal.layout("Choose a new password", context: context),
                    action: page,
                    token: token,
                    isUsable: usable && !token.isEmpty,
                    isDone: false,
                    errors: FormErrors(),
                    appName: appName
                )
            )
        }
    }

    func submit(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(ResetForm.self, context: context)
        let token = form.token ?? ""
        var refused: [String: String]?
        do {
            _ = try await complete(token: token, password: form.password ?? "", origin: portal.origin(of: request, context: context)) { refused = $0 }
        } catch is APIError where refused != nil {}
        let errors = FormErrors(items: (refused ?? [:]).sorted { $0.key > $1.key }.map { FormErrors.Item(field: $0.key, message: $0.value) })
        return portal.pages.response(
            AppPasswordResetPage(
                layout: portal.layout("Choose a new password", context: context),
                action: page,
                token: token,
                isUsable: refused?["token"] == nil,
                isDone: refused == nil,
                errors: errors,
                appName: appName
            ),
            status: refused == nil ? .ok : .unprocessableContent
        )
    }
}

extension TemplateName {
    static let appResetPassword = TemplateName("app/reset-password")
}

/// The page an emailed reset link opens: one field, her new password; or why the link no longer works.
struct AppPasswordResetPage: Page {
    static let template = TemplateName.appResetPassword
    let layout: Layout
    let action: String
    let token: String
    let isUsable: Bool
    let isDone: Bool
    let errors: [FormErrors.Item]
    let passwordField: FormField
    let appName: String

    init(layout: Layout, action: SiteURL, token: String, isUsable: Bool, isDone: Bool, errors: FormErrors, appName: String) {
        self.layout = layout
        self.action = action.path
        self.token = token
        self.isUsable = isUsable
        self.isDone = isDone
        self.errors = errors.items.filter { $0.field != "token" }
        self.appName = appName
        var field = [
            FormField(
                "password",
                label: "New password",
                hint: "At least 8 characters. A few words you will remember make a strong one.",
                type: "password",
                autocomplete: "new-password",
                width: 20
            )
        ]
        errors.apply(to: &field)
        passwordField = field[0]
    }
}
