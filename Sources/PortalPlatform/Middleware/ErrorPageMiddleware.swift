import Foundation
import Hummingbird
import NIOCore

/// Turns every error into a plain page (or JSON under /api/) that never shows a stack trace, SQL or a path.
package struct ErrorPageMiddleware: RouterMiddleware {
    package typealias Context = PortalContext
    package let portal: Portal

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let signIn as SignInRequired {
            return seeOther(Self.location(PlatformPath.signIn, returningTo: signIn.returnPath == PlatformPath.home ? nil : signIn.returnPath))
        } catch let signIn as AppSignInRequired {
            return seeOther(Self.location(signIn.signInPath, returningTo: signIn.returnPath))
        } catch let error as APIError where !AppPageCookies.covers(request.uri.path) {
            return error.response()
        } catch {
            // The web app's pages call the same domain code as the API: its refusals become pages too, and a
            // feature's refusal is answered with the status it carries.
            let page = ErrorPage(
                for: (error as? APIError).map { HTTPError($0.status) } ?? (error as? StatusRefusal).map { HTTPError($0.status) } ?? error
            )
            if page.status == .internalServerError || page.status == .serviceUnavailable || page.status == .insufficientStorage {
                context.logger.error(
                    "Request failed",
                    metadata: [
                        "error": "\(String(reflecting: error))", "http.path": "\(request.uri.path)"
                    ]
                )
            }
            var response =
                if request.uri.path.hasPrefix("/api/") {
                    page.json()
                } else if AppPageCookies.covers(request.uri.path) {
                    portal.pages.response(
                        AppErrorPageView(layout: portal.appLayout(page.title), heading: page.title, message: page.message, links: page.links),
                        status: page.status
                    )
                } else {
                    portal.pages.response(
                        ErrorPageView(
                            layout: portal.layout(page.title, context: context, currentPath: nil),
                            heading: page.title,
                            message: page.message,
                            links: page.links
                        ),
                        status: page.status
                    )
                }
            if let seconds = page.retryAfter { response.headers[.retryAfter] = String(seconds) }
            // A body refused unread is not drained: the connection ends with this answer.
            if page.status == .contentTooLarge { response.headers[.connection] = "close" }
            return response
        }
    }

    /// A sign-in page's address, with the page to return to after it.
    private static func location(_ signInPath: String, returningTo returnPath: String?) -> String {
        guard let returnPath else { return signInPath }
        return signInPath
            + "?next=\(returnPath.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/-_."))) ?? "")"
    }

    package init(portal: Portal) {
        self.portal = portal
    }
}

/// What a person is told when something goes wrong.
package struct ErrorPage {
    /// Where the person can go from here, besides the home page.
    package struct Link: Sendable, Hashable, Encodable {
        package let title: String
        package let path: String
    }

    package let status: HTTPResponse.Status
    package let title: String
    package let message: String
    package private(set) var links: [Link] = []

    /// Seconds after which trying again makes sense (503).
    package var retryAfter: Int? { status == .serviceUnavailable ? 5 : nil }

    package init(for error: any Error) {
        if Database.isUnreachable(error) {
            self.init(
                .serviceUnavailable,
                "Sorry, the service is unavailable for a moment",
                "What you were doing may not have been saved: please try again in a minute. What you saved before this is safe."
            )
            return
        }
        if Database.isStorageFull(error) {
            self.init(
                .insufficientStorage,
                "Sorry, the service has run out of storage space",
                "Nothing was saved from this request. What you saved before this is safe. Please try again later."
            )
            return
        }
        switch error {
        case is NIOTooManyBytesError:
            self.init(.contentTooLarge, "That was too large to send", "Make it smaller and try again.")
        case is AccessDenied:
            self.init(
                .forbidden,
                "You cannot open this page",
                "Your account does not give access to this page. If you need it, ask an administrator."
            )
        case is ForgedRequest:
            self.init(
                .forbidden,
                "This form could not be sent",
                "The form may have been open for too long, or it came from another site. Go back, reload the page and try again."
            )
        case is DamagedPageLink:
            self.init(
                .badRequest,
                "This link to a page of the list does not work",
                "It may have been changed or shortened. Go back to the list and open its first page."
            )
        case let old as OldPageLinkBeyondReach:
            self.init(
                .gone,
                "Lists no longer open at page \(old.number.formatted(.number.grouping(.automatic)))",
                "This link is from when lists were opened by page number. Deep in a list, move with its Next, Previous and Last links, or narrow it with its search and filters."
            )
            links = [
                Link(title: "Go to the first page of the list", path: old.firstPath),
                Link(title: "Go to the last page of the list", path: old.lastPath)
            ]
        case let error as HTTPError:
            switch error.status {
            case .notFound:
                self.init(.notFound, "Page not found", "Check the address, or go back to the home page.")
            case .contentTooLarge:
                self.init(.contentTooLarge, "That was too large to send", "Make it smaller and try again.")
            case .methodNotAllowed:
                self.init(.methodNotAllowed, "That cannot be done here", "Go back to the home page and try again.")
            case let status where (400..<500).contains(status.code):
                self.init(.badRequest, "Something was wrong with that request", "Go back, check what you entered and try again.")
            default:
                self.init(
                    .internalServerError,
                    "Sorry, there is a problem with the service",
                    "Please try again later. What you saved before this is safe."
                )
            }
        default:
            self.init(
                .internalServerError,
                "Sorry, there is a problem with the service",
                "Please try again later. What you saved before this is safe."
            )
        }
    }

    private init(_ status: HTTPResponse.Status, _ title: String, _ message: String) {
        self.status = status
        self.title = title
        self.message = message
    }

    /// The same error in the API's one error shape.
    package func json() -> Response {
        let code =
            switch status {
            case .notFound: "not_found"
            case .forbidden: "forbidden"
            case .methodNotAllowed: "method_not_allowed"
            case .contentTooLarge: "too_large"
            case .serviceUnavailable: "unavailable"
            case .insufficientStorage: "storage_full"
            case .internalServerError: "internal_error"
            default: "invalid_request"
            }
        if status == .notFound { return APIError.notFound.response() }
        return APIError(status: status, code: code, message: title).response()
    }
}

package struct ErrorPageView: Page {
    package static let template = TemplateName.error
    package let layout: Layout
    package let heading: String
    package let message: String
    package let links: [ErrorPage.Link]

    package init(layout: Layout, heading: String, message: String, links: [ErrorPage.Link] = []) {
        self.layout = layout
        self.heading = heading
        self.message = message
        self.links = links
    }
}

extension HTTPResponse.Status {
    /// 507: the server has no room left to save the request (the disk is full).
    package static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}

/// A feature's refusal that says how it is answered: a page with this status, or under /api/ the API's error
/// of it (404 `not_found`, 403 `forbidden`), as `HTTPError` and `APIError` are.
package protocol StatusRefusal: Error {
    var status: HTTPResponse.Status { get }
}
