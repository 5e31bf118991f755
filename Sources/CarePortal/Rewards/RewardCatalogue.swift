import Foundation
import Hummingbird
import PortalPlatform

/// One program's catalogue of rewards as its staff keep it: whose it is, who keeps it, where its pages are,
/// how its rewards are handed over and how changes are audited.
struct RewardCatalogue: Sendable {
    let program: Program
    let access: Access
    let introduction: String
    let emptyText: String
    /// What the `gives` field is called and its hint: "What the cashier gives", "The gift card".
    let givesLabel: String
    let givesHint: String
    let handedOver: Reward.HandedOver
    let listURL: SiteURL
    /// The redeemed rewards still to send, for a catalogue whose rewards staff send.
    let redemptionsURL: SiteURL?
    let retireURL: @Sendable (Int64) -> SiteURL
    /// Where how many are left is changed; nil for a catalogue without stock.
    let stockURL: (@Sendable (Int64) -> SiteURL)?
    let added: AuditAction
    let retired: AuditAction
    let restocked: AuditAction?
    let recordType: String

    /// Rewards sent by staff have a description and a stock; vouchers at the till have neither.
    var keepsStock: Bool { stockURL != nil }

    static let pharmacy = RewardCatalogue(
        program: .pharmacy,
        access: .pharmacyStaff,
        introduction: "The voucher catalogue: customers spend their points on these in the app, then show the voucher at the till.",
        emptyText: "The catalogue is empty: customers can collect points but have nothing to spend them on yet.",
        givesLabel: "What the cashier gives",
        givesHint: "Shown at the till when the voucher is valid",
        handedOver: .voucher,
        listURL: .pharmacyRewards,
        redemptionsURL: nil,
        retireURL: SiteURL.pharmacyRewardRetire,
        stockURL: nil,
        added: .pharmacyRewardAdded,
        retired: .pharmacyRewardRetired,
        restocked: nil,
        recordType: "pharmacy_reward"
    )
}

