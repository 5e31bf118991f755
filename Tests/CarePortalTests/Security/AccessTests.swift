import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Walks the router's own list of routes, so a new route cannot escape these checks.
@Suite struct AccessTests {
    static let roles: [StaffRole?] = [nil] + StaffRole.allCases.map(Optional.some)

    static func concretePath(_ pattern: String) -> String {
        pattern.replacingOccurrences(of: ":id", with: "999999").replacingOccurrences(of: "{id}", with: "999999")
            .replacingOccurrences(of: "{date}", with: "2026-11-20").replacingOccurrences(of: ":date", with: "2026-11-20")
            .replacingOccurrences(of: "{entry}", with: "999999-1").replacingOccurrences(of: ":entry", with: "999999-1")
            .replacingOccurrences(of: "{record}", with: "999999").replacingOccurrences(of: ":record", with: "999999")
    }

    /// The member app's JSON API: authenticated by bearer token, never by the portal's cookie.
    static func isAPI(_ route: RouteCatalogue.Key) -> Bool { route.path.hasPrefix("/api/") }
    /// The people's web app: its own cookie, never a staff session (`AppPagesAccessTests` walks these).
    static func isPeopleApp(_ route: RouteCatalogue.Key) -> Bool { AppPageCookies.covers(route.path) }
    /// The staff portal's pages.
    static func isPortal(_ route: RouteCatalogue.Key) -> Bool { !isAPI(route) && !isPeopleApp(route) }

