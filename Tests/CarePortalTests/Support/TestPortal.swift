import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// A running portal on a fresh database, driven through its router.
struct TestPortal {
    let app: CarePortalApplication
    let client: any TestClientProtocol
    let clock: TestClock
    let engine: Database.Engine

    var portal: Portal { app.portal }
    var database: Database { app.database }

    static let baseURL = "http://127.0.0.1:8080"
    static let origin = "http://127.0.0.1:8080"
    static let resourcesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Builds the portal on a new database of `engine`, runs `body`, and throws the database away.
    static func run(
        _ engine: Database.Engine,
        clock: TestClock = TestClock(),
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = Dependencies.systemRandomBytes,
        checksRawSlots: Bool = false,
        mailTransport: (any MailTransport)? = nil,
        pushSender: (any PushSender)? = nil,
        logHandler: (@Sendable (String) -> any LogHandler)? = nil,
        configure: (inout Settings) -> Void = { _ in },
        features: [any PortalFeature.Type] = Features.all,
        live: Bool = false,
        _ body: @Sendable (TestPortal) async throws -> Void
    ) async throws {
        try await TestProgress.tracking("making its database", detail: engine.rawValue) {
            let url = try await TestDatabase.make(engine)
            do {
                try await runOn(
                    url,
                    engine: engine,
                    clock: clock,
                    randomBytes: randomBytes,
                    checksRawSlots: checksRawSlots,
                    mailTransport: mailTransport,
                    pushSender: pushSender,
                    logHandler: logHandler,
                    configure: configure,
                    features: features,
                    live: live,
                    body
                )
            } catch {
                TestProgress.step("dropping its database after an error")
                try? await TestDatabase.drop(url)
                throw error
            }
            TestProgress.step("dropping its database")
            try await TestDatabase.drop(url)
        }
    }

