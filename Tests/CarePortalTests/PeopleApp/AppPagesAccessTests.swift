import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Walks the router's own list of the web app's routes, so a new page cannot escape these checks: who
/// may open each, and that every form refuses a request that did not come from the web app's own page.
@Suite struct AppPagesAccessTests {
    static func appRoutes(_ portal: TestPortal) -> [(RouteCatalogue.Key, Access)] {
        portal.app.routes.filter(AccessTests.isPeopleApp).map { ($0, portal.app.catalogue.access[$0]!) }
    }

    /// Opens `route` at `path` as `visitor`; a form is sent with the token of the browser's form cookie,
    /// made by its first visit to the start page, as a page of the web app would give it.
    static func visit(_ route: RouteCatalogue.Key, path: String, as visitor: Visitor) async throws -> TestResponse {
        var visitor = visitor
        if route.method == "GET" { return try await visitor.get(path) }
        try await visitor.get(SiteURL.app.path)
        let cookies = visitor.portal.portal.appPageCookies
        let form = try #require(visitor.cookies[cookies.formName])
        return try await visitor.post(path, csrfToken: AppPageCookies.formToken(form: form, session: visitor.cookies[cookies.sessionName]))
    }

    /// An account of every kind that has pages, ready to sign in: identifier and password by role.
    static func oneOfEachKind(_ portal: TestPortal) async throws -> [String: (String, String)] {
        _ = try await PatientAppPagesTests.signedInPatient(portal)
        let (participant, _) = try await ParticipantAppPagesTests.enrolled(portal)
        try await portal.database.write { db in
            try await StudyRepository().setPassword(
                id: participant,
                hash: try await portal.portal.passwords.hash(ParticipantAppPagesTests.ownPassword),
                now: portal.clock.now,
                on: db
            )
        }
        _ = try await PharmacyFixtures.customer(portal)
        _ = try await AppClient.registered(portal, pseudonym: "Brave_Wren")
        _ = try await CareFixtures.receiver(portal)
        _ = try await CareFixtures.caregiver(portal)
        return [
            "member": ("Brave_Wren", MemberAppPagesTests.password),
            "patient": ("jose.n", PatientAppPagesTests.password), "participant": ("nu-101", ParticipantAppPagesTests.ownPassword),
            "pharmacy_customer": ("margaret@example.org", PharmacyFixtures.password),
            "care_receiver": ("eleanor@example.org", CareFixtures.password), "caregiver": ("ruth@example.org", CareFixtures.password)
        ]
    }

