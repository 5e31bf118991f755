import Foundation
import PortalPlatform
import SQLKit

/// The only place the pharmacy's SQL lives: customers, prescriptions, refills,
/// visits, deals, rewards, vouchers and beacons. Points are the shared ledger's (`PointsLedger`).
struct PharmacyRepository: Sendable {
    // MARK: Customers

    struct StoredCredentials: Sendable {
        let id: Int64
        let passwordHash: String
        let isActive: Bool
    }

    func credentials(email: String, on db: any SQLDatabase) async throws -> StoredCredentials? {
        guard
            let row = try await db.select().columns("id", "password_hash", "status").from("pharmacy_customers")
                .where("email_key", .equal, PharmacyRules.emailKey(email)).first()
        else { return nil }
        return StoredCredentials(
            id: try row.decode(column: "id", as: Int64.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            isActive: try row.decode(column: "status", as: String.self) == PharmacyCustomer.Status.active.rawValue
        )
    }

    func passwordHash(customerID: Int64, on db: any SQLDatabase) async throws -> String? {
        try await db.select().column("password_hash").from("pharmacy_customers").where("id", .equal, customerID)
            .first()?.decode(column: "password_hash", as: String.self)
    }

    /// A new customer's id; nil when the address already has an account.
    func createCustomer(
        email: String,
        passwordHash: String,
        details: PharmacyCustomerDetails,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Int64? {
        let time = now.millisecondsSince1970
        let address = details.address
        let id = try await db.insert(into: "pharmacy_customers")
            .columns(
                "email",
                "email_key",
                "password_hash",
                "first_name",
                "last_name",
                "date_of_birth",
                "phone",
                "address_line1",
                "address_line2",
                "city",
                "state",
                "zip_code",
                "status",
                "created_at",
                "updated_at"
            )
            .values(
                SQLBind(email),
                SQLBind(PharmacyRules.emailKey(email)),
                SQLBind(passwordHash),
                SQLBind(details.firstName),
                SQLBind(details.lastName),
                SQLBind(details.dateOfBirth),
                SQLBind(details.phone),
                SQLBind(address.line1),
                SQLBind(address.line2),
                SQLBind(address.city),
                SQLBind(address.state),
                SQLBind(address.zipCode),
                SQLBind(PharmacyCustomer.Status.active.rawValue),
                SQLBind(time),
                SQLBind(time)
            )
            .ignoringConflicts(with: ["email_key"])
            .returning("id").first()?.decode(column: "id", as: Int64.self)
        if let id {
            try await setSearchWords(customerID: id, firstName: details.firstName, lastName: details.lastName, email: email, on: db)
        }
        return id
    }

    /// Writes her rows of word starts afresh (migration 49): the starts of her names' words and of her email
    /// address's words before the "@", each with her names as the list sorts them.
    func setSearchWords(customerID: Int64, firstName: String, lastName: String, email: String, on db: any SQLDatabase) async throws {
        let mailbox = email.split(separator: "@", maxSplits: 1).first.map(String.init) ?? ""
        try await db.replaceSearchRows(
            in: "pharmacy_customer_words",
            column: "word_start",
            values: WordStarts.starts(of: "\(firstName) \(lastName) \(mailbox)").sorted(),
            owner: "customer_id",
            id: customerID,
            copied: [("last_name", lastName), ("first_name", firstName)]
        )
    }

    private static let customerColumns = ColumnList([
        "id", "email", "first_name", "last_name", "date_of_birth", "phone", "address_line1", "address_line2", "city", "state", "zip_code",
        "status", "created_at", "last_active_at"
    ])

    private func decodeCustomer(_ row: any SQLRow) throws -> PharmacyCustomer {
        PharmacyCustomer(
            id: try row.decode(column: "id", as: Int64.self),
            email: try row.decode(column: "email", as: String.self),
            details: PharmacyCustomerDetails(
                firstName: try row.decode(column: "first_name", as: String.self),
                lastName: try row.decode(column: "last_name", as: String.self),
                dateOfBirth: try row.decode(column: "date_of_birth", as: String.self),
                phone: try row.decode(column: "phone", as: String.self),
                address: DeliveryAddress(
                    line1: try row.decode(column: "address_line1", as: String.self),
                    line2: try row.decode(column: "address_line2", as: String.self),
                    city: try row.decode(column: "city", as: String.self),
                    state: try row.decode(column: "state", as: String.self),
                    zipCode: try row.decode(column: "zip_code", as: String.self)
                )
            ),
            status: PharmacyCustomer.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .disabled,
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            lastActiveAt: try row.decode(column: "last_active_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    func customer(id: Int64, on db: any SQLDatabase) async throws -> PharmacyCustomer? {
        try await db.select().column(Self.customerColumns).from("pharmacy_customers").where("id", .equal, id).first().map(decodeCustomer)
    }

    /// Her account and her points balance, in one statement.
    func customerWithPoints(id: Int64, on db: any SQLDatabase) async throws -> (customer: PharmacyCustomer, points: Int)? {
        guard
            let row = try await db.select().column(Self.customerColumns)
                .column(SQLAlias(PointsLedger().allTimeBalanceExpression(of: .pharmacyCustomer(id)), as: SQLIdentifier("points")))
                .from("pharmacy_customers").where("id", .equal, id).first()
        else { return nil }
        return (try decodeCustomer(row), try row.decode(column: "points", as: Int.self))
    }

    func customer(email: String, on db: any SQLDatabase) async throws -> PharmacyCustomer? {
        try await db.select().column(Self.customerColumns).from("pharmacy_customers")
            .where("email_key", .equal, PharmacyRules.emailKey(email)).first().map(decodeCustomer)
    }

    /// Customers by name or email address (every word typed the start of a word of her first or last name or
    /// of her address before the "@"), by email address (typed with its "@", the start of it) or by date of
    /// birth, by last name. A search by words reads its page from the index of word starts in the list's order.
    func findCustomers(_ search: String, page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<PharmacyCustomer> {
        let typed = search.trimmed.lowercased()
        let words = WordStarts.words(of: typed)
        let byWords = !typed.isEmpty && CalendarDate(iso: typed) == nil && !typed.contains("@")
        /// The customers whose words start with every word typed, under the names `pharmacy_customers` gives the same values.
        func matching(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            builder.fromWordStarts(words, table: "pharmacy_customer_words", owner: "customer_id", copied: ["last_name", "first_name"])
        }
        return try await db.seek(
            page,
            order: ListOrder("name", keys: [.text("last_name"), .text("first_name"), .integer("id")], descending: false),
            columns: [Self.customerColumns],
            rows: { builder in
                builder.from("pharmacy_customers")
                if typed.isEmpty || byWords { return builder }
                if CalendarDate(iso: typed) != nil { return builder.where("date_of_birth", .equal, typed) }
                return builder.where(startsWith(SQLColumn("email_key"), typed))
            },
            counted: byWords ? matching : nil,
            idsFirst: byWords ? matching : nil,
            decode: decodeCustomer
        )
    }

    /// Saves her details; false when the email address belongs to another account.
    func updateCustomer(id: Int64, email: String, details: PharmacyCustomerDetails, now: Date, on db: any SQLDatabase) async throws -> Bool {
        if let other = try await credentials(email: email, on: db), other.id != id { return false }
        let address = details.address
        try await db.update("pharmacy_customers")
            .set("email", to: email).set("email_key", to: PharmacyRules.emailKey(email))
            .set("first_name", to: details.firstName).set("last_name", to: details.lastName).set("date_of_birth", to: details.dateOfBirth)
            .set("phone", to: details.phone).set("address_line1", to: address.line1).set("address_line2", to: address.line2)
            .set("city", to: address.city).set("state", to: address.state).set("zip_code", to: address.zipCode)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
        try await setSearchWords(customerID: id, firstName: details.firstName, lastName: details.lastName, email: email, on: db)
        return true
    }

    func updateAddress(customerID: Int64, _ address: DeliveryAddress, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("pharmacy_customers")
            .set("address_line1", to: address.line1).set("address_line2", to: address.line2).set("city", to: address.city)
            .set("state", to: address.state).set("zip_code", to: address.zipCode).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, customerID).run()
    }

    func setStatus(customerID: Int64, _ status: PharmacyCustomer.Status, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("pharmacy_customers").set("status", to: status.rawValue).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, customerID).run()
    }

    func setPassword(customerID: Int64, hash: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("pharmacy_customers").set("password_hash", to: hash).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, customerID).run()
        // A new password ends every session.
        try await db.delete(from: "pharmacy_customer_tokens").where("customer_id", .equal, customerID).run()
    }

    func markActivity(customerID: Int64, at now: Date, on db: any SQLDatabase) async throws {
        try await db.update("pharmacy_customers").set("last_active_at", to: now.millisecondsSince1970).where("id", .equal, customerID).run()
    }

    func customerCount(on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "pharmacy_customers")
    }

    /// Her forgotten-password links.
    static let resetLinks = PasswordResetLinks(table: "pharmacy_password_resets", owner: "customer_id")

    // MARK: Step-up

    /// Notes her password typed again on this token, good until `until`.
    func grantStepUp(tokenHash: String, until: Date, on db: any SQLDatabase) async throws {
        try await db.update("pharmacy_customer_tokens").set("step_up_until", to: until.millisecondsSince1970)
            .where("token_hash", .equal, tokenHash).run()
    }

    // MARK: Prescriptions

    private func decodePrescription(_ row: any SQLRow) throws -> PharmacyPrescription {
        PharmacyPrescription(
            id: try row.decode(column: "id", as: Int64.self),
            customerID: try row.decode(column: "customer_id", as: Int64.self),
            medication: try row.decode(column: "medication", as: String.self),
            strength: try row.decode(column: "strength", as: String.self),
            quantity: try row.decode(column: "quantity", as: String.self),
            refillsRemaining: try row.decode(column: "refills_remaining", as: Int.self),
            prescriber: try row.decode(column: "prescriber", as: String.self),
            lastFilled: try row.decode(column: "last_filled", as: String?.self)
        )
    }

    private static let prescriptionColumns = ColumnList([
        "id", "customer_id", "medication", "strength", "quantity", "refills_remaining", "prescriber", "last_filled"
    ])

    func addPrescription(_ prescription: PharmacyPrescription, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        let time = now.millisecondsSince1970
        return try await db.insert(into: "pharmacy_prescriptions")
            .columns(
                "customer_id",
                "medication",
                "strength",
                "quantity",
                "refills_remaining",
                "prescriber",
                "last_filled",
                "created_at",
                "updated_at"
            )
            .values(
                SQLBind(prescription.customerID),
                SQLBind(prescription.medication),
                SQLBind(prescription.strength),
                SQLBind(prescription.quantity),
                SQLBind(prescription.refillsRemaining),
                SQLBind(prescription.prescriber),
                SQLBind(prescription.lastFilled),
                SQLBind(time),
                SQLBind(time)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
    }

    /// Her prescriptions on file (not removed), by medication.
    func prescriptions(customerID: Int64, on db: any SQLDatabase) async throws -> [PharmacyPrescription] {
        try await db.select().column(Self.prescriptionColumns).from("pharmacy_prescriptions")
            .where("customer_id", .equal, customerID).where("removed_at", .is, SQLLiteral.null)
            .orderBy("medication").orderBy("id").all().map(decodePrescription)
    }

    /// A prescription on file; with `customerID`, only if it is hers.
    func prescription(id: Int64, customerID: Int64? = nil, on db: any SQLDatabase) async throws -> PharmacyPrescription? {
        let query = db.select().column(Self.prescriptionColumns).from("pharmacy_prescriptions")
            .where("id", .equal, id).where("removed_at", .is, SQLLiteral.null)
        if let customerID { query.where("customer_id", .equal, customerID) }
        return try await query.first().map(decodePrescription)
    }

    func removePrescription(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("pharmacy_prescriptions").set("removed_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("removed_at", .is, SQLLiteral.null).returning("id").first() != nil
    }

    /// One refill used: counted down and dated, only while one remains.
    func fillPrescription(id: Int64, on day: CalendarDate, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.raw(
            """
            UPDATE pharmacy_prescriptions SET refills_remaining = refills_remaining - 1, last_filled = \(bind: day.iso),
            updated_at = \(bind: now.millisecondsSince1970) WHERE id = \(bind: id) AND refills_remaining > 0 RETURNING id
            """
        ).first() != nil
    }

    // MARK: Refills

    private static let refillColumns = ColumnList([
        "id", "customer_id", "prescription_id", "fulfilment", "delivery_address", "status", "cancel_reason", "requested_at", "updated_at"
    ])
    /// A request's columns, her name and the medication (`refillItems`).
    private static let refillItemColumns = ColumnList(joining: [
        ColumnList(refillColumns.names, table: "r"), ColumnList(["first_name", "last_name"], table: "c"),
        ColumnList(["medication", "strength"], table: "p")
    ])

    private func decodeRefill(_ row: any SQLRow) throws -> PharmacyRefill {
        PharmacyRefill(
            id: try row.decode(column: "id", as: Int64.self),
            customerID: try row.decode(column: "customer_id", as: Int64.self),
            prescriptionID: try row.decode(column: "prescription_id", as: Int64.self),
            fulfilment: Fulfilment(rawValue: try row.decode(column: "fulfilment", as: String.self)) ?? .pickup,
            deliveryAddress: try row.decode(column: "delivery_address", as: String?.self),
            status: RefillStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .cancelled,
            cancelReason: try row.decode(column: "cancel_reason", as: String?.self),
            requestedAt: Date(millisecondsSince1970: try row.decode(column: "requested_at", as: Int64.self)),
            updatedAt: Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self))
        )
    }

    func addRefill(
        customerID: Int64,
        prescriptionID: Int64,
        fulfilment: Fulfilment,
        deliveryAddress: String?,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> PharmacyRefill {
        let time = now.millisecondsSince1970
        let id = try await db.insert(into: "pharmacy_refills")
            .columns("customer_id", "prescription_id", "fulfilment", "delivery_address", "status", "requested_at", "updated_at")
            .values(
                SQLBind(customerID),
                SQLBind(prescriptionID),
                SQLBind(fulfilment.rawValue),
                SQLBind(deliveryAddress),
                SQLBind(RefillStatus.requested.rawValue),
                SQLBind(time),
                SQLBind(time)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
        return PharmacyRefill(
            id: id,
            customerID: customerID,
            prescriptionID: prescriptionID,
            fulfilment: fulfilment,
            deliveryAddress: deliveryAddress,
            status: .requested,
            cancelReason: nil,
            requestedAt: now,
            updatedAt: now
        )
    }

    /// An open request for this prescription, if she has one.
    func openRefill(prescriptionID: Int64, on db: any SQLDatabase) async throws -> Int64? {
        try await db.select().column("id").from("pharmacy_refills").where("prescription_id", .equal, prescriptionID)
            .where("status", .in, RefillStatus.open.map(\.rawValue)).first()?.decode(column: "id", as: Int64.self)
    }

    func refill(id: Int64, customerID: Int64? = nil, on db: any SQLDatabase) async throws -> PharmacyRefill? {
        let query = db.select().column(Self.refillColumns).from("pharmacy_refills").where("id", .equal, id)
        if let customerID { query.where("customer_id", .equal, customerID) }
        return try await query.first().map(decodeRefill)
    }

    /// Moves a refill on only from the status it was read in, so two people working it at once cannot both move it.
    func moveRefill(id: Int64, from: RefillStatus, to: RefillStatus, reason: String?, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("pharmacy_refills").set("status", to: to.rawValue).set("cancel_reason", to: reason)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("status", .equal, from.rawValue).returning("id").first() != nil
    }

    /// Requests with their customer's name and medication.
    private func refillItems(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
        builder
            .column(Self.refillItemColumns)
            .from(SQLAlias(SQLIdentifier("pharmacy_refills"), as: SQLIdentifier("r")))
            .join(
                SQLAlias(SQLIdentifier("pharmacy_customers"), as: SQLIdentifier("c")),
                method: SQLJoinMethod.inner,
                on: SQLColumn("customer_id", table: "r"),
                .equal,
                SQLColumn("id", table: "c")
            )
            .join(
                SQLAlias(SQLIdentifier("pharmacy_prescriptions"), as: SQLIdentifier("p")),
                method: SQLJoinMethod.inner,
                on: SQLColumn("prescription_id", table: "r"),
                .equal,
                SQLColumn("id", table: "p")
            )
    }

    private func decodeItem(_ row: any SQLRow) throws -> RefillQueueItem {
        RefillQueueItem(
            refill: try decodeRefill(row),
            customerName: "\(try row.decode(column: "first_name", as: String.self)) \(try row.decode(column: "last_name", as: String.self))",
            medication: try row.decode(column: "medication", as: String.self),
            strength: try row.decode(column: "strength", as: String.self)
        )
    }

    /// The queue: oldest first, in the chosen statuses and kind. The page's requests are found on the
    /// queue's index alone and only they are joined to their customers and prescriptions ("ids first"):
    /// joined plainly, both engines joined every open request before sorting them, since several
    /// statuses cannot be read in one order from the index (docs/performance-history.md, "Pharmacy").
    func refillQueue(
        statuses: [RefillStatus],
        fulfilment: Fulfilment?,
        page: PageRequest,
        on db: any SQLDatabase
    ) async throws -> PageOf<RefillQueueItem> {
        func requests(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            builder.from(SQLAlias(SQLIdentifier("pharmacy_refills"), as: SQLIdentifier("r")))
            return filter(builder)
        }
        // The statuses and the kind are written into the statement as literals, not bound: they come
        // from closed sets (never the user's text), so each combination is a statement of its own,
        // planned once on each connection. Bound, PostgreSQL planned the statement again on every
        // request (for a list of statuses its generic plan looks dearer than a custom one), which was
        // half of the database's time on the queue page.
        func filter(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            builder.where(SQLColumn("status", table: "r"), .in, SQLGroupExpression(statuses.map { valueFromClosedSet($0.rawValue) }))
            if let fulfilment { builder.where(SQLColumn("fulfilment", table: "r"), .equal, valueFromClosedSet(fulfilment.rawValue)) }
            return builder
        }
        // Counted in the queue index's order, so that the count reads the index alone whatever plan the
        // engine makes: when the statuses were bound, PostgreSQL's generic plan expected two thirds of all
        // requests and, below the count's limit, chose a sequential scan of every request (30 ms where the
        // index takes 0.1 ms).
        func counted(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            requests(builder).orderBy(SQLColumn("status", table: "r")).orderBy(SQLColumn("requested_at", table: "r")).orderBy(
                SQLColumn("id", table: "r")
            )
        }
        return try await db.seek(
            page,
            order: ListOrder("requested", keys: [.integer("requested_at", table: "r"), .integer("id", table: "r")], descending: false),
            columns: [],
            rows: { filter(refillItems($0)) },
            counted: counted,
            idsFirst: requests,
            decode: decodeItem
        )
    }

    func refillItem(id: Int64, on db: any SQLDatabase) async throws -> RefillQueueItem? {
        try await refillItems(db.select()).where(SQLColumn("id", table: "r"), .equal, SQLBind(id)).first().map(decodeItem)
    }

    /// Her requests, newest first.
    func refills(customerID: Int64, limit: Int, on db: any SQLDatabase) async throws -> [RefillQueueItem] {
        try await refillItems(db.select()).where(SQLColumn("customer_id", table: "r"), .equal, SQLBind(customerID))
            .orderBy(SQLColumn("id", table: "r"), SQLDirection.descending).limit(limit).all().map(decodeItem)
    }

    /// Requests waiting on the pharmacy: requested or being prepared.
    func waitingCount(on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "pharmacy_refills") { $0.where("status", .in, [RefillStatus.requested.rawValue, RefillStatus.preparing.rawValue]) }
    }

    // MARK: Visits

    /// Records her first visit of `day`; false when she already visited that day.
    func recordVisit(customerID: Int64, day: CalendarDate, beaconID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.insert(into: "pharmacy_visits").columns("customer_id", "day", "beacon_id", "visited_at")
            .values(SQLBind(customerID), SQLBind(day.iso), SQLBind(beaconID), SQLBind(now.millisecondsSince1970))
            .ignoringConflicts(with: ["customer_id", "day"])
            .returning("day").first() != nil
    }

    /// The days she visited, newest first, and how many there were.
    func visits(customerID: Int64, limit: Int, on db: any SQLDatabase) async throws -> (days: [String], count: Int) {
        guard limit > 0 else { return ([], try await db.count(in: "pharmacy_visits") { $0.where("customer_id", .equal, customerID) }) }
        // One statement: each row carries the count of all of hers; no row means no visits.
        let rows = try await db.select().column("day").column(SQLAlias(SQLRaw("COUNT(*) OVER ()"), as: SQLIdentifier("total")))
            .from("pharmacy_visits").where("customer_id", .equal, customerID)
            .orderBy("day", .descending).limit(limit).all()
        return (try rows.map { try $0.decode(column: "day", as: String.self) }, try rows.first?.decode(column: "total", as: Int.self) ?? 0)
    }

    // MARK: Deals

    private func decodeDeal(_ row: any SQLRow) throws -> PharmacyDeal {
        PharmacyDeal(
            id: try row.decode(column: "id", as: Int64.self),
            title: try row.decode(column: "title", as: String.self),
            description: try row.decode(column: "description", as: String.self),
            validFrom: try row.decode(column: "valid_from", as: String.self),
            validUntil: try row.decode(column: "valid_until", as: String.self),
            picture: try row.decode(column: "picture_file", as: String?.self).flatMap { file in
                try row.decode(column: "picture_type", as: String?.self).flatMap(UploadType.init(rawValue:)).map {
                    StoredUpload(fileName: file, type: $0)
                }
            }
        )
    }

    private static let dealColumns = ColumnList(["id", "title", "description", "valid_from", "valid_until", "picture_file", "picture_type"])

    /// Deals running on `day`, those ending soonest first.
    func currentDeals(on day: CalendarDate, on db: any SQLDatabase) async throws -> [PharmacyDeal] {
        try await db.select().column(Self.dealColumns).from("pharmacy_deals")
            .where("valid_from", .lessThanOrEqual, day.iso).where("valid_until", .greaterThanOrEqual, day.iso)
            .orderBy("valid_until").orderBy("id").all().map(decodeDeal)
    }

    /// Every deal not yet over, and the last 20 that are, by when they start.
    func deals(today: CalendarDate, on db: any SQLDatabase) async throws -> (running: [PharmacyDeal], past: [PharmacyDeal]) {
        let running = try await db.select().column(Self.dealColumns).from("pharmacy_deals")
            .where("valid_until", .greaterThanOrEqual, today.iso).orderBy("valid_from").orderBy("id").all().map(decodeDeal)
        let past = try await db.select().column(Self.dealColumns).from("pharmacy_deals")
            .where("valid_until", .lessThan, today.iso).orderBy("valid_until", .descending).limit(20).all().map(decodeDeal)
        return (running, past)
    }

    func deal(id: Int64, on db: any SQLDatabase) async throws -> PharmacyDeal? {
        try await db.select().column(Self.dealColumns).from("pharmacy_deals").where("id", .equal, id).first().map(decodeDeal)
    }

    func addDeal(_ deal: PharmacyDeal, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        let time = now.millisecondsSince1970
        return try await db.insert(into: "pharmacy_deals")
            .columns("title", "description", "valid_from", "valid_until", "picture_file", "picture_type", "created_at", "updated_at")
            .values(
                SQLBind(deal.title),
                SQLBind(deal.description),
                SQLBind(deal.validFrom),
                SQLBind(deal.validUntil),
                SQLBind(deal.picture?.fileName),
                SQLBind(deal.picture?.type.rawValue),
                SQLBind(time),
                SQLBind(time)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
    }

    func updateDeal(_ deal: PharmacyDeal, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("pharmacy_deals").set("title", to: deal.title).set("description", to: deal.description)
            .set("valid_from", to: deal.validFrom).set("valid_until", to: deal.validUntil).set("updated_at", to: now.millisecondsSince1970)
            .set("picture_file", to: SQLBind(deal.picture?.fileName)).set("picture_type", to: SQLBind(deal.picture?.type.rawValue))
            .where("id", .equal, deal.id).returning("id").first() != nil
    }

    func deleteDeal(id: Int64, on db: any SQLDatabase) async throws -> Bool {
        try await db.delete(from: "pharmacy_deals").where("id", .equal, id).returning("id").first() != nil
    }

    // MARK: Rewards and vouchers

    /// The pharmacy's catalogue and vouchers, kept by the shared rewards part.
    private var kept: RewardsRepository { RewardsRepository(program: Program.pharmacy.id) }

    /// The catalogue: offered rewards by cost (and, with `includingRetired`, the retired ones after them).
    func rewards(includingRetired: Bool, on db: any SQLDatabase) async throws -> [PharmacyReward] {
        try await kept.rewards(includingRetired: includingRetired, on: db)
    }

    func reward(id: Int64, on db: any SQLDatabase) async throws -> PharmacyReward? {
        try await kept.reward(id: id, on: db)
    }

    func addReward(title: String, pointsCost: Int, cashierGives: String, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        try await kept.addReward(
            RewardDraft(title: title, pointsCost: pointsCost, gives: cashierGives, description: "", handedOver: .voucher, stock: nil),
            now: now,
            on: db
        )
    }

    func retireReward(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await kept.retireReward(id: id, now: now, on: db)
    }

    /// A new voucher; nil, with nothing written, when another voucher already has this code.
    func addVoucher(customerID: Int64, reward: PharmacyReward, code: String, now: Date, on db: any SQLDatabase) async throws -> PharmacyVoucher? {
        try await kept.addRedemption(by: .pharmacyCustomer(customerID), of: reward, code: code, now: now, on: db)
    }

    func voucher(id: Int64, customerID: Int64, on db: any SQLDatabase) async throws -> PharmacyVoucher? {
        try await kept.redemption(id: id, of: .pharmacyCustomer(customerID), on: db)
    }

    func voucher(code: String, on db: any SQLDatabase) async throws -> PharmacyVoucher? {
        try await kept.redemption(code: code, on: db)
    }

    /// Her vouchers, newest first.
    func vouchers(customerID: Int64, limit: Int, on db: any SQLDatabase) async throws -> [PharmacyVoucher] {
        try await kept.redemptions(of: .pharmacyCustomer(customerID), limit: limit, on: db)
    }

    /// Starts her voucher's minutes, once: the voucher as it now is, or nil when it is not hers or was
    /// already activated or used.
    func activateVoucher(id: Int64, customerID: Int64, now: Date, on db: any SQLDatabase) async throws -> PharmacyVoucher? {
        try await kept.activate(id: id, of: .pharmacyCustomer(customerID), lifetime: PharmacyRules.voucherLifetime, now: now, on: db)
    }

    /// Marks an active voucher used, once; false when it is not active (any more).
    func useVoucher(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await kept.use(id: id, now: now, on: db)
    }

    // MARK: Beacons

    private func decodeBeacon(_ row: any SQLRow) throws -> PharmacyBeacon {
        PharmacyBeacon(
            id: try row.decode(column: "id", as: Int64.self),
            uuid: try row.decode(column: "uuid", as: String.self),
            major: try row.decode(column: "major", as: Int.self),
            minor: try row.decode(column: "minor", as: Int.self),
            name: try row.decode(column: "name", as: String.self)
        )
    }

    /// One line of her history as stored: what kind, when, and what the kind needs.
    struct HistoryRow: Sendable, Equatable {
        /// `visit`, `voucher`, `refill` or `points`.
        let kind: String
        let at: Date
        /// A visit's day, a voucher's reward, a refill's fulfilment, a points line's reason.
        let text: String?
        /// A voucher's or a refill's id.
        let itemID: Int64?
        /// Points earned (a visit, a points line) or spent (a voucher, negative).
        let points: Int?
        /// A refill's status.
        let status: String?
    }

    /// Her visits (with the points each earned), vouchers (with what they cost), refills and any other points
    /// lines, newest first, as one list paged by number: a customer's history is hundreds of lines, not millions.
    func history(customerID: Int64, page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<HistoryRow> {
        let role = AppAccountKind.pharmacyCustomer.role
        let lines: SQLQueryString = """
            SELECT 'visit' AS kind, v.visited_at AS at, v.day AS text, CAST(NULL AS BIGINT) AS item_id,
                CAST((SELECT COALESCE(SUM(l.amount), 0) FROM points_ledger l WHERE l.account_role = \(bind: role) AND l.account_id = v.customer_id
                    AND l.reason = \(bind: Pharmacy.visitReason) AND l.reference = v.day) AS BIGINT) AS points, CAST(NULL AS TEXT) AS status
            FROM pharmacy_visits v WHERE v.customer_id = \(bind: customerID)
            UNION ALL
            SELECT 'voucher', o.redeemed_at, r.title, o.id, -o.points_cost, CAST(NULL AS TEXT)
            FROM redemptions o JOIN rewards r ON r.id = o.reward_id WHERE o.account_role = \(bind: role) AND o.account_id = \(bind: customerID)
            UNION ALL
            SELECT 'refill', f.requested_at, f.fulfilment, f.id, CAST(NULL AS BIGINT), f.status FROM pharmacy_refills f WHERE f.customer_id = \(bind: customerID)
            UNION ALL
            SELECT 'points', p.earned_at, p.reason, CAST(NULL AS BIGINT), p.amount, CAST(NULL AS TEXT) FROM points_ledger p
            WHERE p.account_role = \(bind: role) AND p.account_id = \(bind: customerID)
                AND p.reason NOT IN (\(bind: Pharmacy.visitReason), \(bind: RewardRules.spendReason))
            """
        let total = try await db.raw("SELECT COUNT(*) AS n FROM (\(lines)) h").first()?.decode(column: "n", as: Int.self) ?? 0
        let rows = try await db.raw(
            """
            SELECT kind, at, text, item_id, points, status FROM (\(lines)) h
            ORDER BY at DESC, kind, item_id DESC LIMIT \(unsafeRaw: String(page.size)) OFFSET \(unsafeRaw: String((page.number - 1) * page.size))
            """
        ).all()
        return PageOf(
            items: try rows.map { row in
                HistoryRow(
                    kind: try row.decode(column: "kind", as: String.self),
                    at: Date(millisecondsSince1970: try row.decode(column: "at", as: Int64.self)),
                    text: try row.decode(column: "text", as: String?.self),
                    itemID: try row.decode(column: "item_id", as: Int64?.self),
                    points: try row.decode(column: "points", as: Int?.self),
                    status: try row.decode(column: "status", as: String?.self)
                )
            },
            totalCount: total,
            request: page
        )
    }

    /// Every active customer's id, for a feed entry written to them all.
    var activeCustomerIDs: SQLQueryString {
        "SELECT c.id FROM pharmacy_customers c WHERE c.status = \(bind: PharmacyCustomer.Status.active.rawValue)"
    }

    func beacons(on db: any SQLDatabase) async throws -> [PharmacyBeacon] {
        try await db.select().columns("id", "uuid", "major", "minor", "name").from("pharmacy_beacons").orderBy("name").orderBy("id").all().map(
            decodeBeacon
        )
    }

    func beacon(uuid: String, major: Int, minor: Int, on db: any SQLDatabase) async throws -> PharmacyBeacon? {
        try await db.select().columns("id", "uuid", "major", "minor", "name").from("pharmacy_beacons")
            .where("uuid", .equal, uuid.lowercased()).where("major", .equal, major).where("minor", .equal, minor).first().map(decodeBeacon)
    }

    /// A new beacon's id; nil when one with the same UUID, major and minor is registered.
    func addBeacon(uuid: String, major: Int, minor: Int, name: String, now: Date, on db: any SQLDatabase) async throws -> Int64? {
        try await db.insert(into: "pharmacy_beacons").columns("uuid", "major", "minor", "name", "created_at")
            .values(SQLBind(uuid.lowercased()), SQLBind(major), SQLBind(minor), SQLBind(name), SQLBind(now.millisecondsSince1970))
            .ignoringConflicts(with: ["uuid", "major", "minor"])
            .returning("id").first()?.decode(column: "id", as: Int64.self)
    }

    func removeBeacon(id: Int64, on db: any SQLDatabase) async throws -> String? {
        try await db.delete(from: "pharmacy_beacons").where("id", .equal, id).returning("name").first()?.decode(column: "name", as: String.self)
    }
}
