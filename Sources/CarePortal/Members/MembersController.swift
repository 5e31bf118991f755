import Foundation
import Hummingbird
import PortalPlatform

/// Administrators find members, read their records (every read audited), disable and re-enable
/// them, and delete a member's data when she asks by phone; and see the cohorts.
struct MembersController {
    static let access = Access.administrators
    let portal: Portal
    let members = MemberRepository()
    let tokens = AppAccountKind.member.bearerTokens

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.members.pattern, access: Self.access, list)
        routes.get(SiteURL.pattern(SiteURL.member), access: Self.access, show)
        routes.post(SiteURL.pattern(SiteURL.memberDisable), access: Self.access, disable)
        routes.post(SiteURL.pattern(SiteURL.memberEnable), access: Self.access, enable)
        routes.get(SiteURL.pattern(SiteURL.memberDelete), access: Self.access, confirmDelete)
        routes.post(SiteURL.pattern(SiteURL.memberDelete), access: Self.access, delete)
        routes.get(SiteURL.cohorts.pattern, access: Self.access, cohorts)
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        var query = MemberListQuery()
        query.search = request.query("q") ?? ""
        query.cohortID = request.query("cohort").flatMap(Int64.init)
        query.status = request.query("status").flatMap(Member.Status.init(rawValue:))
        query.sort = request.query("sort").flatMap(MemberSort.init(rawValue:)) ?? .joined
        // Newest first by default; a chosen column starts A–Z or oldest first.
        query.descending = request.query("order").map { $0 == "desc" } ?? (query.sort == .joined)
        query.page = try request.pageRequest()
        let (page, cohorts) = try await portal.database.read { [query] db in
            (try await members.list(query, on: db), try await members.cohorts(on: db))
        }
        let address = ListAddress(
            path: SiteURL.members.path,
            parameters: [
                ("q", query.search), ("cohort", query.cohortID.map { "\($0)" }), ("status", query.status?.rawValue),
                ("sort", request.query("sort") == nil ? nil : query.sort.rawValue), ("order", request.query("order"))
            ]
        )
        func header(_ title: String, _ sort: MemberSort) -> SortableHeader {
            SortableHeader(title: title, key: sort.rawValue, currentKey: query.sort.rawValue, descending: query.descending, address: address)
        }
        return portal.pages.response(
            MembersPage(
                layout: portal.layout("Members", context: context, current: .members),
                search: query.search,
                cohortOptions: [FilterOption(value: "", title: "All cohorts", isSelected: query.cohortID == nil)]
                    + cohorts.map { FilterOption(value: "\($0.id)", title: $0.name, isSelected: $0.id == query.cohortID) },
                statusOptions: [FilterOption(value: "", title: "All statuses", isSelected: query.status == nil)]
                    + Member.Status.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == query.status) },
                headers: [header("Pseudonym", .pseudonym), header("Joined", .joined), header("Last active", .lastActive)],
                rows: MemberRows.html(page.items, clock: portal.programSettings.current.clock),
                pagination: portal.pages.html(PaginationView(page, address: address, noun: "members")),
                isFiltered: !query.search.isEmpty || query.cohortID != nil || query.status != nil
            )
        )
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        // Reading a member's record is itself recorded, in the same transaction as the read.
        let clock = portal.programSettings.current.clock
        let record = try await portal.database.transaction { db in
            guard let record = try await MemberRecord.load(id: id, clock: clock, on: db) else { throw HTTPError(.notFound) }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .memberViewed,
                    recordType: "member",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return record
        }
        let layout = portal.layout(record.member.pseudonym, context: context, current: .members)
        return portal.pages.response(MemberPage(record, clock: clock, layout: layout))
    }

    @Sendable func disable(request: Request, context: PortalContext) async throws -> Response {
        try await setStatus(.disabled, request: request, context: context)
    }

    @Sendable func enable(request: Request, context: PortalContext) async throws -> Response {
        try await setStatus(.active, request: request, context: context)
    }

    private func setStatus(_ status: Member.Status, request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let pseudonym = try await portal.database.transaction { db in
            guard let member = try await members.find(id: id, on: db) else { throw HTTPError(.notFound) }
            try await members.setStatus(id: id, status, now: portal.now, on: db)
            // Disabling signs her app out at once, on every device.
            if status == .disabled { try await tokens.revokeAll(ownerID: id, on: db) }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: status == .disabled ? .memberDisabled : .memberEnabled,
                    recordType: "member",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return member.pseudonym
        }
        try await portal.flash(
            status == .disabled
                ? Flash(.success, "\(pseudonym) has been disabled and signed out of the app.")
                : Flash(.success, "\(pseudonym) can sign in to the app again."),
            context: context
        )
        return seeOther(.member(id))
    }

    @Sendable func confirmDelete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let member = try await portal.database.read({ db in try await members.find(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(
            DeleteMemberPage(
                layout: portal.layout("Delete \(member.pseudonym)’s data", context: context, current: .members),
                pseudonym: member.pseudonym,
                action: SiteURL.memberDelete(id).path,
                memberPath: SiteURL.member(id).path
            )
        )
    }

    @Sendable func delete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let engine = portal.database.engine
        let pseudonym = try await portal.database.transaction { db in
            guard try await members.hold(id: id, deleting: true, engine: engine, on: db),
                let member = try await members.find(id: id, on: db)
            else { throw HTTPError(.notFound) }
            // What she wrote and answered goes with her account, and each feature takes it off the counts it keeps.
            var afterwards: [Contributions.AfterMemberDeletion] = []
            for deletion in portal.contributions.memberDeletions {
                if let after = try await deletion(id, portal, db) { afterwards.append(after) }
            }
            try await members.delete(id: id, on: db)
            for after in afterwards { try await after(db) }
            // Her feed, her choices about it, her phones' tokens and her points go with her.
            try await portal.notifications.forget(.member(id), on: db)
            try await PointsLedger().forget(.member(id), on: db)
            try await RewardsRepository(program: Program.perinatalCommunity.id).forget(.member(id), on: db)
            // The audit trail keeps that it happened and who did it, with the member's number only.
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .memberDeleted,
                    recordType: "member",
                    recordID: "\(id)",
                    origin: origin,
                    detail: "deleted at the member's request"
                ),
                on: db
            )
            return member.pseudonym
        }
        try await portal.flash(Flash(.success, "\(pseudonym)’s data has been deleted."), context: context)
        return seeOther(.members)
    }

    @Sendable func cohorts(request: Request, context: PortalContext) async throws -> Response {
        let now = portal.now
        let summaries = try await portal.database.read { db in try await members.cohortSummaries(now: now, on: db) }
        return portal.pages.response(
            CohortsPage(
                layout: portal.layout("Cohorts", context: context, current: .cohorts),
                summaries: summaries,
                clock: portal.programSettings.current.clock,
                pages: portal.pages
            )
        )
    }
}