    @Test(arguments: TestEngines.all)
    func everyPageIsForItsKindOfAccountOrForEveryone(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let accounts = try await Self.oneOfEachKind(portal)
            var signedIn: [String: Visitor] = [:]
            for kind in [AppAccountKind.patient, .participant, .pharmacyCustomer, .member, .careReceiver, .caregiver] {
                var visitor = Visitor(portal: portal)
                let (identifier, password) = try #require(accounts[kind.role])
                #expect(try await visitor.signInToApp(kind, identifier: identifier, password: password).status == .seeOther)
                signedIn[kind.role] = visitor
            }
            var (physician, _) = try await portal.signedIn(.physician)
            let routes = Self.appRoutes(portal)
            #expect(routes.count >= 10)
            for (route, access) in routes where route.method == "GET" {
                let path = AccessTests.concretePath(route.path)
                var stranger = Visitor(portal: portal)
                let anonymous = try await stranger.get(path)
                let asStaff = try await physician.get(path)
                switch access {
                case .everyone:
                    #expect(anonymous.status == .ok && asStaff.status == .ok, "\(route) is for everyone")
                case .appPage(let kind):
                    #expect(
                        anonymous.status == .seeOther && anonymous.location?.hasPrefix(kind.signInPagePath) == true,
                        "\(route) answered a stranger \(anonymous.status.code)"
                    )
                    #expect(
                        asStaff.status == .seeOther && asStaff.location?.hasPrefix(kind.signInPagePath) == true,
                        "\(route) opened for a staff session"
                    )
                    for (role, var visitor) in signedIn {
                        let answer = try await visitor.get(path)
                        if role == kind.role {
                            // A page of one of her records (`{id}`) answers 404 for a record that is not there, as for one not hers.
                            let expected: HTTPResponse.Status = route.path.contains("{id}") ? .notFound : .ok
                            #expect(answer.status == expected, "\(route) answered its own kind \(answer.status.code)")
                        } else {
                            #expect(answer.location?.hasPrefix(kind.signInPagePath) == true, "\(route) opened for a \(role)")
                        }
                    }
                default:
                    Issue.record("\(route) has access \(access) under /app")
                }
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func everyFormRefusesForgedRequests(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let posts = Self.appRoutes(portal).filter { $0.0.method != "GET" }
            #expect(posts.count >= 4)
            let accounts = try await Self.oneOfEachKind(portal)
            for (route, access) in posts {
                let path = AccessTests.concretePath(route.path)
                // Someone the route lets in, so the only thing that can refuse a genuine request is the CSRF check.
                var visitor = Visitor(portal: portal)
                if case .appPage(let kind) = access {
                    let (identifier, password) = try #require(accounts[kind.role], "no account of \(kind) to sign in with")
                    #expect(try await visitor.signInToApp(kind, identifier: identifier, password: password).status == .seeOther)
                }
                try await visitor.get(AppAccountKind.patient.signInPagePath)
                let genuine = visitor.csrfToken
                let attempts: [(String, (Visitor) async throws -> TestResponse)] = [
                    (
                        "no token",
                        { visitor in
                            var v = visitor; return try await v.post(path, csrfToken: .some(nil))
                        }
                    ),
                    (
                        "wrong token",
                        { visitor in
                            var v = visitor; return try await v.post(path, csrfToken: "forged-token-value")
                        }
                    ),
                    (
                        "a staff session's token",
                        { visitor in
                            var v = visitor
                            let (staff, _) = try await portal.signedIn(.administrator)
                            return try await v.post(path, csrfToken: staff.csrfToken)
                        }
                    ),
                    (
                        "cross-site Origin",
                        { visitor in
                            var v = visitor; return try await v.post(path, origin: "https://evil.example")
                        }
                    ),
                    (
                        "cross-site fetch",
                        { visitor in
                            var v = visitor; return try await v.post(path, secFetchSite: "cross-site")
                        }
                    ),
                    (
                        "no Origin at all",
                        { visitor in
                            var v = visitor; return try await v.post(path, origin: nil)
                        }
                    )
                ]
                for (name, attempt) in attempts {
                    let response = try await attempt(visitor)
                    #expect(response.status == .forbidden, "\(route) with \(name) answered \(response.status.code)")
                    #expect(response.text.contains("This form could not be sent"))
                    #expect(response.text.contains("/static/css/app.css"), "the refusal is a page of the web app")
                }
                // The same request from the web app's own page gets through, so the refusals above are the check at work.
                visitor.csrfToken = genuine
                #expect(try await visitor.post(path).status != .forbidden, "\(route) refused a genuine request")
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func aFormTokenFromBeforeSigningInOrAnotherBrowserIsRefused(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, _, patient, token) = try await PatientAPITests.setUp(portal)
            _ = try await PatientFixtures.claimed(portal, patient: patient, token: token, username: "jose.n")
            var browser = Visitor(portal: portal)
            try await browser.get(AppAccountKind.patient.signInPagePath)
            let anonymousToken = try #require(browser.csrfToken)
            let signedIn = try await browser.post(
                AppAccountKind.patient.signInPagePath,
                form: [("identifier", "jose.n"), ("password", PatientAppPagesTests.password)]
            )
            #expect(signedIn.status == .seeOther)
            // The token changes with the sign-in: the one from before no longer sends her forms.
            #expect(
                try await browser.post(SiteURL.appPatientReminders.path, form: [("frequency", "daily")], csrfToken: anonymousToken).status
                    == .forbidden
            )
            try await browser.get(SiteURL.appPatientReminders.path)
            #expect(browser.csrfToken != anonymousToken)
            // Another browser's token does not fit her cookies.
            var other = Visitor(portal: portal)
            try await other.get(AppAccountKind.patient.signInPagePath)
            #expect(
                try await browser.post(SiteURL.appPatientReminders.path, form: [("frequency", "daily")], csrfToken: other.csrfToken).status
                    == .forbidden
            )
            #expect(try await browser.post(SiteURL.appPatientReminders.path, form: [("frequency", "daily")]).status == .seeOther)
        }
    }
}
