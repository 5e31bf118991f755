import Foundation
import PortalPlatform

/// A row of the members list.
struct MemberRow: Sendable, Encodable {
    let pseudonym: String
    let path: String
    let cohort: String
    let joined: String
    let lastActive: String
    let statusTitle: String
    let statusTag: String

    init(_ member: Member) {
        pseudonym = member.pseudonym
        path = SiteURL.member(member.id).path
        cohort = member.cohort.name
        joined = DisplayTime.dateTime(member.createdAt)
        lastActive = DisplayTime.dateTime(member.lastActiveAt)
        statusTitle = member.status.title
        statusTag = member.status.tagClass
    }
}

extension Member.Status {
    var tagClass: String {
        switch self {
        case .active: "tag--green"
        case .disabled: "tag--grey"
        }
    }
}

struct MembersPage: Page {
    static let template = TemplateName.members
    let layout: Layout
    let search: String
    let cohortOptions: [FilterOption]
    let statusOptions: [FilterOption]
    let headers: [SortableHeader]
    let rows: [MemberRow]
    /// The rendered `PaginationView`.
    let pagination: String
    let isFiltered: Bool
    let action = SiteURL.members.path
    let newCodePath = SiteURL.newSignUpCode.path
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

/// One cohort in the cohorts table and its bar in the chart.
struct CohortRow: Sendable, Encodable {
    let name: String
    let membersPath: String
    let memberCount: Int
    let activeLastWeek: Int
    let lastActive: String
    /// Bar geometry for the chart, in the SVG's units.
    let barY: Int
    let barWidth: Int
    let activeWidth: Int
    let labelY: Int
    let valueX: Int
}

struct CohortsPage: Page {
    static let template = TemplateName.cohorts
    let layout: Layout
    let rows: [CohortRow]
    let chartHeight: Int
    let chartLabelWidth = CohortsPage.labelWidth
    let membersPath = SiteURL.members.path
    let newCodePath = SiteURL.newSignUpCode.path

    static let labelWidth = 170
    static let barArea = 420
    static let rowHeight = 32

    init(layout: Layout, summaries: [CohortSummary]) {
        self.layout = layout
        let largest = max(1, summaries.map(\.memberCount).max() ?? 1)
        rows = summaries.enumerated().map { index, summary in
            let y = 10 + index * Self.rowHeight
            let width = summary.memberCount * Self.barArea / largest
            return CohortRow(
                name: summary.cohort.name,
                membersPath: ListAddress(path: SiteURL.members.path, parameters: [("cohort", "\(summary.cohort.id)")]).string,
                memberCount: summary.memberCount,
                activeLastWeek: summary.activeLastWeek,
                lastActive: summary.lastActiveAt.map(DisplayTime.dateTime) ?? "No one yet",
                barY: y,
                barWidth: max(width, summary.memberCount > 0 ? 2 : 0),
                activeWidth: summary.activeLastWeek * Self.barArea / largest,
                labelY: y + 17,
                valueX: Self.labelWidth + max(width, 2) + 8
            )
        }
        chartHeight = 20 + summaries.count * Self.rowHeight
    }
}
