import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct SessionTests {
    @Test(arguments: TestEngines.all)
    func signingInIssuesANewSessionIdAndTheOldOneStopsWorking(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.physician, username: "dr.ana")
            // A session the browser held before signing in (one left by signing out, or one an attacker planted).
            let planted = try await portal.database.write { db in try await portal.portal.sessions.start(accountID: nil, on: db) }
            var browser = Visitor(portal: portal)
            browser.cookie = planted.id
            try await browser.get("/sign-in")
            let before = try #require(browser.cookie)
            #expect(before == planted.id)
            try await browser.post("/sign-in", form: [("username", "dr.ana"), ("password", "correct horse battery staple")])
            let after = try #require(browser.cookie)
            #expect(before != after)
            #expect(after.count >= 43, "at least 256 bits, base64url")
            let stored = try await portal.database.read { db in
                try await SessionRepository().findWithAccount(idHash: SecretToken.hash(before), on: db)
            }
            #expect(stored == nil, "the pre-sign-in session is deleted")
            var attacker = Visitor(portal: portal)
            attacker.cookie = before
            #expect(try await attacker.get("/account/password").location?.hasPrefix("/sign-in") == true)
        }
    }

    /// The session and its account come back from one query: the account is the one signed in, and a
    /// session that carries only a CSRF token and a message for the next page has none.
    @Test(arguments: TestEngines.all)
    func aSessionIsReadWithItsAccount(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let started = try await portal.database.write { db in
                try await portal.portal.sessions.start(accountID: nil, flash: Flash(.info, "Signed out"), on: db)
            }
            let anonymous = try #require(try await portal.portal.sessions.resolve(cookieValue: started.id))
            #expect(anonymous.session.accountID == nil && anonymous.account == nil && anonymous.session.flash?.text == "Signed out")

            _ = try await portal.signedIn(.administrator)
            let (browser, account) = try await portal.signedIn(.physician, username: "dr.ana")
            let resolved = try #require(try await portal.portal.sessions.resolve(cookieValue: browser.cookie))
            #expect(resolved.session.accountID == account.id)
            #expect(resolved.account == account)
        }
    }

    /// Anyone may look at the pages open before sign-in as often as they like without a row written: their
    /// forms take their token from a cookie that is never stored. Every such page of the router is asked a
    /// thousand times by visitors without cookies, and by one visitor keeping hers.
    @Test(arguments: TestEngines.all)
    func anonymousVisitsToThePagesBeforeSignInWriteNoSession(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            func sessionRows() async throws -> Int { try await portal.database.read { db in try await db.count(in: "sessions") { $0 } } }
            let pages = portal.app.routes.filter { route in
                route.method == "GET" && AccessTests.isPortal(route) && portal.app.catalogue.access[route] == .everyone
            }.map { AccessTests.concretePath($0.path) }
            #expect(
                pages.contains(SiteURL.signIn.path) && pages.contains(SiteURL.forgottenPassword.path) && pages.contains(SiteURL.setup.path),
                "\(pages)"
            )
            let before = try await sessionRows()
            var keeping = Visitor(portal: portal)
            for page in pages {
                for _ in 0..<500 {
                    var stranger = Visitor(portal: portal)
                    #expect(try await stranger.get(page).status.code < 500, "\(page)")
                    #expect(try await keeping.get(page).status.code < 500, "\(page)")
                }
            }
            #expect(try await sessionRows() == before, "looking at \(pages) stored a session")
            #expect(keeping.cookie == nil && keeping.cookies[portal.portal.sessions.formCookieName] != nil)

            // Her form's token is the form cookie's: it signs her in, and only then is a session stored.
            try await portal.createStaff(.administrator, username: "first.admin")
            let signIn = try await keeping.post(
                SiteURL.signIn.path,
                form: [("username", "first.admin"), ("password", "correct horse battery staple")]
            )
            #expect(signIn.status == .seeOther && keeping.cookie != nil)
            #expect(try await sessionRows() == before + 1)
            var stranger = Visitor(portal: portal)
            _ = try await stranger.get(SiteURL.signIn.path)
            stranger.csrfToken = keeping.csrfToken
            let forged = try await stranger.post(
                SiteURL.signIn.path,
                form: [("username", "first.admin"), ("password", "correct horse battery staple")]
            )
            #expect(forged.status == .forbidden, "another browser's form token is refused")
        }
    }

    @Test(arguments: TestEngines.all)
    func onlyAHashOfTheSessionIdIsStored(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, _) = try await portal.signedIn(.administrator)
            let id = try #require(browser.cookie)
            let rows = try await portal.database.read { db in try await db.raw("SELECT id_hash FROM sessions").all() }
            let hashes = try rows.map { try $0.decode(column: "id_hash", as: String.self) }
            #expect(!hashes.contains(id))
            #expect(hashes.contains(SecretToken.hash(id)))
            _ = try await browser.get("/")
        }
    }

    @Test(arguments: TestEngines.all)
    func aSessionEndsAfterThirtyIdleMinutes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, _) = try await portal.signedIn(.physician)
            portal.clock.advance(by: 25 * 60)
            #expect(try await browser.get("/account/password").status == .ok, "activity within 30 minutes keeps the session")
            portal.clock.advance(by: 25 * 60)
            #expect(try await browser.get("/account/password").status == .ok)
            portal.clock.advance(by: 30 * 60 + 1)
            #expect(try await browser.get("/account/password").location?.hasPrefix("/sign-in") == true)
        }
    }

    @Test(arguments: TestEngines.all)
    func aSessionEndsTwelveHoursAfterSignInHoweverActive(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, _) = try await portal.signedIn(.physician)
            for _ in 0..<((12 * 60) / 20) {
                portal.clock.advance(by: 20 * 60)
                _ = try await browser.get("/account/password")
            }
            portal.clock.advance(by: 20 * 60)
            #expect(try await browser.get("/account/password").location?.hasPrefix("/sign-in") == true)
        }
    }

    @Test(arguments: TestEngines.all)
    func configuredTimeoutsAreHonoured(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.sessionIdleTimeout = .seconds(5 * 60) }) { portal in
            var (browser, _) = try await portal.signedIn(.physician)
            portal.clock.advance(by: 5 * 60 + 1)
            #expect(try await browser.get("/account/password").location?.hasPrefix("/sign-in") == true)
        }
    }

    @Test(arguments: TestEngines.all)
    func signOutDeletesTheSessionOnTheServer(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, account) = try await portal.signedIn(.medicalProfessional)
            try await browser.post("/sign-out")
            let remaining = try await portal.database.read { db in try await SessionRepository().count(accountID: account.id, on: db) }
            #expect(remaining == 0)
        }
    }

    @Test func settingsReadTheEnvironmentWithClearMessages() throws {
        let settings = try Settings.load(
            environment: [
                "PORT": "9000", "DATABASE_URL": "postgres://care:secret@127.0.0.1:5432/care", "SESSION_IDLE_MINUTES": "15",
                "SESSION_LIFETIME_HOURS": "8", "BASE_URL": "https://portal.example.org/", "LOG_LEVEL": "debug"
            ],
            overrides: ["PORT": "9100"]
        )
        #expect(settings.port == 9100)
        #expect(settings.sessionIdleTimeout == .seconds(900))
        #expect(settings.sessionLifetime == .seconds(8 * 3600))
        #expect(settings.baseURL == "https://portal.example.org")
        #expect(settings.origin == "https://portal.example.org")
        #expect(settings.cookiesAreSecure)
        #expect(settings.logLevel == .debug)
        #expect(throws: Settings.Invalid.self) { try Settings.load(environment: ["PORT": "eighty"]) }
        #expect(throws: Settings.Invalid.self) { try Settings.load(environment: ["SMTP_URL": "http://mail"]) }
        #expect(Settings().databaseURL == "sqlite://./data/careportal.sqlite")
        #expect(!Settings().cookiesAreSecure)
    }

    static let hostileReturnPaths = [
        "//evil.example", "https://evil.example", "/\\evil.example", "\\/evil.example", "/\t/evil.example", "/\n/evil.example",
        "/\r/evil.example", "/ /evil.example", "\t//evil.example", " /x", "/\u{0B}/evil.example", "/\u{0C}/evil.example",
        "/\u{00A0}/evil.example", "/\u{200B}/evil.example", "/\u{3000}/evil.example", "/\u{FEFF}/evil.example", "/\u{7F}/evil.example",
        "/\u{2028}/evil.example", "/\u{0000}/evil.example", "/\u{FF0F}evil.example", "javascript:alert(1)", "evil.example", "",
        "/" + String(repeating: "a", count: ReturnPath.maximumLength)
    ]

    @Test(arguments: hostileReturnPaths)
    func aReturnPathThatCouldLeaveTheSiteBecomesTheLandingPage(hostile: String) {
        #expect(ReturnPath.decide(hostile, otherwise: "/") == "/")
        #expect(ReturnPath.decide(hostile, otherwise: "/desk") == "/desk")
    }

    @Test func aPathOnThisSiteIsKeptAsItIs() {
        for path in ["/", "/staff?page=2", "/members?q=rose%20ann&sort=name", "/desk/threads/7#reply-3", "/%2F%2Fevil.example"] {
            #expect(ReturnPath.decide(path, otherwise: "/home") == path)
        }
        #expect(ReturnPath.decide(nil, otherwise: "/desk") == "/desk")
    }

    @Test(arguments: TestEngines.all)
    func signingInWithAReturnPathHoldingATabStaysOnTheSite(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.administrator, username: "chief")
            var browser = Visitor(portal: portal)
            // The link as an outsider sends it: the tab percent-encoded in the query.
            let form = try await browser.get("/sign-in?next=/%09/evil.example")
            #expect(form.status == .ok)
            let signedIn = try await browser.post(
                "/sign-in",
                form: [
                    ("username", "chief"), ("password", "correct horse battery staple"), ("next", "/\t/evil.example")
                ]
            )
            #expect(signedIn.location == "/")
            // Signed in, the same link sends her home rather than off the site.
            #expect(try await browser.get("/sign-in?next=/%09/evil.example").location == "/")
            #expect(try await browser.get("/sign-in?next=/members%3Fpage%3D2").location == "/members?page=2")
        }
    }
}
