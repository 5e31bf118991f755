import Foundation
import Hummingbird
import PortalPlatform

/// The pharmacy's staff pages for the store: deals, the voucher catalogue (the shared rewards part's
/// catalogue page), checking a voucher at the till and the store's beacons.
struct PharmacyStoreController {
    let portal: Portal
    let pharmacy: Pharmacy
    var repository: PharmacyRepository { pharmacy.repository }

    func addRoutes(to routes: inout PortalRoutes) {
        let access = Access.pharmacyStaff
        routes.get(SiteURL.pharmacyDeals.pattern, access: access, deals)
        routes.get(SiteURL.newPharmacyDeal.pattern, access: access) { try await dealForm(nil, $1) }
        routes.post(SiteURL.newPharmacyDeal.pattern, access: access) { try await saveDeal(nil, $0, $1) }
        routes.get(SiteURL.pattern(SiteURL.editPharmacyDeal), access: access) { try await dealForm($1.parameters.recordID(), $1) }
        routes.post(SiteURL.pattern(SiteURL.editPharmacyDeal), access: access) { try await saveDeal($1.parameters.recordID(), $0, $1) }
        routes.post(SiteURL.pattern(SiteURL.deletePharmacyDeal), access: access, deleteDeal)
        routes.get(SiteURL.pattern(SiteURL.pharmacyDealPicture), access: access) { request, context in
            try await Self.picture(of: context.parameters.recordID(), portal: portal, request: request, context: context)
        }
        RewardCatalogueController(portal: portal, catalogue: .pharmacy).addRoutes(to: &routes)
        routes.get(SiteURL.pharmacyVoucherCheck.pattern, access: access) { try await voucherCheck(code: "", result: nil, errors: FormErrors(), $1) }
        routes.post(SiteURL.pharmacyVoucherCheck.pattern, access: access, checkVoucher)
        routes.get(SiteURL.pharmacyBeacons.pattern, access: access) { try await beacons(BeaconForm(), errors: FormErrors(), $1) }
        routes.post(SiteURL.pharmacyBeacons.pattern, access: access, addBeacon)
        routes.post(SiteURL.pattern(SiteURL.pharmacyBeaconRemove), access: access, removeBeacon)
    }

    private var clock: ProgramClock { portal.programSettings.current.clock }

    /// Deals' pictures: the platform's uploads of the use "deals" (`Portal.uploads`).
    static func pictures(_ portal: Portal) -> UploadStore {
        portal.uploads("deals")
    }

    /// A deal's picture, served with the type its bytes were recognised as; staff and the app both ask here.
    static func picture(of id: Int64, portal: Portal, request: Request, context: PortalContext) async throws -> Response {
        guard let deal = try await portal.database.read({ db in try await PharmacyRepository().deal(id: id, on: db) }),
            let picture = deal.picture,
            let response = try await pictures(portal).response(for: picture, request: request, context: context, downloadName: "deal-\(id)")
        else { throw request.uri.path.hasPrefix("/api/") ? APIError.notFound : HTTPError(.notFound) }
        return response
    }

    // MARK: Deals

    @Sendable func deals(request: Request, context: PortalContext) async throws -> Response {
        let today = clock.date(of: portal.now)
        let (running, past) = try await portal.database.read { db in try await repository.deals(today: today, on: db) }
        return portal.pages.response(
            DealsPage(
                layout: portal.layout("Deals", context: context, current: .pharmacyDeals),
                running: running.map { DealRow($0, today: today) },
                past: past.map { DealRow($0, today: today) },
                currentCount: running.filter { $0.validFrom <= today.iso }.count
            )
        )
    }

    struct DealForm: Sendable {
        var title = ""
        var description = ""
        var validFrom = ""
        var validUntil = ""

        enum CodingKeys: String, CodingKey {
            case title, description
            case validFrom = "valid_from", validUntil = "valid_until"
        }

        init() {}

        /// The picture the deal has now, when the form shows one.
        var picture: StoredUpload?

        init(_ deal: PharmacyDeal) {
            title = deal.title
            description = deal.description
            validFrom = deal.validFrom
            validUntil = deal.validUntil
            picture = deal.picture
        }

        init(_ form: MultipartForm) {
            func text(_ key: CodingKeys) -> String { (form.fields[key.rawValue] ?? "").trimmed }
            title = text(.title)
            description = text(.description)
            validFrom = text(.validFrom)
            validUntil = text(.validUntil)
        }

        func validated(id: Int64) -> (PharmacyDeal?, FormErrors) {
            var errors = FormErrors()
            if let problem = FieldRules.requiredTextProblem(title, name: "a title", maximumLength: PharmacyForms.textMaximumLength) {
                errors.add("title", problem)
            }
            if let problem = FieldRules.requiredTextProblem(description, name: "a description", maximumLength: PharmacyForms.descriptionMaximumLength)
            {
                errors.add("description", problem)
            }
            if let problem = PharmacyRules.dateProblem(validFrom, name: "the first day of the deal") { errors.add("valid_from", problem) }
            if let problem = PharmacyRules.dateProblem(validUntil, name: "the last day of the deal") { errors.add("valid_until", problem) }
            if let from = CalendarDate(iso: validFrom), let until = CalendarDate(iso: validUntil), until < from {
                errors.add("valid_until", "The last day must be on or after the first day")
            }
            guard errors.isEmpty else { return (nil, errors) }
            return (PharmacyDeal(id: id, title: title, description: description, validFrom: validFrom, validUntil: validUntil), errors)
        }

