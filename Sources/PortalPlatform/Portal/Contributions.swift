import Foundation
import SQLKit

/// One of the programs a deployment can run (a perinatal community, a physicians' practice, …). An
/// administrator switches programs on and off on the Program settings page: a program that is off
/// answers 404 on its routes, leaves the navigation and the home page, and its background jobs idle.
package struct Program: Sendable, Hashable, Identifiable {
    /// Stored in the program settings; never changes once saved.
    package let id: String
    package let title: String
    /// One sentence for the Program settings page: what switching it on gives.
    package let summary: String

    package init(id: String, title: String, summary: String) {
        self.id = id
        self.title = title
        self.summary = summary
    }
}

/// A heading the navigation gathers its links under.
package struct NavigationGroup: Sendable, Hashable {
    package let title: String
    /// Groups are shown in increasing order.
    package let order: Int

    package init(_ title: String, order: Int) {
        self.title = title
        self.order = order
    }
}

/// A link in the main navigation and who may see it (the same `Access` its route is registered with).
package struct NavigationItem: Sendable {
    package let title: String
    package let path: String
    package let access: Access
    package let group: NavigationGroup
    /// Set from the feature that contributes the link; nil for the portal's own pages.
    package var program: Program?

    package init(title: String, path: String, access: Access, group: NavigationGroup) {
        self.title = title
        self.path = path
        self.access = access
        self.group = group
    }
}

/// A card on a staff member's home page, contributed by a feature: a link to its pages with a sentence,
/// and, for the overview at the top of the page, the feature's own figures and small graphs.
package struct HomeCard: Sendable, Encodable {
    package let title: String
    package let path: String
    package let body: String
    /// The numbers the role needs first (questions waiting, mail not delivered); exact operational counts.
    package let figures: [HomeFigure]
    /// Small graphs drawn with the shared chart module (`Sparkline`), already rendered.
    package let charts: [RenderedHTML]
    /// Whether the card belongs to the overview at the top of the home page rather than the links beneath.
    package let isOverview: Bool

    package init(title: String, path: String, body: String, figures: [HomeFigure] = [], charts: [RenderedHTML] = []) {
        self.title = title
        self.path = path
        self.body = body
        self.figures = figures
        self.charts = charts
        isOverview = !figures.isEmpty || !charts.isEmpty
    }
}

/// One number on a home card: what it counts, the number, and a line of context ("the oldest has waited 3 days").
package struct HomeFigure: Sendable, Encodable, Equatable {
    package let label: String
    package let value: String
    package let detail: String?
    /// Where the number's own list is, when it differs from the card's page.
    package let path: String?
    /// True when the number asks for someone's attention (it is drawn with a warning mark).
    package let needsAttention: Bool

    package init(label: String, value: Int, detail: String? = nil, path: String? = nil, needsAttention: Bool = false) {
        self.init(label: label, text: HomeFigure.count(value), detail: detail, path: path, needsAttention: needsAttention)
    }

    package init(label: String, text: String, detail: String? = nil, path: String? = nil, needsAttention: Bool = false) {
        self.label = label
        self.value = text
        self.detail = detail
        self.path = path
        self.needsAttention = needsAttention
    }

    /// An exact count, with thousands separated.
    package static func count(_ value: Int) -> String { ChartFormat.count(value) }
}

/// Work a feature runs in the background on every server, every `interval`, while its program is on.
package struct BackgroundJob: Sendable {
    package let name: String
    package let interval: Duration
    package var program: Program?
    /// Work every program's app accounts rely on (pushes to their phones): it keeps no feature's program,
    /// so it runs whichever programs are on.
    package var servesEveryProgram = false
    package let work: @Sendable () async throws -> Void

    /// How often housekeeping sweeps (expired tokens, sessions, old throttle entries) run.
    package static let housekeepingInterval: Duration = .seconds(300)

    package init(_ name: String, every interval: Duration, work: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.interval = interval
        self.work = work
    }
}

/// What the features running in this portal bring to the pages and machinery every feature shares:
/// the navigation, the home page's cards, the programs, the audit log's vocabulary and the kinds of app
/// account. Gathered once when the application is built; the platform reads it and names no feature.
package struct Contributions: Sendable {
    package typealias HomeCards = @Sendable (StaffAccount, Portal) async throws -> [HomeCard]
    /// A feature's part in deleting a member's account, beyond the rows that go with hers by their foreign keys:
    /// the counts it keeps of them. It runs inside the deletion's transaction while her rows are still there,
    /// after her `members` row is held, and returns what is left to do once they have gone, if anything.
    package typealias MemberDeletion = @Sendable (_ memberID: Int64, _ portal: Portal, _ db: any SQLDatabase) async throws -> AfterMemberDeletion?
    package typealias AfterMemberDeletion = @Sendable (_ db: any SQLDatabase) async throws -> Void

    package var navigation: [NavigationItem] = []
    package var programs: [Program] = []
    package var auditActions: [AuditAction] = AuditAction.platformActions
    package var homeCards: [(program: Program?, cards: HomeCards)] = []
    package var appAccounts: [AppAccountKind] = []
    /// The parts of the people's web app, each with its feature's program.
    package var appParts: [(program: Program?, part: AppPart)] = []
    /// The kinds of notification, each with its feature's program: the preferences an account sees.
    package var notificationKinds: [(program: Program?, kind: NotificationKind)] = []
    /// How the feed names what its entries are about, by subject type (a thread's title).
    package var notificationSubjects: [String: NotificationSubjectTitles] = [:]
    /// What each feature does when a member's account is deleted, in the features' order.
    package var memberDeletions: [MemberDeletion] = []

    package init() {}

    /// The navigation in its groups' order, each group's links in the order the features were listed.
    package var orderedNavigation: [NavigationItem] {
        navigation.enumerated()
            .sorted { ($0.element.group.order, $0.offset) < ($1.element.group.order, $1.offset) }
            .map(\.element)
    }
}
