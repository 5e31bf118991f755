import Foundation
import Hummingbird
import SQLKit

extension TemplateName {
    package static let appLayout = TemplateName("layouts/app")
    package static let appHeader = TemplateName("layouts/app-header")
    package static let appSignIn = TemplateName("app/sign-in")
    package static let appError = TemplateName("app/error")

    package static let appTemplates: [TemplateName] = [.appLayout, .appHeader, .appSignIn, .appError]
}

/// The web app's header: the program's name, and once signed in the pages of her part and the
/// sign-out button. Drawn each time, since it carries the browser's own form token.
package struct AppHeader: Fragment {
    package struct SignedIn: Sendable, Hashable, Encodable {
        package let title: String
        package let signOutPath: String
        package let formToken: String
        package let navigation: [SiteHeader.NavigationLink]
    }

    package static let template = TemplateName.appHeader
    package static var isRemembered: Bool { false }
    package let programName: String
    package let homePath: String
    package let signedIn: SignedIn?
}

/// A page of the web app lists its part's pages in the header: these are they, for one kind of account.
package struct AppNavigation: Sendable {
    package let kind: AppAccountKind
    package let links: [(title: String, path: String)]

    package init(_ kind: AppAccountKind, links: [(title: String, path: String)]) {
        self.kind = kind
        self.links = links
    }
}

extension Portal {
    /// The layout of a web-app page: for someone signed in, with `navigation` (the link to `currentPath`
    /// marked) and the sign-out button; otherwise the program's name alone.
    package func appLayout(_ title: String, context: PortalContext? = nil, navigation: AppNavigation? = nil, currentPath: String? = nil) -> Layout {
        let settings = programSettings.current
        let signedIn: AppHeader.SignedIn? = navigation.flatMap { navigation in
            guard context?.appAccount?.kind == navigation.kind, let token = context?.appPageFormToken else { return nil }
            return AppHeader.SignedIn(
                title: navigation.kind.pagesTitle,
                signOutPath: navigation.kind.signOutPagePath,
                formToken: token,
                navigation: navigation.links.map { SiteHeader.NavigationLink(title: $0.title, path: $0.path, isCurrent: $0.path == currentPath) }
            )
        }
        let home = signedIn == nil ? AppPageCookies.root : (navigation?.kind.pagesPath ?? AppPageCookies.root)
        return Layout(
            title: title,
            programName: settings.programName,
            header: pages.html(AppHeader(programName: settings.programName, homePath: home, signedIn: signedIn)),
            csrfToken: context?.appPageFormToken,
            timeZoneTitle: ProgramTimeZone.title(of: settings.timeZoneID),
            homePath: home
        )
    }

    /// The account of `kind` whose app cookie the browser holds, renewing its token when due; someone
    /// without one is sent to the kind's sign-in page, and back to the page afterwards.
    package func authenticateAppPage(_ kind: AppAccountKind, request: Request, context: PortalContext) async throws -> AppAccountHolder {
        let required = AppSignInRequired(
            signInPath: kind.signInPagePath,
            returnPath: request.method == .get && request.uri.path != kind.pagesPath ? request.uri.path : nil
        )
        guard let token = AppPageCookies.token(in: context.appPageSession, for: kind) else { throw required }
        do {
            return try await authenticate(kind, bearerToken: token)
        } catch let error as APIError where error.status == .unauthorized {
            throw required
        }
    }
}

/// The web app's error page, in its own layout.
package struct AppErrorPageView: Page {
    package static let template = TemplateName.appError
    package let layout: Layout
    package let heading: String
    package let message: String
    package let links: [ErrorPage.Link]
}

/// The sign-in page of one kind of account.
package struct AppSignInPage: Page {
    package static let template = TemplateName.appSignIn
    package let layout: Layout
    package let errors: [FormErrors.Item]
    package let fields: [FormField]
    package let heading: String
    package let action: String
    package let next: String?
    /// Said under the form: how to get in without the password.
    package let help: String?
    /// Where someone who has no password yet starts ("Claim your account"), or who has forgotten it.
    package let links: [AppSignInPages.Link]
    package let notice: String?
}

