import Foundation
import HTTPTypes
import Hummingbird

/// Who may use a route. Every route states one; a route without one cannot be registered.
package enum Access: Sendable, Equatable, CustomStringConvertible {
    /// Anyone, signed in or not (sign-in, first-run setup, registration, health).
    case everyone
    /// Signed-in staff with one of these roles.
    case staff(Set<StaffRole>)
    /// An app presenting a bearer token in force for this kind of account (JSON API only; cookies count
    /// for nothing there).
    case app(AppAccountKind)
    /// The people's web app: a browser holding this kind's app cookie (`AppPageCookies`) in force; staff
    /// sessions count for nothing there. Someone without one is sent to the kind's sign-in page.
    case appPage(AppAccountKind)

    package static let anyStaff = Access.staff(Set(StaffRole.allCases))
    package static let administrators = Access.staff([.administrator])

    package func allows(_ role: StaffRole?) -> Bool {
        switch self {
        case .everyone: true
        case .staff(let roles): role.map(roles.contains) ?? false
        case .app, .appPage: false
        }
    }

    package var requiresSignIn: Bool {
        if case .staff = self { return true }
        return false
    }

    package var description: String {
        switch self {
        case .everyone: "everyone"
        case .staff(let roles): roles.map(\.rawValue).sorted().joined(separator: ", ")
        case .app(let kind): kind.description
        case .appPage(let kind): "\(kind.description) in the web app"
        }
    }
}

/// A request by someone whose role the route does not allow.
package struct AccessDenied: Error { package init() {} }

/// Every registered route and who may use it; the role and CSRF tests walk this beside the router's own list.
public struct RouteCatalogue: Sendable {
    public struct Key: Hashable, Sendable, CustomStringConvertible {
        public let method: String
        public let path: String
        public var description: String { "\(method) \(path)" }

        package init(method: String, path: String) {
            self.method = method
            self.path = path
        }
    }

    package fileprivate(set) var access: [Key: Access] = [:]
    /// The program each route belongs to; absent for the portal's own routes.
    package fileprivate(set) var programs: [Key: Program] = [:]

    package func access(method: HTTPRequest.Method, path: String) -> Access? {
        access[Key(method: method.rawValue, path: path)]
    }

    package init(access: [Key: Access] = [:], programs: [Key: Program] = [:]) {
        self.access = access
        self.programs = programs
    }
}

/// Registers routes on the router, each behind the check its `Access` demands.
package struct PortalRoutes {
    package typealias Handler = @Sendable (Request, PortalContext) async throws -> Response

    package let router: Router<PortalContext>
    package let portal: Portal
    package private(set) var catalogue = RouteCatalogue()
    /// The program of the feature whose routes are being added: while it is switched off they answer 404.
    package var program: Program?

    /// The request body limits the router's `RequestBodyLimitMiddleware` applies.
    package let bodyLimits: RequestBodyLimits

    package init(router: Router<PortalContext>, portal: Portal, bodyLimits: RequestBodyLimits = RequestBodyLimits()) {
        self.router = router
        self.portal = portal
        self.bodyLimits = bodyLimits
    }

    package mutating func get(_ path: RouterPath, access: Access, _ handler: @escaping Handler) {
        add(.get, path, access: access, handler)
    }

    package mutating func post(_ path: RouterPath, access: Access, _ handler: @escaping Handler) {
        add(.post, path, access: access, handler)
    }

    /// A route that takes a body larger than a form's (a streamed upload), up to `bodyLimit` bytes.
    package mutating func post(_ path: RouterPath, access: Access, bodyLimit: Int, _ handler: @escaping Handler) {
        bodyLimits.allow(.post, path, upTo: bodyLimit)
        add(.post, path, access: access, handler)
    }

    package mutating func put(_ path: RouterPath, access: Access, _ handler: @escaping Handler) {
        add(.put, path, access: access, handler)
    }

    package mutating func patch(_ path: RouterPath, access: Access, _ handler: @escaping Handler) {
        add(.patch, path, access: access, handler)
    }

    package mutating func delete(_ path: RouterPath, access: Access, _ handler: @escaping Handler) {
        add(.delete, path, access: access, handler)
    }

    private mutating func add(_ method: HTTPRequest.Method, _ path: RouterPath, access: Access, _ handler: @escaping Handler) {
        let key = RouteCatalogue.Key(method: method.rawValue, path: path.description)
        precondition(catalogue.access[key] == nil, "route \(key) is registered twice")
        catalogue.access[key] = access
        catalogue.programs[key] = program
        let portal = self.portal
        let program = self.program
        router.on(path, method: method) { request, context in
            guard portal.programSettings.current.runs(program) else { throw HTTPError(.notFound) }
            var context = context
            switch access {
            case .app(let kind):
                context.appAccount = try await portal.authenticate(kind, request)
            case .appPage(let kind):
                context.appAccount = try await portal.authenticateAppPage(kind, request: request, context: context)
            case .everyone, .staff:
                break
            }
            try await portal.authorize(access, request: request, context: context)
            return try await handler(request, context)
        }
    }
}

extension Portal {
    /// Lets the request through, sends someone not signed in to the sign-in page, or refuses with 403.
    package func authorize(_ access: Access, request: Request, context: PortalContext) async throws {
        guard access.requiresSignIn else { return }
        guard let staff = context.staff else {
            throw SignInRequired(returnPath: request.method == .get ? request.uri.path : nil)
        }
        guard access.allows(staff.role) else {
            try await recordRefusal(.accessDenied, request: request, context: context)
            throw AccessDenied()
        }
    }

    /// Audits a request turned away before it reached its handler.
    package func recordRefusal(_ action: AuditAction, request: Request, context: PortalContext, detail: String? = nil) async throws {
        let event = AuditEvent(
            actor: context.auditActor,
            action: action,
            recordType: "route",
            recordID: "\(request.method.rawValue) \(request.uri.path)",
            outcome: .denied,
            origin: origin(of: request, context: context),
            detail: detail
        )
        try await database.write { db in try await audit.record(event, on: db) }
    }

    /// The client's address and browser, for the audit log.
    package func origin(of request: Request, context: PortalContext) -> AuditOrigin {
        AuditOrigin(address: clientAddress(of: request, context: context), userAgent: request.headers[.userAgent])
    }

    package func clientAddress(of request: Request, context: PortalContext) -> String? {
        if settings.trustForwardedFor, let forwarded = request.headers[.xForwardedFor] {
            // The proxy appends the address it saw last; earlier entries are the client's to invent.
            return forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return context.peerAddress
    }
}

/// Someone not signed in to the web app asked for one of its pages: they are sent to `signInPath`.
package struct AppSignInRequired: Error {
    package let signInPath: String
    package let returnPath: String?

    package init(signInPath: String, returnPath: String?) {
        self.signInPath = signInPath
        self.returnPath = returnPath
    }
}

/// Someone not signed in asked for a page that needs it.
package struct SignInRequired: Error {
    package let returnPath: String?

    package init(returnPath: String? = nil) {
        self.returnPath = returnPath
    }
}

extension HTTPField.Name {
    package static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    package static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    package static let xRequestID = HTTPField.Name("X-Request-Id")!
}
