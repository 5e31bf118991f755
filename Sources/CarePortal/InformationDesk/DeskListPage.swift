import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

extension DeskListQuery {
    /// The list asked for: its tab, order, search and page; an administrator's includes moderated questions.
    init(_ request: Request, role: StaffRole) {
        self.init()
        filter = request.query("filter").flatMap(DeskFilter.init(rawValue:)) ?? .waiting
        sort = request.query("sort").flatMap(DeskSort.init(rawValue:)) ?? DeskSort.defaultSort(for: filter)
        search = String((request.query("q") ?? "").prefix(200))
        page = PageRequest(number: request.pageNumber)
        includeModerated = role == .administrator
    }
}

extension DeskListPage {
    /// What the list reads: a page of threads, the tabs' counts and, for administrators, the open flags.
    struct Reads: Sendable {
        let page: PageOf<DeskThread>
        let counts: DeskCounts
        let openFlags: Int

        static func load(_ query: DeskListQuery, role: StaffRole, desk: InformationDesk, on db: any SQLDatabase) async throws -> Reads {
            let (page, counts) = try await desk.list(query, on: db)
            return Reads(page: page, counts: counts, openFlags: role == .administrator ? try await desk.repository.openFlagTotal(on: db) : 0)
        }
    }

    /// `sortChosen` when the address names the order (the default order is left out of the links).
    init(
        _ query: DeskListQuery,
        reads: Reads,
        sortChosen: Bool,
        role: StaffRole,
        now: Date,
        clock: ProgramClock,
        pages: PageRenderer,
        layout: Layout
    ) {
        let address = ListAddress(
            path: SiteURL.desk.path,
            parameters: [
                ("q", query.search), ("filter", query.filter == .waiting ? nil : query.filter.rawValue),
                ("sort", sortChosen ? query.sort.rawValue : nil)
            ]
        )
        let isAdministrator = role == .administrator
        self.init(
            layout: layout,
            heading: query.search.isEmpty ? "Information desk" : "Information desk: results for “\(query.search)”",
            controls: pages.html(
                DeskListControls(
                    tabs: DeskFilter.allCases.map { filter in
                        DeskTab(
                            title: filter.title,
                            count: reads.counts[filter],
                            path: address.with("filter", filter == .waiting ? nil : filter.rawValue).with("sort", nil).with("page", nil).string,
                            isCurrent: filter == query.filter
                        )
                    },
                    search: query.search,
                    filter: query.filter == .waiting ? "" : query.filter.rawValue,
                    sortOptions: DeskSort.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.sort) },
                    isSearching: !query.search.isEmpty
                )
            ),
            rows: pages.list(reads.page.items.map { DeskThreadRow($0, now: now, clock: clock) }),
            pagination: pages.html(PaginationView(reads.page, address: address, noun: "questions")),
            isSearching: !query.search.isEmpty,
            flagsPath: isAdministrator ? SiteURL.deskFlags.path : nil,
            openFlags: reads.openFlags,
            moderationLogPath: isAdministrator ? SiteURL.deskModerationLog.path : nil,
            emailSettingsPath: DeskController.emailSettingsAccess.allows(role) ? SiteURL.deskEmailSettings.path : nil
        )
    }
}