/// The catalogue page shared by every program with rewards: the rewards with their cost (and, for rewards
/// staff send, how many are left, which can be changed), adding one, and stopping offering one.
struct RewardCatalogueController {
    let portal: Portal
    let catalogue: RewardCatalogue
    var repository: RewardsRepository { RewardsRepository(program: catalogue.program.id) }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(catalogue.listURL.pattern, access: catalogue.access) { try await page(RewardForm(), errors: FormErrors(), $1) }
        routes.post(catalogue.listURL.pattern, access: catalogue.access, add)
        routes.post(SiteURL.pattern(catalogue.retireURL), access: catalogue.access, retire)
        if let stockURL = catalogue.stockURL { routes.post(SiteURL.pattern(stockURL), access: catalogue.access, restock) }
    }

    struct RewardForm: Decodable, Sendable {
        var title = ""
        var pointsCost = ""
        var gives = ""
        var description = ""
        var stock = ""

        enum CodingKeys: String, CodingKey {
            case title, description, stock
            case pointsCost = "points_cost", gives = "cashier_gives"
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func text(_ key: CodingKeys) throws -> String { (try container.decodeIfPresent(String.self, forKey: key) ?? "").trimmed }
            title = try text(.title)
            pointsCost = try text(.pointsCost)
            gives = try text(.gives)
            description = try text(.description)
            stock = try text(.stock)
        }

        func validated(for catalogue: RewardCatalogue) -> (RewardDraft?, FormErrors) {
            var errors = FormErrors()
            if let problem = FieldRules.requiredTextProblem(title, name: "a title", maximumLength: RewardRules.titleMaximumLength) {
                errors.add("title", problem)
            }
            let cost = Int(pointsCost).flatMap { RewardRules.costRange.contains($0) ? $0 : nil }
            if cost == nil { errors.add("points_cost", "Enter the cost as a whole number of points from 1 to 100000") }
            if let problem = FieldRules.requiredTextProblem(
                gives,
                name: catalogue.keepsStock ? "the gift card, like $10 grocery gift card" : "what the cashier gives, like $5 off any purchase",
                maximumLength: RewardRules.givesMaximumLength
            ) {
                errors.add("cashier_gives", problem)
            }
            if description.count > RewardRules.descriptionMaximumLength {
                errors.add("description", "The description must be \(RewardRules.descriptionMaximumLength) characters or fewer")
            }
            let stock = TypedStock(stock, errors: &errors)
            guard errors.isEmpty, let cost, let stock else { return (nil, errors) }
            return (
                RewardDraft(
                    title: title,
                    pointsCost: cost,
                    gives: gives,
                    description: catalogue.keepsStock ? description : "",
                    handedOver: catalogue.handedOver,
                    stock: catalogue.keepsStock ? stock.value : nil
                ), errors
            )
        }
    }

    /// How many are left as typed: empty for no limit (`value` nil), or a whole number.
    struct TypedStock {
        let value: Int?

        /// Nil, with the problem added to `errors`, when it is neither.
        init?(_ typed: String, errors: inout FormErrors) {
            if typed.isEmpty {
                value = nil
                return
            }
            guard let number = Int(typed), RewardRules.stockRange.contains(number) else {
                errors.add("stock", "Enter how many are left as a whole number from 0 to 100000, or leave it empty for no limit")
                return nil
            }
            value = number
        }
    }

    /// The catalogue with the add form as typed; `restocking` is a row's "How many are left" as typed, kept
    /// in its own box with its message beside it.
    private func page(
        _ form: RewardForm,
        errors: FormErrors,
        _ context: PortalContext,
        status: HTTPResponse.Status = .ok,
        restocking: (id: Int64, typed: String)? = nil
    ) async throws -> Response {
        let rewards = try await portal.database.read { db in try await repository.rewards(includingRetired: true, on: db) }
        return portal.pages.response(
            RewardsPage(
                layout: portal.layout("Rewards", context: context, current: catalogue.listURL),
                catalogue: catalogue,
                rewards: rewards.map { reward in
                    guard let restocking, restocking.id == reward.id else { return RewardRow(reward, catalogue: catalogue) }
                    return RewardRow(reward, catalogue: catalogue, typedStock: restocking.typed, stockError: errors[RewardRow.stockField(reward.id)])
                },
                form: form,
                errors: errors
            ),
            status: status
        )
    }

    @Sendable func add(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(RewardForm.self, context: context)
        let (draft, errors) = form.validated(for: catalogue)
        guard let draft else { return try await page(form, errors: errors, context, status: .unprocessableContent) }
        let origin = portal.origin(of: request, context: context)
        try await portal.database.transaction { db in
            let id = try await repository.addReward(draft, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: catalogue.added,
                    recordType: catalogue.recordType,
                    recordID: "\(id)",
                    origin: origin,
                    detail: draft.title
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "\(draft.title) added to the catalogue."), context: context)
        return seeOther(catalogue.listURL)
    }

    @Sendable func retire(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let reward = try await portal.database.transaction { db -> Reward? in
            guard let reward = try await repository.reward(id: id, on: db), try await repository.retireReward(id: id, now: portal.now, on: db) else {
                return nil
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: catalogue.retired,
                    recordType: catalogue.recordType,
                    recordID: "\(id)",
                    origin: origin,
                    detail: reward.title
                ),
                on: db
            )
            return reward
        }
        guard let reward else { throw HTTPError(.notFound) }
        let kept = catalogue.keepsStock ? "Rewards already redeemed are still to be sent." : "Vouchers already redeemed for it stay good."
        try await portal.flash(Flash(.success, "\(reward.title) is no longer offered. \(kept)"), context: context)
        return seeOther(catalogue.listURL)
    }

    private struct StockForm: Decodable {
        var stock: String?
    }

    @Sendable func restock(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let typed = (try await request.form(StockForm.self, context: context).stock ?? "").trimmed
        var found = FormErrors()
        guard let stock = TypedStock(typed, errors: &found), let restocked = catalogue.restocked else {
            // The message belongs to this row's box, which the summary links to.
            var errors = FormErrors()
            for item in found.items { errors.add(RewardRow.stockField(id), item.message) }
            return try await page(RewardForm(), errors: errors, context, status: .unprocessableContent, restocking: (id, typed))
        }
        let origin = portal.origin(of: request, context: context)
        let reward = try await portal.database.transaction { db -> Reward? in
            guard let reward = try await repository.reward(id: id, on: db), try await repository.restock(id: id, stock: stock.value, on: db) else {
                return nil
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: restocked,
                    recordType: catalogue.recordType,
                    recordID: "\(id)",
                    origin: origin,
                    detail: stock.value.map { "\($0) left" } ?? "no limit"
                ),
                on: db
            )
            return reward
        }
        guard let reward else { throw HTTPError(.notFound) }
        try await portal.flash(Flash(.success, "\(reward.title): \(stock.value.map { "\($0) left" } ?? "no limit")."), context: context)
        return seeOther(catalogue.listURL)
    }
}

