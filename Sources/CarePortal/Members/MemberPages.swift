import Foundation
import PortalPlatform

/// A row of the members list.
/// The members list's rows (`TableRows`): a pseudonym linking to her page, when she joined and was last
/// active, her cohort and her status.
enum MemberRows {
    static func html(_ members: [Member], clock: ProgramClock) -> TableRows {
        TableRows(members) { member, cells in
            cells.link(member.pseudonym, to: SiteURL.member(member.id).path)
            cells.text(clock.dateTime(member.createdAt))
            cells.text(clock.dateTime(member.lastActiveAt))
            cells.text(member.cohort.name)
            cells.tag(member.status.title, tone: member.status.tagTone)
        }
    }
}

extension Member.Status {
    var tagTone: TableRows.TagTone {
        switch self {
        case .active: .green
        case .disabled: .grey
        }
    }

    var tagClass: String { tagTone.tagClass }
}

struct MembersPage: Page {
    static let template = TemplateName.members
    let layout: Layout
    let search: String
    /// The filters' options (`FilterOption.html`).
    let cohortOptions: RenderedHTML
    let statusOptions: RenderedHTML
    let headers: [SortableHeader]
    /// The table's rows (`MemberRows`), every text escaped.
    let rows: RenderedHTML
    let hasRows: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let isFiltered: Bool
    let action = SiteURL.members.path
    let newCodePath = SiteURL.newSignUpCode.path

    init(
        layout: Layout,
        search: String,
        cohortOptions: [FilterOption],
        statusOptions: [FilterOption],
        headers: [SortableHeader],
        rows: TableRows,
        pagination: RenderedHTML,
        isFiltered: Bool
    ) {
        self.layout = layout
        self.search = search
        self.cohortOptions = FilterOption.html(cohortOptions)
        self.statusOptions = FilterOption.html(statusOptions)
        self.headers = headers
        self.rows = rows.html
        self.hasRows = !rows.isEmpty
        self.pagination = pagination
        self.isFiltered = isFiltered
    }
}

struct MemberPage: Page {
    typealias Detail = SummaryListRow

    struct SignInRow: Sendable, Encodable {
        let when: String
        let what: String
        let address: String
        let device: String
    }

    static let template = TemplateName.member
    let layout: Layout
    let pseudonym: String
    let avatarPath: String
    let avatarName: String
    let statusTitle: String
    let statusTag: String
    let profile: [Detail]
    let privateDetails: [Detail]
    let signIns: [SignInRow]
    let points: MemberPointsSummary
    let disablePath: String?
    let enablePath: String?
    let deletePath: String
    let cohortPath: String
    let auditPath: String
    let listPath = SiteURL.members.path
}

struct DeleteMemberPage: Page {
    static let template = TemplateName.deleteMember
    let layout: Layout
    let pseudonym: String
    let action: String
    let memberPath: String
}

/// One cohort in the cohorts table.
struct CohortRow: Sendable, Encodable {
    let name: String
    let membersPath: String
    let memberCount: Int
    let activeLastWeek: Int
    let lastActive: String
}

struct CohortsPage: Page {
    static let template = TemplateName.cohorts
    let layout: Layout
    let rows: [CohortRow]
    /// The members of each cohort and those active in the last 7 days, drawn (the table beneath holds the numbers).
    let chart: RenderedHTML
    let membersPath = SiteURL.members.path
    let newCodePath = SiteURL.newSignUpCode.path

    init(layout: Layout, summaries: [CohortSummary], clock: ProgramClock, pages: PageRenderer) {
        self.layout = layout
        rows = summaries.map { summary in
            CohortRow(
                name: summary.cohort.name,
                membersPath: ListAddress(path: SiteURL.members.path, parameters: [("cohort", "\(summary.cohort.id)")]).string,
                memberCount: summary.memberCount,
                activeLastWeek: summary.activeLastWeek,
                lastActive: summary.lastActiveAt.map(clock.dateTime) ?? "No one yet"
            )
        }
        var figure = BarChart(
            ChartDescription(
                id: "cohorts-chart",
                title: "Members per cohort, and those active in the last 7 days",
                summary: "Each cohort's members beside those of them who used the app in the last 7 days.",
                valueTitle: "Members",
                categoryTitle: "Cohort"
            ),
            categories: summaries.map(\.cohort.name),
            series: [
                ChartSeries("Members", summaries.map { .count($0.memberCount) }),
                ChartSeries("Active in the last 7 days", summaries.map { .count($0.activeLastWeek) })
            ]
        ).figure
        figure.tableBeneath = false
        chart = pages.html(figure)
    }
}
