import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// Administrators send the rewards members redeemed: the ones still to send, oldest first, each marked
/// sent once, with the gift card's code if it has one (sealed; she sees it in the app).
struct RedemptionsController {
    let portal: Portal
    var rewards: MemberRewards { MemberRewards(portal: portal) }

    func addRoutes(to routes: inout PortalRoutes) {
        let access = RewardCatalogue.members.access
        routes.get(SiteURL.rewardRedemptions.pattern, access: access) { request, context in
            try await page(request, context, errors: FormErrors(), typed: [:])
        }
        routes.post(SiteURL.pattern(SiteURL.rewardRedemptionSent), access: access, send)
    }

    private func page(
        _ request: Request,
        _ context: PortalContext,
        errors: FormErrors,
        typed: [Int64: String],
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let pageRequest = try request.pageRequest()
        let (sealer, repository) = (portal.sealer, rewards.repository)
        let reads = try await portal.database.read { db in
            try await RedemptionsPage.Reads.load(pageRequest, repository: repository, sealer: sealer, on: db)
        }
        let page = RedemptionsPage(
            reads,
            typed: typed,
            errors: errors,
            clock: portal.programSettings.current.clock,
            layout: portal.layout("Redeemed rewards", context: context, current: .rewards),
            pagination: portal.pages.html(
                PaginationView(reads.page, address: ListAddress(path: SiteURL.rewardRedemptions.path, parameters: []), noun: "rewards")
            )
        )
        return portal.pages.response(page, status: status)
    }

    private struct SendForm: Decodable {
        var code: String?
    }

    @Sendable func send(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let code = (try await request.form(SendForm.self, context: context).code ?? "").trimmed
        guard code.count <= RewardRules.noteMaximumLength, !code.contains(where: \.isNewline) else {
            var errors = FormErrors()
            errors.add("code-\(id)", "The gift card's code must be one line of \(RewardRules.noteMaximumLength) characters or fewer")
            return try await page(request, context, errors: errors, typed: [id: code], status: .unprocessableContent)
        }
        guard let staff = context.staff else { throw HTTPError(.forbidden) }
        guard
            try await rewards.send(
                redemptionID: id,
                note: code.isEmpty ? nil : code,
                staff: staff,
                actor: context.auditActor,
                origin: portal.origin(of: request, context: context)
            )
        else { throw HTTPError(.notFound) }
        try await portal.flash(Flash(.success, "Marked sent. The member is told in her feed."), context: context)
        return seeOther(.rewardRedemptions)
    }
}

struct RedemptionsPage: Page {
    struct Row: Sendable, Encodable {
        let member: String
        let memberPath: String
        let reward: String
        let gives: String
        let redeemed: String
        let action: String
        let field: String
        let typed: String
        let error: String?
    }

    static let template = TemplateName.rewardRedemptions
    let layout: Layout
    let errors: [FormErrors.Item]
    let rows: [Row]
    let pagination: RenderedHTML
    let catalogPath: String

    /// What the page shows: a page of the redemptions still to send, with their rewards (retired ones too)
    /// and their members' pseudonyms.
    struct Reads: Sendable {
        let page: PageOf<Redemption>
        let rewards: [Int64: Reward]
        let pseudonyms: [Int64: String]

        static func load(_ request: PageRequest, repository: RewardsRepository, sealer: Sealer, on db: any SQLDatabase) async throws -> Reads {
            let page = try await repository.waiting(page: request, sealer: sealer, on: db)
            let rewards = Dictionary(uniqueKeysWithValues: try await repository.rewards(includingRetired: true, on: db).map { ($0.id, $0) })
            let pseudonyms = try await MemberRepository().pseudonyms(ids: page.items.map(\.account.accountID), on: db)
            return Reads(page: page, rewards: rewards, pseudonyms: pseudonyms)
        }
    }

    /// The page of redemptions, with the codes typed into each row and what to fix beside it.
    init(_ reads: Reads, typed: [Int64: String], errors: FormErrors, clock: ProgramClock, layout: Layout, pagination: RenderedHTML) {
        self.layout = layout
        self.errors = errors.items
        rows = reads.page.items.map { redemption in
            let reward = reads.rewards[redemption.rewardID]
            let field = "code-\(redemption.id)"
            return Row(
                member: reads.pseudonyms[redemption.account.accountID] ?? "A former member",
                memberPath: SiteURL.member(redemption.account.accountID).path,
                reward: reward?.title ?? "Reward",
                gives: reward?.gives ?? "",
                redeemed: clock.dateTime(redemption.redeemedAt),
                action: SiteURL.rewardRedemptionSent(redemption.id).path,
                field: field,
                typed: typed[redemption.id] ?? "",
                error: errors[field]
            )
        }
        self.pagination = pagination
        catalogPath = SiteURL.rewards.path
    }
}