struct RewardRow: Sendable, Encodable {
    let title: String
    let pointsCost: Int
    let gives: String
    let description: String
    let stockText: String
    let stockValue: String
    let isRetired: Bool
    let retirePath: String
    let stockPath: String
    let stockField: String
    let stockError: String?

    static func stockField(_ id: Int64) -> String { "stock-\(id)" }

    /// - Parameters:
    ///   - typedStock: what was typed in the row's "How many are left" when it was refused, shown again.
    init(_ reward: Reward, catalogue: RewardCatalogue, typedStock: String? = nil, stockError: String? = nil) {
        title = reward.title
        pointsCost = reward.pointsCost
        gives = reward.gives
        description = reward.description
        stockText = reward.stock.map { $0 == 0 ? "None left" : "\($0) left" } ?? "No limit"
        stockValue = typedStock ?? reward.stock.map(String.init) ?? ""
        isRetired = reward.isRetired
        retirePath = catalogue.retireURL(reward.id).path
        stockPath = catalogue.stockURL?(reward.id).path ?? ""
        stockField = Self.stockField(reward.id)
        self.stockError = stockError
    }
}

struct RewardsPage: Page {
    static let template = TemplateName.rewardCatalogue
    let layout: Layout
    let introduction: String
    let emptyText: String
    let givesLabel: String
    let keepsStock: Bool
    let rewards: [RewardRow]
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let description: String
    let descriptionError: String?
    let descriptionMaximum = RewardRules.descriptionMaximumLength
    let action: String
    let redemptionsPath: String?

    init(layout: Layout, catalogue: RewardCatalogue, rewards: [RewardRow], form: RewardCatalogueController.RewardForm, errors: FormErrors) {
        self.layout = layout
        introduction = catalogue.introduction
        emptyText = catalogue.emptyText
        givesLabel = catalogue.givesLabel
        keepsStock = catalogue.keepsStock
        action = catalogue.listURL.path
        redemptionsPath = catalogue.redemptionsURL?.path
        self.rewards = rewards
        self.errors = errors.items
        var fields = [
            FormField("title", label: "Title", value: form.title, hint: "What the app calls it, like $5 off", width: 30),
            FormField("points_cost", label: "Cost in points", value: form.pointsCost, type: "number", width: 10),
            FormField("cashier_gives", label: catalogue.givesLabel, value: form.gives, hint: catalogue.givesHint, width: 30)
        ]
        if catalogue.keepsStock {
            fields.append(
                FormField(
                    "stock",
                    label: "How many there are (optional)",
                    value: form.stock,
                    hint: "Leave it empty for no limit. Each redemption takes one.",
                    type: "number",
                    width: 10
                )
            )
        }
        errors.apply(to: &fields)
        self.fields = fields
        description = form.description
        descriptionError = errors["description"]
    }
}

extension TemplateName {
    static let rewardCatalogue = TemplateName("rewards/catalogue")
}