        /// The deal the form describes, and the picture sent with it (`picture`'s bytes, nil when none came)
        /// with the type its bytes show; nil with every problem by its field.
        func validated(id: Int64, picture: [UInt8]?) -> (deal: PharmacyDeal?, picture: (bytes: [UInt8], type: UploadType)?, errors: FormErrors) {
            var (deal, errors) = validated(id: id)
            var checked: (bytes: [UInt8], type: UploadType)?
            if let picture {
                switch PharmacyRules.dealPictureRules.check(picture) {
                case .success(let type): checked = (picture, type)
                case .failure(let problem): errors.add("picture", problem.message)
                }
            }
            if !errors.isEmpty { deal = nil }
            return (deal, checked, errors)
        }
    }

    private func dealForm(_ id: Int64?, _ context: PortalContext) async throws -> Response {
        let form = try await id.asyncMap { id in DealForm(try await deal(id)) } ?? DealForm()
        return dealPage(form, id: id, hasPicture: form.picture != nil, errors: FormErrors(), context: context)
    }

    private func deal(_ id: Int64) async throws -> PharmacyDeal {
        guard let found = try await portal.database.read({ db in try await repository.deal(id: id, on: db) }) else { throw HTTPError(.notFound) }
        return found
    }

    private func dealPage(_ form: DealForm, id: Int64?, hasPicture: Bool, errors: FormErrors, context: PortalContext) -> Response {
        portal.pages.response(
            DealFormPage(
                form,
                id: id,
                hasPicture: hasPicture,
                errors: errors,
                layout: portal.layout(id == nil ? "Add a deal" : "Change a deal", context: context, current: .pharmacyDeals)
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    private func saveDeal(_ id: Int64?, _ request: Request, _ context: PortalContext) async throws -> Response {
        let multipart = try await request.multipartForm()
        let form = DealForm(multipart)
        let existing = try await id.asyncMap { try await deal($0) }
        let (valid, picture, errors) = form.validated(id: id ?? 0, picture: multipart.files["picture"]?.bytes)
        guard var deal = valid else { return dealPage(form, id: id, hasPicture: existing?.picture != nil, errors: errors, context: context) }
        let store = Self.pictures(portal)
        let stored = try await picture.asyncMap { try await store.save($0.bytes, type: $0.type) }
        deal.picture = stored ?? (multipart.fields["remove_picture"] == "yes" ? nil : existing?.picture)
        let detail = deal.title + (picture.map { ", picture \($0.type.rawValue), \($0.bytes.count) bytes" } ?? "")
        let saved: Int64?
        do {
            saved = try await record(
                deal,
                isNew: id == nil,
                detail: detail,
                actor: context.auditActor,
                origin: portal.origin(of: request, context: context)
            )
        } catch {
            if let stored { try? await store.remove(stored) }
            throw error
        }
        guard saved != nil else {
            if let stored { try? await store.remove(stored) }
            throw HTTPError(.notFound)
        }
        // A replaced or removed picture goes only once the change is recorded.
        if let old = existing?.picture, old != deal.picture { try? await store.remove(old) }
        try await portal.flash(Flash(.success, "\(deal.title) saved."), context: context)
        return seeOther(.pharmacyDeals)
    }

    /// Adds the deal or changes it, audited in the same transaction; nil when the deal to change is gone.
    private func record(_ deal: PharmacyDeal, isNew: Bool, detail: String, actor: AuditActor, origin: AuditOrigin) async throws -> Int64? {
        try await portal.database.transaction { db -> Int64? in
            let savedID: Int64
            if isNew {
                savedID = try await repository.addDeal(deal, now: portal.now, on: db)
            } else {
                guard try await repository.updateDeal(deal, now: portal.now, on: db) else { return nil }
                savedID = deal.id
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .pharmacyDealSaved,
                    recordType: "pharmacy_deal",
                    recordID: "\(savedID)",
                    origin: origin,
                    detail: detail
                ),
                on: db
            )
            return savedID
        }
    }

    @Sendable func deleteDeal(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let deal = try await portal.database.transaction { db -> PharmacyDeal? in
            guard let deal = try await repository.deal(id: id, on: db), try await repository.deleteDeal(id: id, on: db) else { return nil }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .pharmacyDealDeleted,
                    recordType: "pharmacy_deal",
                    recordID: "\(id)",
                    origin: origin,
                    detail: deal.title
                ),
                on: db
            )
            return deal
        }
        guard let deal else { throw HTTPError(.notFound) }
        if let picture = deal.picture { try? await Self.pictures(portal).remove(picture) }
        try await portal.flash(Flash(.success, "\(deal.title) deleted: the app no longer shows it."), context: context)
        return seeOther(.pharmacyDeals)
    }

