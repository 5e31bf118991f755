import Foundation
import Hummingbird
import PortalPlatform

extension HelpDirectoryQuery {
    /// The entries asked for: a kind, a state (only where the list asks for one), words, an order and a page.
    init(_ request: Request, list: DirectoryList) throws {
        self.init()
        kind = request.query("kind").flatMap(HelpResource.Kind.init(rawValue:))
        state = list.asksStates ? request.query("state").map { $0.uppercased() }.flatMap { USState.all.contains($0) ? $0 : nil } : nil
        search = String((request.query("q") ?? "").prefix(100))
        sort = request.query("sort").flatMap(HelpDirectoryQuery.Sort.init(rawValue:)) ?? .name
        page = try request.pageRequest()
    }
}

struct HelpDirectoryPage: Page {
    static let template = TemplateName.helpDirectory
    let layout: Layout
    let title: String
    let introduction: String
    let emptyText: String
    let asksStates: Bool
    /// The rendered rows (`HelpResourceRows`).
    let rows: RenderedHTML
    let hasRows: Bool
    /// The filters' options (`FilterOption.html`); no states for a list kept for everyone.
    let kinds: RenderedHTML
    let states: RenderedHTML?
    let sorts: RenderedHTML
    let search: String
    let isFiltered: Bool
    let pagination: RenderedHTML
    let action: String
    let newPath: String
    let addTitle: String

    init(
        layout: Layout,
        list: DirectoryList,
        rows: RenderedHTML,
        hasRows: Bool,
        kinds: RenderedHTML,
        states: RenderedHTML?,
        sorts: RenderedHTML,
        search: String,
        isFiltered: Bool,
        pagination: RenderedHTML
    ) {
        self.layout = layout
        title = list.title
        introduction = list.introduction
        emptyText = list.emptyText
        asksStates = list.asksStates
        self.rows = rows
        self.hasRows = hasRows
        self.kinds = kinds
        self.states = states
        self.sorts = sorts
        self.search = search
        self.isFiltered = isFiltered
        self.pagination = pagination
        action = list.listURL.path
        newPath = list.newURL.path
        addTitle = list.addTitle
    }
}

extension HelpDirectoryPage {
    /// A page of the list as filtered.
    init(_ query: HelpDirectoryQuery, page: PageOf<HelpResource>, list: DirectoryList, pages: PageRenderer, layout: Layout) {
        let address = ListAddress(
            path: list.listURL.path,
            parameters: [
                ("kind", query.kind?.rawValue), ("state", query.state), ("q", query.search.isEmpty ? nil : query.search),
                ("sort", query.sort == .name ? nil : query.sort.rawValue)
            ]
        )
        let rows = HelpResourceRows.html(page.items, list: list)
        self.init(
            layout: layout,
            list: list,
            rows: rows.html,
            hasRows: !rows.isEmpty,
            kinds: FilterOption.html(
                [FilterOption(value: "", title: "All kinds", isSelected: query.kind == nil)]
                    + list.kinds.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.kind) }
            ),
            states: list.asksStates
                ? FilterOption.html(
                    [FilterOption(value: "", title: "Every state", isSelected: query.state == nil)]
                        + USState.all.sorted().map { FilterOption(value: $0, title: $0, isSelected: $0 == query.state) }
                ) : nil,
            sorts: FilterOption.html([
                FilterOption(value: "name", title: "Name", isSelected: query.sort == .name),
                FilterOption(value: "kind", title: "Kind (crisis lines first)", isSelected: query.sort == .kind)
            ]),
            search: query.search,
            isFiltered: query.kind != nil || query.state != nil || !query.search.isEmpty,
            pagination: pages.html(PaginationView(page, address: address, noun: "entries"))
        )
    }
}