    @Test(arguments: TestEngines.all)
    func everyRouteDeclaresWhoMayUseIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            #expect(portal.app.routes.count >= 15)
            for route in portal.app.routes {
                #expect(portal.app.catalogue.access[route] != nil, "\(route) has no declared access")
            }
            #expect(Set(portal.app.catalogue.access.keys) == Set(portal.app.routes))
        }
    }

    @Test(arguments: TestEngines.all)
    func everyRouteAnswersEachRoleAsDeclared(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await portal.createStaff(.administrator, username: "setup.done")
            for route in portal.app.routes where Self.isPortal(route) {
                let access = try #require(portal.app.catalogue.access[route])
                for role in Self.roles {
                    var visitor = Visitor(portal: portal)
                    if let role {
                        try await visitor.signIn(
                            username: try await portal.createStaff(role, username: "u\(UUID().uuidString.prefix(8).lowercased())").username,
                            password: "correct horse battery staple"
                        )
                    } else {
                        try await visitor.get("/sign-in")
                    }
                    let path = Self.concretePath(route.path)
                    let response = route.method == "GET" ? try await visitor.get(path) : try await visitor.post(path)
                    let sentToSignIn = response.status == .seeOther && response.location?.hasPrefix("/sign-in") == true
                    let label = "\(route) as \(role?.rawValue ?? "anonymous")"
                    if access.allows(role) {
                        #expect(response.status != .forbidden, "\(label) was refused")
                        #expect(!sentToSignIn || !access.requiresSignIn || route.method == "POST", "\(label) was sent to sign in")
                    } else if role == nil {
                        #expect(sentToSignIn, "\(label) answered \(response.status.code), not a redirect to sign in")
                    } else {
                        #expect(response.status == .forbidden, "\(label) answered \(response.status.code), not 403")
                        #expect(response.text.contains("You cannot open this page"))
                    }
                }
            }
            #expect(try await portal.auditEntries(action: .accessDenied).count > 0)
        }
    }

    /// ASVS 8.2.2: no one reads another physician's patient by changing an id. Every route under
    /// /patients/ that names a patient or a draft, taken from the router, answers another physician 404.
    @Test(arguments: TestEngines.all)
    func everyPatientRouteAsAnotherPhysicianAnswersNotFound(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let catalogue = try await PatientFixtures.catalogue(portal)
            var (owner, ownerAccount) = try await portal.signedIn(.physician)
            var (other, _) = try await portal.signedIn(.physician)
            let (patient, _) = try await PatientFixtures.patient(portal, physicianID: ownerAccount.id, catalogue: catalogue)
            try await owner.get("/patients/new")
            let draftMade = try await owner.post("/patients/new", form: [("first_name", "Ada"), ("action", "back")])
            #expect(draftMade.status == .seeOther)
            let draft = try #require(
                try await portal.database.read { db in
                    try await RegimenRepository().drafts(physicianID: ownerAccount.id, on: db).first
                }
            )
            let owned = portal.app.routes.filter { $0.path.hasPrefix("/patients/") && $0.path.contains("{id}") }
            #expect(owned.count >= 20, "only \(owned.count) patient routes found")
            try await other.get("/patients")
            for route in owned {
                let id = route.path.hasPrefix("/patients/drafts/") ? draft.id : patient.id
                let path = route.path.replacingOccurrences(of: "{id}", with: "\(id)")
                let access = try #require(portal.app.catalogue.access[route])
                let response =
                    route.method == "GET" ? try await other.get(path) : try await other.post(path, form: [("last_name", patient.contact.lastName)])
                if access.allows(.physician) {
                    #expect(response.status == .notFound, "\(route) answered another physician \(response.status.code)")
                    #expect(!response.text.contains(patient.contact.lastName), "\(route) showed the patient to another physician")
                } else {
                    #expect(response.status == .forbidden, "\(route) answered a physician \(response.status.code)")
                }
                // Her own physician reaches the same address, so the 404 above is the ownership check at work.
                if route.method == "GET" {
                    #expect(try await owner.get(path).status == .ok, "\(route) refused her own physician")
                }
            }
            // Nothing was changed, and each attempt on the patient was recorded.
            #expect(try await portal.database.read { db in try await PatientRepository().find(id: patient.id, on: db) } != nil)
            #expect(
                try await portal.database.read { db in try await RegimenRepository().draft(id: draft.id, physicianID: ownerAccount.id, on: db) }
                    != nil
            )
            let refusals = try await portal.auditEntries(action: .accessDenied).filter {
                $0.recordType == "patient" && $0.recordID == "\(patient.id)"
            }
            let patientRoutes = owned.filter { !$0.path.hasPrefix("/patients/drafts/") && portal.app.catalogue.access[$0]!.allows(.physician) }
            #expect(refusals.count == patientRoutes.count)
            #expect(refusals.allSatisfy { $0.outcome == "denied" })
        }
    }

    @Test(arguments: TestEngines.all)
    func apiRoutesAreForTheAppAndPortalRoutesForStaff(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            for route in portal.app.routes {
                let access = try #require(portal.app.catalogue.access[route])
                if access == .member { #expect(Self.isAPI(route), "\(route) takes member tokens outside /api/") }
                if access == .patient { #expect(Self.isAPI(route), "\(route) takes patient tokens outside /api/") }
                if access == .pharmacyCustomer {
                    #expect(route.path.hasPrefix("/api/v1/pharmacy/"), "\(route) takes customer tokens outside /api/v1/pharmacy/")
                }
                if access == .participant { #expect(Self.isAPI(route), "\(route) takes participant tokens outside /api/") }
                if access == .careReceiver {
                    #expect(route.path.hasPrefix("/api/v1/care/"), "\(route) takes care receivers' tokens outside /api/v1/care/")
                }
                if access == .caregiver {
                    #expect(route.path.hasPrefix("/api/v1/caregiver/"), "\(route) takes caregivers' tokens outside /api/v1/caregiver/")
                }
                if Self.isPeopleApp(route) {
                    if case .staff = access { Issue.record("\(route) expects a staff session under /app") }
                    if case .app = access { Issue.record("\(route) takes bearer tokens under /app") }
                } else if case .appPage = access {
                    Issue.record("\(route) takes the web app's cookie outside /app")
                }
                if Self.isAPI(route) {
                    #expect(Self.appTokens.contains(access) || access == .everyone, "\(route) expects a staff session under /api/")
                }
            }
            #expect(portal.app.routes.filter { portal.app.catalogue.access[$0] == .member }.count >= 5)
            #expect(portal.app.routes.filter { portal.app.catalogue.access[$0] == .patient }.count >= 8)
        }
    }

    @Test(arguments: TestEngines.all)
    func everyMemberRouteNeedsABearerToken(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (member, _) = try await AppClient.registered(portal)
            let physician = try await portal.createStaff(.physician, username: "tokens.physician")
            let (patientRecord, claimToken) = try await PatientFixtures.patient(
                portal,
                physicianID: physician.id,
                catalogue: try await PatientFixtures.catalogue(portal)
            )
            let patient = try await PatientFixtures.claimed(portal, patient: patientRecord, token: claimToken)
            let (customer, _) = try await PharmacyFixtures.customer(portal)
            let (participant, _) = try await StudyFixtures.participant(portal, code: "TOKENS-1")
            let (careReceiver, _) = try await CareFixtures.receiver(portal)
            let (caregiver, _) = try await CareFixtures.caregiver(portal)
            var (admin, _) = try await portal.signedIn(.administrator)
            let adminCookie = try #require(admin.cookie)
            _ = try await admin.get("/")
            for route in portal.app.routes where Self.isAPI(route) {
                let access = try #require(portal.app.catalogue.access[route])
                let method = HTTPRequest.Method(route.method)!
                let path = Self.concretePath(route.path)
                let attempts: [(String, AppClient, HTTPFields)] = [
                    ("no token", AppClient(portal: portal), [:]),
                    ("a made-up token", AppClient(portal: portal, token: "not-a-real-token"), [:]),
                    ("a staff session cookie", AppClient(portal: portal), [.cookie: "\(admin.cookieName)=\(adminCookie)"])
                ]
                for (name, client, headers) in attempts {
                    let response = try await client.send(method, path, json: [:], headers: headers)
                    if Self.appTokens.contains(access) {
                        #expect(response.status == .unauthorized, "\(route) with \(name) answered \(response.status.code)")
                        #expect(response.errorCode == "unauthorized")
                        #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="careportal""#)
                    } else {
                        #expect(
                            response.status != .unauthorized || route.path.contains("sessions") || route.path.contains("recovery"),
                            "\(route) with \(name) wanted a token"
                        )
                    }
                    #expect(response.headers[.contentType]?.hasPrefix("application/json") == true, "\(route) answered something other than JSON")
                }
                if access == .member {
                    // Sign-out last, so the token is still good for every other route.
                    guard route.path != SiteURL.apiCurrentSession.path else { continue }
                    let allowed = try await member.send(method, path, json: [:])
                    #expect(allowed.status != .unauthorized && allowed.status != .forbidden, "\(route) refused a member's token")
                    // Each app's token opens only its own routes.
                    #expect(try await patient.send(method, path, json: [:]).status == .unauthorized, "\(route) took a patient's token")
                    #expect(try await customer.send(method, path, json: [:]).status == .unauthorized, "\(route) took a pharmacy customer's token")
                }
                if access == .patient {
                    guard route.path != SiteURL.apiPatientCurrentSession.path else { continue }
                    let allowed = try await patient.send(method, path, json: [:])
                    #expect(allowed.status != .unauthorized && allowed.status != .forbidden, "\(route) refused a patient's token")
                    #expect(try await member.send(method, path, json: [:]).status == .unauthorized, "\(route) took a member's token")
                    #expect(try await customer.send(method, path, json: [:]).status == .unauthorized, "\(route) took a pharmacy customer's token")
                }
                if access == .pharmacyCustomer {
                    guard route.path != SiteURL.apiPharmacyCurrentSession.path else { continue }
                    let allowed = try await customer.send(method, path, json: [:])
                    // Her prescriptions and orders also want her password again (403 step_up_required): her token itself was taken.
                    #expect(
                        allowed.status != .unauthorized && (allowed.status != .forbidden || allowed.errorCode == "step_up_required"),
                        "\(route) refused a customer's token"
                    )
                    #expect(try await member.send(method, path, json: [:]).status == .unauthorized, "\(route) took a member's token")
                    #expect(try await patient.send(method, path, json: [:]).status == .unauthorized, "\(route) took a patient's token")
                }
                if access == .participant {
                    guard route.path != SiteURL.apiStudyCurrentSession.path else { continue }
                    let allowed = try await participant.send(method, path, json: [:])
                    #expect(allowed.status != .unauthorized && allowed.status != .forbidden, "\(route) refused a participant's token")
                    #expect(try await patient.send(method, path, json: [:]).status == .unauthorized, "\(route) took a patient's token")
                    #expect(try await member.send(method, path, json: [:]).status == .unauthorized, "\(route) took a member's token")
                }
                for (kind, client, other) in [(AppAccountKind.careReceiver, careReceiver, caregiver), (.caregiver, caregiver, careReceiver)]
                where access == .app(kind) {
                    guard route.path != kind.currentSessionPath else { continue }
                    let allowed = try await client.send(method, path, json: [:])
                    #expect(
                        allowed.status != .unauthorized && (allowed.status != .forbidden || allowed.errorCode == "not_shared"),
                        "\(route) refused a \(kind.role)'s token"
                    )
                    #expect(try await other.send(method, path, json: [:]).status == .unauthorized, "\(route) took the other memory-care kind's token")
                    #expect(try await member.send(method, path, json: [:]).status == .unauthorized, "\(route) took a member's token")
                    #expect(try await customer.send(method, path, json: [:]).status == .unauthorized, "\(route) took a pharmacy customer's token")
                }
            }
            #expect(try await member.send(.delete, SiteURL.apiCurrentSession.path).status == .noContent)
            #expect(try await member.get(SiteURL.apiMe.path).status == .unauthorized)
            #expect(try await patient.send(.delete, SiteURL.apiPatientCurrentSession.path).status == .noContent)
            #expect(try await patient.get(SiteURL.apiPatientMe.path).status == .unauthorized)
            #expect(try await customer.send(.delete, SiteURL.apiPharmacyCurrentSession.path).status == .noContent)
            #expect(try await customer.get(SiteURL.apiPharmacyMe.path).status == .unauthorized)
            #expect(try await participant.send(.delete, SiteURL.apiStudyCurrentSession.path).status == .noContent)
            #expect(try await participant.get(SiteURL.apiStudyTodos.path).status == .unauthorized)
            #expect(try await careReceiver.send(.delete, AppAccountKind.careReceiver.currentSessionPath).status == .noContent)
            #expect(try await careReceiver.get(SiteURL.care(.apiMemories).path).status == .unauthorized)
            #expect(try await caregiver.send(.delete, AppAccountKind.caregiver.currentSessionPath).status == .noContent)
            #expect(try await caregiver.get(SiteURL.care(.apiCaregiverLinks).path).status == .unauthorized)
        }
    }

    /// Every kind of app token the API takes.
    static let appTokens: [Access] = [.member, .patient, .pharmacyCustomer, .participant, .careReceiver, .caregiver]

    @Test(arguments: TestEngines.all)
    func researchersWorkOnlyOnTheStudy(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let ownAccount = [SiteURL.signOut.path, SiteURL.changePassword.path]
            var open: [String] = []
            for route in portal.app.routes where Self.isPortal(route) {
                let access = try #require(portal.app.catalogue.access[route])
                guard access.requiresSignIn, access.allows(.researcher) else { continue }
                open.append(route.path)
                // The study, the analytics and de-identified exports, and her own account (password, two-factor sign-in).
                #expect(
                    route.path.hasPrefix("/studies") || route.path.hasPrefix("/analytics") || route.path.hasPrefix("/account/")
                        || ownAccount.contains(route.path),
                    "\(route) is open to researchers"
                )
            }
            #expect(open.contains(SiteURL.studies.path) && open.contains(SiteURL.studyExport(.all).path))
            #expect(open.contains(SiteURL.analytics.path) && open.contains(SiteURL.analyticsExport.path))

            // She lands on the study dashboard after signing in, and Home sends her there too.
            try await portal.createStaff(.researcher, username: "dr.research")
            var visitor = Visitor(portal: portal)
            try await visitor.get("/sign-in")
            let signedIn = try await visitor.post("/sign-in", form: [("username", "dr.research"), ("password", "correct horse battery staple")])
            #expect(signedIn.location == SiteURL.studies.path)
            let home = try await visitor.get("/")
            #expect(home.status == .seeOther && home.location == SiteURL.studies.path)
            let dashboard = try await visitor.get(SiteURL.studies.path)
            #expect(dashboard.status == .ok && dashboard.text.contains(">Participants</a>"))
            #expect(!dashboard.text.contains(">Home</a>") && !dashboard.text.contains(">Members</a>"))
            #expect(try await visitor.get(SiteURL.members.path).status == .forbidden)
            #expect(try await visitor.get(SiteURL.auditLog.path).status == .forbidden)
        }
    }

    @Test(arguments: TestEngines.all)
    func navigationShowsOnlyWhatTheRoleMayOpen(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // Each link's words name one page: a screen reader's list of links shows them without their groups.
            let titles = Dictionary(grouping: portal.portal.contributions.navigation, by: \.title).filter { $0.value.count > 1 }.keys
            #expect(titles.isEmpty, "navigation links with the same words: \(titles.sorted())")
            for item in portal.portal.contributions.navigation {
                let route = try #require(portal.app.catalogue.access[RouteCatalogue.Key(method: "GET", path: item.path)])
                for role in StaffRole.allCases where item.access.allows(role) {
                    #expect(route.allows(role), "\(item.title) is shown to \(role) but refuses them")
                }
            }
            var (physician, _) = try await portal.signedIn(.physician)
            let page = try await physician.get("/")
            #expect(!page.text.contains(">Staff accounts</a>"))
            #expect(!page.text.contains(">Audit log</a>"))
            var (admin, _) = try await portal.signedIn(.administrator)
            let adminPage = try await admin.get("/")
            #expect(adminPage.text.contains(#"href="/staff">Staff accounts</a>"#))
            #expect(adminPage.text.contains(#"href="/audit">Audit log</a>"#))
        }
    }

    @Test(arguments: TestEngines.all)
    func medicalProfessionalsWorkOnlyOnTheInformationDesk(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let ownAccount = [
                SiteURL.signOut.path, SiteURL.changePassword.path,
                SiteURL.twoFactor.path, SiteURL.twoFactorSetUp.path, SiteURL.twoFactorConfirm.path, SiteURL.twoFactorTurnOff.path
            ]
            var open: [String] = []
            for route in portal.app.routes where Self.isPortal(route) {
                let access = try #require(portal.app.catalogue.access[route])
                guard access.requiresSignIn, access.allows(.medicalProfessional) else { continue }
                open.append(route.path)
                #expect(route.path.hasPrefix("/desk") || ownAccount.contains(route.path), "\(route) is open to medical professionals")
            }
            #expect(open.contains(SiteURL.desk.path))

            // She lands on the desk after signing in, and Home sends her there too.
            try await portal.createStaff(.medicalProfessional, username: "dr.okafor")
            var visitor = Visitor(portal: portal)
            try await visitor.get("/sign-in")
            let signedIn = try await visitor.post("/sign-in", form: [("username", "dr.okafor"), ("password", "correct horse battery staple")])
            #expect(signedIn.location == SiteURL.desk.path)
            let home = try await visitor.get("/")
            #expect(home.status == .seeOther && home.location == SiteURL.desk.path)
            let desk = try await visitor.get(SiteURL.desk.path)
            #expect(desk.text.contains(">Information desk</a>"))
            #expect(!desk.text.contains(">Home</a>") && !desk.text.contains(">Members</a>"))
        }
    }

    @Test(arguments: TestEngines.all)
    func everyStateChangingRouteRefusesForgedRequests(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // API routes carry no cookie-based authority to forge: everyMemberRouteNeedsABearerToken proves a
            // signed-in portal session counts for nothing there.
            let postRoutes = portal.app.routes.filter { $0.method != "GET" && $0.method != "HEAD" && Self.isPortal($0) }
            #expect(postRoutes.count >= 8)
            for route in postRoutes {
                let path = Self.concretePath(route.path)
                let access = try #require(portal.app.catalogue.access[route])
                // Someone the route lets in, so the only thing that can refuse a genuine request is the CSRF check.
                var (admin, _) = try await portal.signedIn(StaffRole.allCases.first(where: access.allows) ?? .administrator)
                let genuine = admin.csrfToken
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
                    let response = try await attempt(admin)
                    #expect(response.status == .forbidden, "\(route) with \(name) answered \(response.status.code)")
                    #expect(response.text.contains("This form could not be sent"))
                }
                // The same request from our own page gets through, so the refusals above are the check at work.
                admin.csrfToken = genuine
                let allowed = try await admin.post(path)
                #expect(allowed.status != .forbidden, "\(route) refused a genuine request")
            }
            // Counted, not listed: there are more refusals than one page of the audit log holds.
            var query = AuditQuery()
            query.action = .csrfRejected
            let refusals = try await portal.database.read { [query] db in try await portal.portal.audit.list(query, on: db).totalCount }
            #expect(refusals >= postRoutes.count * 5 - 5)
        }
    }

    @Test(arguments: TestEngines.all)
    func securityHeadersAreOnEveryKindOfResponse(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.administrator, username: "chief")
            var anonymous = Visitor(portal: portal)
            var (physician, _) = try await portal.signedIn(.physician)
            var (admin, _) = try await portal.signedIn(.administrator)
            let ok = try await anonymous.get("/sign-in")
            let redirect = try await anonymous.get("/")
            let forbidden = try await physician.get("/staff")
            let missing = try await anonymous.get("/no-such-page")
            try await portal.database.write { db in try await db.raw("DROP TABLE outbox").run() }
            let broken = try await admin.get("/outbox")
            let expected: [(TestResponse, HTTPResponse.Status)] = [
                (ok, .ok), (redirect, .seeOther), (forbidden, .forbidden), (missing, .notFound), (broken, .internalServerError)
            ]
            for (response, status) in expected {
                #expect(response.status == status)
                #expect(response.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware.contentSecurityPolicy)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.referrerPolicy] == "same-origin")
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(response.headers[.strictTransportSecurity] == nil, "no HSTS over plain http")
            }
            #expect(SecurityHeadersMiddleware.contentSecurityPolicy.contains("default-src 'self'"))
            for directive in ["object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'"] {
                #expect(SecurityHeadersMiddleware.contentSecurityPolicy.contains(directive))
            }
            #expect(!SecurityHeadersMiddleware.contentSecurityPolicy.contains("unsafe-inline"))
            #expect(broken.text.contains("Sorry, there is a problem with the service"))
            for leak in ["no such table", "does not exist", "SQL", "sqlite", ".swift", "Sources/", "Error:"] {
                #expect(!broken.text.contains(leak), "the 500 page shows \(leak)")
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func httpsDeploymentsSendHSTSAndHostPrefixedSecureCookies(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.baseURL = "https://portal.example.org" }) { portal in
            let response = try await portal.client.execute(uri: "/sign-in", method: .get, headers: [:], body: nil)
            #expect(response.headers[.strictTransportSecurity] == "max-age=31536000; includeSubDomains")
            let form = try #require(response.headers[values: .setCookie].first)
            #expect(form.hasPrefix("__Host-careportal_form="))
            try await portal.createStaff(.administrator, username: "tls.admin")
            let formValue = String(form.split(separator: ";")[0].dropFirst("__Host-careportal_form=".count))
            let body = "username=tls.admin&password=correct+horse+battery+staple&csrf_token=\(Sessions.formToken(form: formValue))"
            let signedIn = try await portal.client.execute(
                uri: "/sign-in",
                method: .post,
                headers: [
                    .cookie: "__Host-careportal_form=\(formValue)", .contentType: "application/x-www-form-urlencoded", .secFetchSite: "same-origin"
                ],
                body: ByteBuffer(string: body)
            )
            let session = try #require(
                signedIn.headers[values: .setCookie].first { $0.hasPrefix("__Host-careportal_session=") },
                "\(signedIn.status)"
            )
            for cookie in [form, session] {
                let attributes = cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                #expect(attributes.contains("secure"))
                #expect(attributes.contains("httponly"))
                #expect(attributes.contains("samesite=lax"))
                #expect(attributes.contains("path=/"))
                #expect(!attributes.contains { $0.hasPrefix("domain") })
            }
        }
    }
}
