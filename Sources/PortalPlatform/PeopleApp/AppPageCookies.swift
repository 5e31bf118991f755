import Foundation
import Hummingbird

/// The people's web app (`/app`) keeps no session of its own: the browser holds the bearer token of the
/// app account it signed in to, in a cookie, so the web app's sign-in has the same lifetimes, throttles,
/// audit and revocation as the kind's app (withdrawing a participant or disabling a member ends both at
/// once). A staff session counts for nothing under `/app`, and this cookie for nothing anywhere else.
///
/// Forms are protected as the portal's are (same-origin browser headers) and by a token derived from a
/// second cookie, made on the first visit and never stored, bound to the app cookie when there is one:
/// nothing is written for someone who only looks at the sign-in page.
package struct AppPageCookies: Sendable {
    /// Where the web app's pages live.
    package static let root = "/app"
    /// The web app's manifest (its name, colours and icon for a phone's home screen).
    package static let manifestPath = "\(root)/manifest.webmanifest"

    package let secure: Bool

    package init(secure: Bool) {
        self.secure = secure
    }

    /// Holds `<role>.<token>` for the account signed in.
    package var sessionName: String { secure ? "__Host-careportal_app" : "careportal_app" }
    /// Holds 256 random bits the forms' token is derived from.
    package var formName: String { secure ? "__Host-careportal_app_form" : "careportal_app_form" }

    /// True for the web app's pages, which take these cookies and no staff session.
    package static func covers(_ path: String) -> Bool {
        path == root || path.hasPrefix(root + "/")
    }

    /// The cookie that signs this browser in to `kind` with `token`, kept as long as a token can last.
    package func session(kind: AppAccountKind, token: String) -> Cookie {
        Cookie(
            name: sessionName,
            value: "\(kind.role).\(token)",
            maxAge: Int(BearerTokens.absoluteLifetime),
            path: "/",
            secure: secure,
            httpOnly: true,
            sameSite: .lax
        )
    }

    /// A cookie that makes the browser forget the account it signed in to.
    package var expiredSession: Cookie {
        Cookie(
            name: sessionName,
            value: "",
            expires: Date(timeIntervalSince1970: 0),
            maxAge: 0,
            path: "/",
            secure: secure,
            httpOnly: true,
            sameSite: .lax
        )
    }

    /// The cookie the forms' token is derived from, for as long as the browser is open.
    package func form(_ value: String) -> Cookie {
        Cookie(name: formName, value: value, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }

    /// The bearer token a session cookie holds for `kind`; nil for another kind's or a damaged value.
    package static func token(in cookieValue: String?, for kind: AppAccountKind) -> String? {
        guard let cookieValue, cookieValue.count <= 120, let dot = cookieValue.lastIndex(of: ".") else { return nil }
        guard cookieValue[..<dot] == kind.role else { return nil }
        let token = String(cookieValue[cookieValue.index(after: dot)...])
        return token.isEmpty ? nil : token
    }

    /// The token every form of the page carries: a hash of the form cookie and the session cookie, so it
    /// cannot be made without reading them and stops working when the browser signs in or out.
    package static func formToken(form: String, session: String?) -> String {
        SecretToken.hash("careportal app form\n\(form)\n\(session ?? "")")
    }
}

extension Portal {
    package var appPageCookies: AppPageCookies { AppPageCookies(secure: settings.cookiesAreSecure) }
}