/// The sign-in and sign-out of one kind of account in the web app.
package struct AppSignInPages: Sendable {
    package let portal: Portal
    /// A link under the sign-in form.
    package struct Link: Sendable, Encodable {
        package let lead: String
        package let title: String
        package let path: String

        package init(lead: String, title: String, path: String) {
            self.lead = lead
            self.title = title
            self.path = path
        }
    }

    package let kind: AppAccountKind
    /// What the page says under the form about a forgotten password.
    package let help: String?
    package let links: [Link]

    private struct SignInForm: Decodable {
        var identifier: String?
        var password: String?
        var next: String?
    }

    private func fields(identifier: String = "") -> [FormField] {
        [
            FormField(
                "identifier",
                label: kind.identifierName.prefix(1).uppercased() + kind.identifierName.dropFirst(),
                value: identifier,
                autocomplete: "username",
                width: 20
            ),
            FormField("password", label: "Password", type: "password", autocomplete: "current-password", width: 20)
        ]
    }

    private func page(
        _ context: PortalContext,
        errors: FormErrors = FormErrors(),
        identifier: String = "",
        next: String?,
        notice: String? = nil
    ) -> AppSignInPage {
        var fields = fields(identifier: identifier)
        errors.apply(to: &fields)
        return AppSignInPage(
            layout: portal.appLayout("Sign in", context: context),
            errors: errors.items,
            fields: fields,
            heading: "Sign in: \(kind.pagesTitle.prefix(1).lowercased() + kind.pagesTitle.dropFirst())",
            action: kind.signInPagePath,
            next: next,
            help: help,
            links: links,
            notice: notice
        )
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let notice =
            request.query("signed-out") != nil
            ? "You have signed out."
            : request.query("recovered") != nil ? "Your new password is saved. Sign in with it." : nil
        return portal.pages.response(page(context, next: request.query("next"), notice: notice))
    }

    @Sendable func signIn(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(SignInForm.self, context: context)
        let identifier = form.identifier ?? ""
        do {
            let token = try await portal.checkAppSignIn(
                kind,
                identifier: identifier,
                password: form.password ?? "",
                origin: portal.origin(of: request, context: context)
            ) { issued, _ in issued.token }
            var response = seeOther(kind.ownPage(form.next) ?? kind.pagesPath)
            response.setCookie(portal.appPageCookies.session(kind: kind, token: token))
            return response
        } catch let refusal as AppSignInRefusal {
            var errors = FormErrors()
            switch refusal {
            case .incomplete(let problems):
                for field in ["identifier", "password"] {
                    if let problem = problems[field == "identifier" ? AppSignInRefusal.identifierKey : field] { errors.add(field, problem) }
                }
            case .wrongCredentials:
                errors.add("identifier", kind.wrongCredentials)
            case .paused:
                errors.add("identifier", "Too many tries to sign in. Wait 15 minutes, then try again.")
            case .disabled:
                // What the kind's app is told (a withdrawn participant, a disabled member), in the same words.
                errors.add("identifier", kind.refusal(portal.programSettings.current).message)
            }
            return portal.pages.response(
                page(context, errors: errors, identifier: identifier.trimmed, next: form.next),
                status: .unprocessableContent
            )
        }
    }

    @Sendable func signOut(request: Request, context: PortalContext) async throws -> Response {
        guard let holder = context.appAccount else { throw HTTPError(.notFound) }
        try await portal.endAppSession(holder, origin: portal.origin(of: request, context: context))
        var response = seeOther("\(kind.signInPagePath)?signed-out=1")
        response.setCookie(portal.appPageCookies.expiredSession)
        return response
    }
}

extension PortalRoutes {
    /// `GET` and `POST {pages}/sign-in` and `POST {pages}/sign-out` for one kind of account in the web app.
    package mutating func appPageSessions(_ kind: AppAccountKind, help: String?, links: [AppSignInPages.Link] = []) {
        let pages = AppSignInPages(portal: portal, kind: kind, help: help, links: links)
        get(RouterPath(kind.signInPagePath), access: .everyone, pages.show)
        post(RouterPath(kind.signInPagePath), access: .everyone, pages.signIn)
        post(RouterPath(kind.signOutPagePath), access: .appPage(kind), pages.signOut)
    }
}

extension AppAccountKind {
    /// A page of this kind's own part to return to (`?next=`), or nil: only a page of her own part is a
    /// place to send her back to, never another part or another site.
    package func ownPage(_ typed: String?) -> String? {
        guard let typed else { return nil }
        let path = ReturnPath.decide(typed, otherwise: pagesPath)
        return path.hasPrefix(pagesPath + "/") ? path : nil
    }
}

/// One kind of account's part of the web app, as its start page offers it.
package struct AppPart: Sendable {
    package let kind: AppAccountKind
    /// Who it is for ("Patients of a physician").
    package let title: String
    /// What they find there.
    package let summary: String
    /// The demo account `seed-demo` makes of this kind and tells the password of.
    package let demoIdentifier: String?

    package init(kind: AppAccountKind, title: String, summary: String, demoIdentifier: String? = nil) {
        self.kind = kind
        self.title = title
        self.summary = summary
        self.demoIdentifier = demoIdentifier
    }
}
