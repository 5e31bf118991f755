import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import PortalPlatform
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
    /// The features the portal was built from, in order.
    let features: [any PortalFeature]
    /// Their background jobs, each marked with its feature's program.
    let jobs: [BackgroundJob]

    /// The running instance of one feature, with its state (its caches).
    func feature<Feature: PortalFeature>(_ type: Feature.Type) -> Feature? {
        features.lazy.compactMap { $0 as? Feature }.first
    }
}

/// Builds the whole application from `features` (every feature unless told otherwise); `serve` and the tests both come through here.
public func buildApplication(settings: Settings, dependencies: Dependencies, logger: Logger? = nil) async throws -> CarePortalApplication {
    try await buildApplication(settings: settings, dependencies: dependencies, features: Features.all, logger: logger)
}

func buildApplication(
    settings: Settings,
    dependencies: Dependencies,
    features featureTypes: [any PortalFeature.Type],
    logger: Logger? = nil
) async throws -> CarePortalApplication {
    let logger =
        logger
        ?? {
            var logger = Logger(label: "careportal")
            logger.logLevel = settings.logLevel
            return logger
        }()

    let metrics = PortalMetrics()
    // Read once, before anything is opened: a server without its key does not start.
    let sealer = try Sealer.load(settings)
    let database = try Database(url: settings.databaseURL, logger: logger, metrics: metrics)
    let pages = try await PageRenderer(
        templatesDirectory: "\(settings.resourcesDirectory)/templates",
        required: featureTypes.flatMap { $0.templates },
        checksRawSlots: dependencies.checksRawSlots
    )
    let (wakeUps, wakeUpContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let outbox = Outbox(now: dependencies.now, sealer: sealer, wakeSender: { wakeUpContinuation.yield() })
    let contributions = Features.contributions(of: featureTypes)
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
        contributions: contributions,
        logger: logger,
        metrics: metrics
    )

    let router = Router(context: PortalContext.self)
    // Outermost, so each request is counted with the status it finally answered (error pages included)
    // under its route's pattern (`/members/{id}`), never the address it asked for.
    router.add(middleware: MetricsMiddleware<PortalContext>())
    router.add(middleware: SecurityHeadersMiddleware(servedOverHTTPS: settings.servedOverHTTPS))
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: ErrorPageMiddleware(portal: portal))
    let bodyLimits = RequestBodyLimits()
    router.add(middleware: RequestBodyLimitMiddleware(limits: bodyLimits))
    router.add(middleware: FileMiddleware("\(settings.resourcesDirectory)/static", urlBasePath: "/static", logger: logger))
    router.add(middleware: SessionMiddleware(portal: portal))
    router.add(middleware: CSRFMiddleware(portal: portal))

    var routes = PortalRoutes(router: router, portal: portal, bodyLimits: bodyLimits)
    var features: [any PortalFeature] = []
    var jobs: [BackgroundJob] = []
    for type in featureTypes {
        let feature = type.init(portal: portal)
        routes.program = type.program
        try await feature.addRoutes(to: &routes)
        jobs += feature.jobs.map { job in
            var job = job
            job.program = job.servesEveryProgram ? nil : type.program
            return job
        }
        features.append(feature)
    }

    var services: [any Service] = [database, Housekeeping(portal: portal)]
    if database.engine == .postgres { services.append(LiveSignalListener(database: database, signals: portal.live, logger: logger)) }
    if !jobs.isEmpty, dependencies.runsBackgroundJobs { services.append(BackgroundJobs(portal: portal, jobs: jobs)) }
    let sender = dependencies.mailTransport.map { transport in
        OutboxSender(
            database: database,
            outbox: outbox,
            transport: transport,
            sender: settings.mailFrom,
            logger: logger,
            wakeUps: wakeUps,
            wakeUpContinuation: wakeUpContinuation
        )
    }
    if let sender { services.append(sender) }

    let routeList = router.routes.map { RouteCatalogue.Key(method: $0.method.rawValue, path: $0.path.description) }
    var application = Application(
        router: router,
        server: .http1WebSocketUpgrade { request, channel, _ in await portal.webSockets.upgrade(request, on: channel, portal: portal) },
        configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "CarePortal"),
        services: services,
        logger: logger
    )
    application.beforeServerStarts {
        try await Migrator(database: database, now: dependencies.now, logger: logger).migrate()
        let sealed = try await database.transaction { db in try await outbox.sealPlainBodies(on: db) }
        if sealed > 0 { logger.notice("Sealed the outbox's waiting messages written before bodies were sealed", metadata: ["messages": "\(sealed)"]) }
        try await portal.programSettings.refresh()
    }
    return CarePortalApplication(
        application: application,
        database: database,
        routes: routeList,
        catalogue: routes.catalogue,
        outboxSender: sender,
        portal: portal,
        features: features,
        jobs: jobs
    )
}
