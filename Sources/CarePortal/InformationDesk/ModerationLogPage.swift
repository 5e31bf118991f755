import Foundation
import Hummingbird
import PortalPlatform

/// The log's filters as asked for: the query, the moderator as given, and the problems found in them.
struct ModerationLogFilters {
    var query = ModerationLogQuery()
    var moderatorText = ""
    var errors = FormErrors()

    init(request: Request, moderators: [ModerationLogQuery.Known]) throws {
        query.action = request.query("action").flatMap(ModerationEntry.Action.init(rawValue:))
        moderatorText = String((request.query("moderator") ?? "").trimmed.prefix(100))
        if !moderatorText.isEmpty {
            query.moderator = ModerationLogQuery.Moderator(choice: moderatorText, among: moderators)
            if query.moderator == nil { errors.add("moderator", "Choose a moderator from the list") }
        }
        query.threadID = request.query("thread").flatMap(Int64.init)
        query.page = try request.pageRequest()
    }

    var parameters: [(String, String?)] {
        [("action", query.action?.rawValue), ("moderator", query.moderator?.value), ("thread", query.threadID.map { "\($0)" })]
    }
}

extension ModerationLogPage {
    /// The log as filtered; moderators who share a name are told apart by their account.
    init(
        _ filters: ModerationLogFilters,
        moderators: [ModerationLogQuery.Known],
        page: PageOf<ModerationEntry>,
        clock: ProgramClock,
        pages: PageRenderer,
        layout: Layout
    ) {
        let query = filters.query
        let address = ListAddress(path: SiteURL.deskModerationLog.path, parameters: filters.parameters)
        let named = Dictionary(grouping: moderators, by: \.name)
        let moderatorOptions =
            [
                FilterOption(value: "", title: "Any moderator", isSelected: query.moderator == nil),
                FilterOption(
                    value: ModerationLogQuery.Moderator.automatic.value,
                    title: "Automatic (members' flags)",
                    isSelected: query.moderator == .automatic
                )
            ]
            + moderators.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }.map { moderator in
                FilterOption(
                    value: "\(moderator.id)",
                    title: named[moderator.name, default: []].count > 1 ? "\(moderator.name) (account \(moderator.id))" : moderator.name,
                    isSelected: query.moderator == .account(moderator.id)
                )
            }
        self.init(
            layout: layout,
            errors: filters.errors.items,
            actionOptions: FilterOption.html(
                [FilterOption(value: "", title: "All actions", isSelected: query.action == nil)]
                    + ModerationEntry.Action.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.action) }
            ),
            moderatorOptions: FilterOption.html(moderatorOptions),
            moderatorError: filters.errors["moderator"],
            thread: query.threadID.map { "\($0)" } ?? "",
            rows: ModerationLogRows.html(page.items, clock: clock).html,
            hasRows: !page.items.isEmpty,
            pagination: pages.html(PaginationView(page, address: address, noun: "entries")),
            isFiltered: query.action != nil || !filters.moderatorText.isEmpty || query.threadID != nil,
            exportPath: ListAddress(path: SiteURL.deskModerationLogExport.path, parameters: filters.parameters).string
        )
    }
}
