import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The portal, ready to run or to test: the application and the parts tests look at.
public struct CarePortalApplication: Sendable {
    public let application: Application<RouterResponder<PortalContext>>
    public let database: Database
    /// Every route the router holds, as `METHOD /path`.
    public let routes: [RouteCatalogue.Key]
    /// Who may use each route.
    public let catalogue: RouteCatalogue
    /// Present when a mail transport is configured.
    public let outboxSender: OutboxSender?
    let portal: Portal
}

/// Builds the whole application; `serve` and the tests both come through here.
public func buildApplication(settings: Settings, dependencies: Dependencies, logger: Logger? = nil) async throws -> CarePortalApplication {
    let logger = logger ?? {
        var logger = Logger(label: "careportal")
        logger.logLevel = settings.logLevel
        return logger
    }()

    let database = try Database(url: settings.databaseURL, logger: logger)
    let pages = try await PageRenderer(templatesDirectory: "\(settings.resourcesDirectory)/templates")
    let (wakeUps, wakeUpContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let outbox = Outbox(now: dependencies.now, wakeSender: { wakeUpContinuation.yield() })
    let portal = Portal(
        settings: settings,
        dependencies: dependencies,
        database: database,
        sessions: Sessions(database: database, settings: settings, dependencies: dependencies),
        audit: AuditLog(now: dependencies.now),
        pages: pages,
        passwords: PasswordHasher(cost: dependencies.passwordHashCost),
        passwordPolicy: .standard,
        outbox: outbox,
        programSettings: ProgramSettingsStore(database: database, defaults: .defaults(programName: settings.programName)),
        logger: logger
    )

    let router = Router(context: PortalContext.self)
    router.add(middleware: SecurityHeadersMiddleware(servedOverHTTPS: settings.servedOverHTTPS))
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: ErrorPageMiddleware(portal: portal))
    router.add(middleware: FileMiddleware("\(settings.resourcesDirectory)/static", urlBasePath: "/static", logger: logger))
    router.add(middleware: SessionMiddleware(portal: portal))
    router.add(middleware: CSRFMiddleware(portal: portal))

    var routes = PortalRoutes(router: router, portal: portal)
    HomeController(portal: portal).addRoutes(to: &routes)
    SignInController(portal: portal).addRoutes(to: &routes)
    PhysicianRegistrationController(portal: portal).addRoutes(to: &routes)
    StaffController(portal: portal).addRoutes(to: &routes)
    AuditController(portal: portal).addRoutes(to: &routes)
    OutboxController(portal: portal).addRoutes(to: &routes)
    SignUpCodesController(portal: portal).addRoutes(to: &routes)
    MemberAPIController(portal: portal).addRoutes(to: &routes)
    MembersController(portal: portal).addRoutes(to: &routes)
    ProgramSettingsController(portal: portal).addRoutes(to: &routes)
    try await OpenAPIController(portal: portal).addRoutes(to: &routes)
    MedicalProfessionalsController(portal: portal).addRoutes(to: &routes)
    InvitationController(portal: portal).addRoutes(to: &routes)
    DeskController(portal: portal).addRoutes(to: &routes)
    DeskModerationController(portal: portal).addRoutes(to: &routes)
    DeskAPIController(portal: portal).addRoutes(to: &routes)
    try ReportFonts.check()
    CatalogueController(portal: portal).addRoutes(to: &routes)
    PatientsController(portal: portal).addRoutes(to: &routes)
    PatientWizardController(portal: portal).addRoutes(to: &routes)
    PatientAPIController(portal: portal).addRoutes(to: &routes)

    var services: [any Service] = [database, Housekeeping(portal: portal), PatientReminders(portal: portal)]
    let sender = dependencies.mailTransport.map { transport in
        OutboxSender(
            database: database, outbox: outbox, transport: transport, sender: settings.mailFrom, logger: logger,
            wakeUps: wakeUps, wakeUpContinuation: wakeUpContinuation
        )
    }
    if let sender { services.append(sender) }

    let routeList = router.routes.map { RouteCatalogue.Key(method: $0.method.rawValue, path: $0.path.description) }
    var application = Application(
        router: router,
        configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "CarePortal"),
        services: services,
        logger: logger
    )
    application.beforeServerStarts {
        try await Migrator(database: database, now: dependencies.now, logger: logger).migrate()
        try await portal.programSettings.refresh()
    }
    return CarePortalApplication(
        application: application, database: database, routes: routeList, catalogue: routes.catalogue,
        outboxSender: sender, portal: portal
    )
}

/// Every 30 seconds reads program settings saved by other servers; every five minutes clears out
/// expired sessions, member tokens and old sign-in failures.
struct Housekeeping: Service {
    let portal: Portal
    static let interval: Duration = ProgramSettingsStore.refreshInterval
    static let sweepEvery = 10

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // The first round waits one interval, so it never runs before start-up's migration.
            var round = 0
            while (try? await Task.sleep(for: Self.interval)) != nil {
                round += 1
                do {
                    try await portal.programSettings.refresh()
                    if round % Self.sweepEvery == 0 { try await sweep() }
                } catch {
                    portal.logger.warning("Housekeeping failed", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
        }
    }

    func sweep() async throws {
        try await portal.sessions.deleteExpired()
        let now = portal.now
        try await portal.database.write { db in
            try await SignInThrottle().deleteExpired(now: now, on: db)
            try await MemberTokens().deleteExpired(now: now, on: db)
            try await PatientTokens().deleteExpired(now: now, on: db)
        }
    }
}
