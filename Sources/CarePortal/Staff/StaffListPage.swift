import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

struct StaffListPage: Page {
    static let template = TemplateName.staffList
    let layout: Layout
    let search: String
    let roleOptions: [FilterOption]
    let statusOptions: [FilterOption]
    let headers: [SortableHeader]
    /// The rendered rows (`StaffRows`).
    let rows: RenderedHTML
    let hasRows: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let awaitingApprovalCount: Int
    let hasAwaitingApprovals: Bool
    let awaitingApprovalPath: String
    let action = SiteURL.staff.path
    let isFiltered: Bool
    /// The rendered rows of the open invitations (`InvitationRows`).
    let invitations: RenderedHTML
    let hasInvitations: Bool
    let lifetimeDays = StaffInvitation.lifetimeDays
    let registerPath = SiteURL.registerPhysician.path
    let invitePath = SiteURL.staffInvite.path
    let twoFactorPolicyPath = SiteURL.twoFactorPolicy.path
}

extension StaffListPage {
    /// What the list shows, read in one go.
    struct Content: Sendable {
        let accounts: PageOf<StaffAccount>
        let awaitingApproval: Int
        let invitations: [StaffInvitation]
    }

    static func load(_ query: StaffListQuery, on db: any SQLDatabase) async throws -> Content {
        let accounts = StaffAccountRepository()
        return Content(
            accounts: try await accounts.list(query, on: db),
            awaitingApproval: try await accounts.awaitingApprovalCount(on: db),
            invitations: try await StaffInvitationRepository().open(on: db)
        )
    }

    /// The list's address with the query's filters and order, which its headers and pages link to.
    static func address(_ query: StaffListQuery) -> ListAddress {
        ListAddress(
            path: SiteURL.staff.path,
            parameters: [
                ("q", query.search), ("role", query.role?.rawValue), ("status", query.status?.rawValue),
                ("sort", query.sort == .username ? nil : query.sort.rawValue), ("order", query.descending ? "desc" : nil)
            ]
        )
    }

    init(
        layout: Layout,
        query: StaffListQuery,
        content: Content,
        pagination: RenderedHTML,
        now: Date,
        clock: ProgramClock,
        csrfToken: String
    ) {
        let address = Self.address(query)
        func header(_ title: String, _ sort: StaffSort) -> SortableHeader {
            SortableHeader(title: title, key: sort.rawValue, currentKey: query.sort.rawValue, descending: query.descending, address: address)
        }
        let invitationRows = InvitationRows.html(content.invitations, showingRoles: true, now: now, clock: clock, csrfToken: csrfToken)
        self.init(
            layout: layout,
            search: query.search,
            roleOptions: [FilterOption(value: "", title: "All roles", isSelected: query.role == nil)]
                + StaffRole.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.role) },
            statusOptions: [FilterOption(value: "", title: "All statuses", isSelected: query.status == nil)]
                + AccountStatus.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.status) },
            headers: [header("Username", .username), header("Role", .role), header("Status", .status), header("Created", .created)],
            rows: StaffRows.html(content.accounts.items, clock: clock).html,
            hasRows: !content.accounts.items.isEmpty,
            pagination: pagination,
            awaitingApprovalCount: content.awaitingApproval,
            hasAwaitingApprovals: content.awaitingApproval > 0,
            awaitingApprovalPath: ListAddress(path: SiteURL.staff.path, parameters: [("status", AccountStatus.awaitingApproval.rawValue)]).string,
            isFiltered: !query.search.isEmpty || query.role != nil || query.status != nil,
            invitations: invitationRows.html,
            hasInvitations: !invitationRows.isEmpty
        )
    }
}

extension StaffListQuery {
    /// The search, filters, order and page the list's address asks for.
    init(request: Request) throws {
        self.init()
        search = request.query("q") ?? ""
        role = request.query("role").flatMap(StaffRole.init(rawValue:))
        status = request.query("status").flatMap(AccountStatus.init(rawValue:))
        sort = request.query("sort").flatMap(StaffSort.init(rawValue:)) ?? .username
        descending = request.query("order") == "desc"
        page = try request.pageRequest()
    }
}