    private static func runOn(
        _ url: String,
        engine: Database.Engine,
        clock: TestClock,
        randomBytes: @escaping @Sendable (Int) -> [UInt8],
        checksRawSlots: Bool,
        mailTransport: (any MailTransport)?,
        pushSender: (any PushSender)?,
        logHandler: (@Sendable (String) -> any LogHandler)?,
        configure: (inout Settings) -> Void,
        features: [any PortalFeature.Type],
        live: Bool,
        _ body: @Sendable (TestPortal) async throws -> Void
    ) async throws {
        // Every API response the tests see is also encoded by Foundation; a difference answers 500.
        APIJSONWriter.comparesWithFoundation.store(true, ordering: .relaxed)
        var settings = Settings()
        settings.databaseURL = url
        settings.baseURL = baseURL
        settings.resourcesDirectory = resourcesDirectory
        settings.logLevel = .warning
        // Uploads go to a folder of this test's own.
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-data-\(UUID().uuidString)")
        settings.dataDirectory = dataDirectory.path
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        if live { settings.port = 0 }
        // PostgreSQL is never given a key it makes itself; SQLite makes `DATA_DIR/sealing.key`, as in production.
        if engine == .postgres { settings.sealingKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() }
        configure(&settings)
        var logger = Logger(label: "careportal.test", factory: logHandler ?? { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = logHandler == nil ? .error : .trace
        var dependencies = Dependencies(
            now: { clock.now },
            randomBytes: randomBytes,
            mailTransport: mailTransport,
            passwordHashCost: 4
        )
        dependencies.pushSender = pushSender
        dependencies.checksRawSlots = checksRawSlots
        // Tests run jobs themselves, when their clock says; a live server runs them as in production.
        dependencies.runsBackgroundJobs = live
        TestProgress.step("building the portal")
        let app = try await buildApplication(settings: settings, dependencies: dependencies, features: features, logger: logger)
        // A live server, on a port of its own, where a test needs real connections (WebSockets).
        TestProgress.step("starting the portal's services and migrating")
        try await app.application.test(live ? .live : .router) { client in
            TestProgress.step("running the test")
            try await body(TestPortal(app: app, client: client, clock: clock, engine: engine))
            TestProgress.step("stopping the portal's services")
        }
    }

    /// Adds a staff account straight to storage.
    @discardableResult
    func createStaff(
        _ role: StaffRole,
        username: String,
        password: String = "correct horse battery staple",
        email: String? = nil,
        status: AccountStatus = .active
    ) async throws -> StaffAccount {
        let hash = try await portal.passwords.hash(password)
        return try await database.transaction { db in
            try await StaffAccountRepository().create(
                username: username,
                email: email ?? "\(username)@example.org",
                role: role,
                status: status,
                passwordHash: hash,
                now: clock.now,
                on: db
            )
        }
    }

    /// A browser that has signed in as a new account of `role`.
    func signedIn(_ role: StaffRole, username: String? = nil) async throws -> (Visitor, StaffAccount) {
        // Unique within a test however many accounts it makes, and within the 21-character limit.
        let name = username ?? "\(role.rawValue.prefix(12)).\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(8).lowercased())"
        let account = try await createStaff(role, username: name)
        var visitor = Visitor(portal: self)
        try await visitor.signIn(username: name, password: "correct horse battery staple")
        return (visitor, account)
    }

    /// Every email in the outbox, oldest first.
    func outboxMessages() async throws -> [OutboxMessage] {
        try await database.read { db in
            try await portal.outbox.list(status: nil, page: PageRequest(number: 1, size: 200), on: db).items.reversed()
        }
    }

    func auditEntries(action: AuditAction? = nil) async throws -> [AuditEntry] {
        var query = AuditQuery()
        query.action = action
        query.page = PageRequest(number: 1, size: 200)
        return try await database.read { [query] db in try await portal.audit.list(query, on: db).items }
    }
}

/// A mail server that is set up but takes nothing yet: mail waits in the outbox, text and all, for
/// the test to read, and pages behave as they do where mail is sent.
struct MailServerNotAnswering: MailTransport {
    func deliver(_ message: OutboxMessage, from sender: String) async throws {
        throw DeliveryFailed(description: "the test's mail server does not answer")
    }
}

extension OutboxMessage {
    /// The opened text, or nothing once delivered.
    var bodyText: String { body ?? "" }
}

/// One browser: keeps its session cookie and the CSRF token of the last page it saw.
struct Visitor {
    let portal: TestPortal
    /// Every cookie the browser holds, by name: the staff session's, and the web app's.
    var cookies: [String: String] = [:]
    var csrfToken: String?

    /// The staff session's cookie.
    var cookie: String? {
        get { cookies[cookieName] }
        set { cookies[cookieName] = newValue }
    }

    /// The `Cookie` header the browser sends with every request.
    var cookieHeader: String? {
        cookies.isEmpty ? nil : cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
    }

    init(portal: TestPortal) {
        self.portal = portal
    }

    var cookieName: String { portal.portal.sessions.cookieName }

    @discardableResult
    mutating func get(_ path: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        var headers = headers
        if let cookieHeader, headers[.cookie] == nil { headers[.cookie] = cookieHeader }
        TestProgress.step("GET \(path)")
        let response = try await portal.client.execute(uri: path, method: .get, headers: headers, body: nil)
        remember(response)
        return response
    }

    /// Posts a form as the browser would from our own page: same-origin, with the CSRF token.
    @discardableResult
    mutating func post(
        _ path: String,
        form: [(String, String)] = [],
        csrfToken: String?? = nil,
        origin: String? = TestPortal.origin,
        secFetchSite: String? = nil,
        headers extraHeaders: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        headers.append(contentsOf: extraHeaders)
        if let cookieHeader, headers[.cookie] == nil { headers[.cookie] = cookieHeader }
        if let origin { headers[.origin] = origin }
        if let secFetchSite { headers[HTTPField.Name("Sec-Fetch-Site")!] = secFetchSite }
        var fields = form
        if let token = csrfToken ?? self.csrfToken { fields.append(("csrf_token", token)) }
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        TestProgress.step("POST \(path)")
        let response = try await portal.client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
        remember(response)
        return response
    }

    mutating func signIn(username: String, password: String) async throws {
        try await get("/sign-in")
        let response = try await post("/sign-in", form: [("username", username), ("password", password)])
        #expect(response.status == .seeOther, "sign-in as \(username) failed")
        // Land where the browser would, which also picks up the new session's form token.
        try await get(response.location ?? "/")
    }

    private mutating func remember(_ response: TestResponse) {
        for value in response.headers[values: .setCookie] {
            let pair = value.split(separator: ";").first.map(String.init) ?? ""
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let newValue = String(pair[pair.index(after: equals)...])
            cookies[String(pair[..<equals])] = newValue.isEmpty ? nil : newValue
        }
        if let token = Self.csrfToken(in: String(buffer: response.body)) { csrfToken = token }
    }

    /// The mark a page rendered with its text marked (`PageRenderer.checksRawSlots`) puts after each string,
    /// as a `{{…}}` slot writes it.
    static let escapedTextMark = HTMLEscaping.escape(TemplateValues.textMark)

    static func csrfToken(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf_token" value=""#) else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]).replacingOccurrences(of: escapedTextMark, with: "") }
    }

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var location: String? { headers[.location] }

    /// The text of each cell of each row of the page's first table body, tags removed.
    var tableRows: [[String]] {
        guard let body = text.components(separatedBy: "<tbody>").dropFirst().first?.components(separatedBy: "</tbody>").first else { return [] }
        return body.components(separatedBy: "<tr").dropFirst().map { row in
            row.components(separatedBy: "<td").dropFirst().map { cell in
                String(cell.drop { $0 != ">" }.dropFirst()).components(separatedBy: "</td>").first.map {
                    $0.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression).trimmingCharacters(in: .whitespacesAndNewlines)
                } ?? ""
            }
        }
    }
}