    // MARK: Check a voucher

    struct CheckForm: Decodable {
        var code: String?
    }

    private func voucherCheck(
        code: String,
        result: VoucherCheckResult?,
        errors: FormErrors,
        _ context: PortalContext,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        portal.pages.response(
            VoucherCheckPage(
                layout: portal.layout("Check a voucher", context: context, current: .pharmacyVoucherCheck),
                code: code,
                result: result,
                errors: errors
            ),
            status: status
        )
    }

    @Sendable func checkVoucher(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(CheckForm.self, context: context)
        let code = PharmacyRules.normalizedCode(form.code ?? "")
        guard !code.isEmpty else {
            return try await voucherCheck(
                code: "",
                result: nil,
                errors: FormErrors(items: [.init(field: "code", message: "Enter the code on the customer's phone")]),
                context,
                status: .unprocessableContent
            )
        }
        let checked = try await pharmacy.check(code: code, actor: context.auditActor, origin: portal.origin(of: request, context: context))
        // A fresh, empty box for the next customer once a voucher was accepted.
        let accepted = if case .valid = checked { true } else { false }
        return try await voucherCheck(
            code: accepted ? "" : code,
            result: VoucherCheckResult(checked, code: code, clock: clock),
            errors: FormErrors(),
            context
        )
    }

    // MARK: Beacons

    struct BeaconForm: Decodable, Sendable {
        var name = ""
        var uuid = ""
        var major = ""
        var minor = ""

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func text(_ key: CodingKeys) throws -> String { (try container.decodeIfPresent(String.self, forKey: key) ?? "").trimmed }
            name = try text(.name)
            uuid = try text(.uuid)
            major = try text(.major)
            minor = try text(.minor)
        }

        enum CodingKeys: String, CodingKey { case name, uuid, major, minor }
    }

    private func beacons(_ form: BeaconForm, errors: FormErrors, _ context: PortalContext, status: HTTPResponse.Status = .ok) async throws -> Response
    {
        let beacons = try await portal.database.read { db in try await repository.beacons(on: db) }
        return portal.pages.response(
            BeaconsPage(
                layout: portal.layout("Store beacons", context: context, current: .pharmacyBeacons),
                beacons: beacons.map(BeaconRow.init),
                form: form,
                errors: errors
            ),
            status: status
        )
    }

    @Sendable func addBeacon(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(BeaconForm.self, context: context)
        var errors = FormErrors()
        if let problem = FieldRules.requiredTextProblem(form.name, name: "a name, like Front door", maximumLength: PharmacyForms.nameMaximumLength) {
            errors.add("name", problem)
        }
        if UUID(uuidString: form.uuid) == nil {
            errors.add("uuid", "Enter the beacon's UUID as printed in its app, like B9407F30-F5F8-466E-AFF9-25556B57FE6D")
        }
        let major = Int(form.major), minor = Int(form.minor)
        if major.map(PharmacyForms.beaconNumbers.contains) != true { errors.add("major", "Enter the major number, from 0 to 65535") }
        if minor.map(PharmacyForms.beaconNumbers.contains) != true { errors.add("minor", "Enter the minor number, from 0 to 65535") }
        guard errors.isEmpty, let major, let minor else { return try await beacons(form, errors: errors, context, status: .unprocessableContent) }
        let origin = portal.origin(of: request, context: context)
        let added = try await portal.database.transaction { db -> Bool in
            guard let id = try await repository.addBeacon(uuid: form.uuid, major: major, minor: minor, name: form.name, now: portal.now, on: db)
            else { return false }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .pharmacyBeaconAdded,
                    recordType: "pharmacy_beacon",
                    recordID: "\(id)",
                    origin: origin,
                    detail: form.name
                ),
                on: db
            )
            try await pharmacy.tellBeaconsChanged(on: db)
            return true
        }
        guard added else {
            errors.add("uuid", "A beacon with this UUID, major and minor is already registered")
            return try await beacons(form, errors: errors, context, status: .unprocessableContent)
        }
        await portal.announceNotifications(to: Pharmacy.everyCustomer)
        try await portal.flash(Flash(.success, "\(form.name) registered: the app listens for it from now on."), context: context)
        return seeOther(.pharmacyBeacons)
    }

    @Sendable func removeBeacon(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let name = try await portal.database.transaction { db -> String? in
            guard let name = try await repository.removeBeacon(id: id, on: db) else { return nil }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .pharmacyBeaconRemoved,
                    recordType: "pharmacy_beacon",
                    recordID: "\(id)",
                    origin: origin,
                    detail: name
                ),
                on: db
            )
            try await pharmacy.tellBeaconsChanged(on: db)
            return name
        }
        guard let name else { throw HTTPError(.notFound) }
        await portal.announceNotifications(to: Pharmacy.everyCustomer)
        try await portal.flash(Flash(.success, "\(name) removed: visits are no longer counted from it."), context: context)
        return seeOther(.pharmacyBeacons)
    }
}
