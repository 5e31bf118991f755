import Foundation
import PortalPlatform
import SQLKit

/// The columns the patient list sorts by (seed 3.15.1.1).
public enum PatientSort: String, Sendable, CaseIterable {
    case lastName = "last-name"
    case medicalNumber = "medical-number"

    var column: String {
        switch self {
        case .lastName: "name_key"
        case .medicalNumber: "medical_number_key"
        }
    }
}

public struct PatientListQuery: Sendable, Equatable {
    /// A physician's own patients; nil for an administrator's view of everyone's.
    public var physicianID: Int64?
    /// A name (first, middle or last) or a medical number, anywhere in it.
    public var search = ""
    public var sort = PatientSort.lastName
    public var descending = false
    public var page = PageRequest(number: 1)
}

/// The physician already has a patient with this medical number.
struct MedicalNumberTaken: Error {}

/// The only place patients' SQL lives.
struct PatientRepository: Sendable {
    func create(_ contact: PatientContact, physicianID: Int64, now: Date, on db: any SQLDatabase) async throws -> Patient {
        try await requireFreeNumber(contact.medicalNumber, physicianID: physicianID, except: nil, on: db)
        let time = now.millisecondsSince1970
        let row = try await db.insert(into: "patients")
            .columns(
                "physician_id",
                "first_name",
                "middle_name",
                "last_name",
                "name_key",
                "medical_number",
                "medical_number_key",
                "email",
                "phone",
                "address",
                "created_at",
                "updated_at"
            )
            .values(
                SQLBind(physicianID),
                SQLBind(contact.firstName),
                SQLBind(contact.middleName),
                SQLBind(contact.lastName),
                SQLBind(PatientRules.nameKey(lastName: contact.lastName, firstName: contact.firstName)),
                SQLBind(contact.medicalNumber),
                SQLBind(PatientRules.medicalNumberKey(contact.medicalNumber)),
                SQLBind(contact.email),
                SQLBind(contact.phone),
                SQLBind(contact.address),
                SQLBind(time),
                SQLBind(time)
            )
            .returning("id")
            .first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw StorageInconsistency(description: "insert into patients returned no id")
        }
        return Patient(id: id, physicianID: physicianID, contact: contact, createdAt: now, updatedAt: now, lastActivityAt: nil, adherenceVersion: 0)
    }

    func find(id: Int64, on db: any SQLDatabase) async throws -> Patient? {
        try await db.select().columns(Self.columns).from("patients").where("id", .equal, id).first().map(decode)
    }

    func updateContact(id: Int64, _ contact: PatientContact, physicianID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await requireFreeNumber(contact.medicalNumber, physicianID: physicianID, except: id, on: db)
        try await db.update("patients")
            .set("first_name", to: contact.firstName).set("middle_name", to: contact.middleName).set("last_name", to: contact.lastName)
            .set("name_key", to: PatientRules.nameKey(lastName: contact.lastName, firstName: contact.firstName))
            .set("medical_number", to: contact.medicalNumber)
            .set("medical_number_key", to: PatientRules.medicalNumberKey(contact.medicalNumber))
            .set("email", to: contact.email).set("phone", to: contact.phone).set("address", to: contact.address)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    /// Moves a patient to another physician; false when that physician already has her medical number.
    func reassign(id: Int64, to physicianID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        guard let patient = try await find(id: id, on: db) else { return false }
        do {
            try await requireFreeNumber(patient.contact.medicalNumber, physicianID: physicianID, except: id, on: db)
        } catch is MedicalNumberTaken {
            return false
        }
        try await db.update("patients").set("physician_id", to: physicianID).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
        return true
    }

    /// Deletes the patient and, with her, her app account, tokens, prescriptions and logs.
    func delete(id: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "patients").where("id", .equal, id).run()
    }

    func markActivity(id: Int64, at now: Date, on db: any SQLDatabase) async throws {
        try await db.update("patients").set("last_activity_at", to: now.millisecondsSince1970).where("id", .equal, id).run()
    }

    func list(_ query: PatientListQuery, on db: any SQLDatabase) async throws -> PageOf<Patient> {
        try await db.seek(
            query.page,
            order: ListOrder(query.sort.rawValue, keys: [.text(query.sort.column), .integer("id")], descending: query.descending),
            columns: (Self.columns + [query.sort.column]).map { SQLColumn($0) },
            rows: { filter($0.from("patients"), query) },
            decode: decode
        )
    }

    func count(physicianID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "patients") { $0.where("physician_id", .equal, physicianID) }
    }

    private func filter(_ builder: SQLSelectBuilder, _ query: PatientListQuery) -> SQLSelectBuilder {
        if let physicianID = query.physicianID { builder.where("physician_id", .equal, physicianID) }
        let search = query.search.trimmed
        if !search.isEmpty {
            let number = PatientRules.medicalNumberKey(search)
            var conditions: [any SQLExpression] = [
                // name_key is lower-cased in Swift, so the search finds "Ødegård" on SQLite too, whose LOWER is ASCII only.
                lowercased("name_key", contains: search.precomposedStringWithCanonicalMapping),
                lowercased("middle_name", contains: search.precomposedStringWithCanonicalMapping)
            ]
            if !number.isEmpty {
                conditions.append(SQLQueryString("medical_number_key LIKE \(bind: "%" + number.likeEscaped + "%") ESCAPE '\\'"))
            }
            builder.where(SQLGroupExpression(conditions.dropFirst().reduce(conditions[0]) { SQLBinaryExpression($0, .or, $1) }))
        }
        return builder
    }

    private func requireFreeNumber(_ number: String, physicianID: Int64, except id: Int64?, on db: any SQLDatabase) async throws {
        let query = db.select().column("id").from("patients")
            .where("physician_id", .equal, physicianID)
            .where("medical_number_key", .equal, PatientRules.medicalNumberKey(number))
        if let id { query.where("id", .notEqual, id) }
        if try await query.first() != nil { throw MedicalNumberTaken() }
    }

    private static let columns = [
        "id", "physician_id", "first_name", "middle_name", "last_name", "medical_number", "email", "phone", "address",
        "created_at", "updated_at", "last_activity_at", "adherence_version"
    ]

    private func decode(_ row: any SQLRow) throws -> Patient {
        Patient(
            id: try row.decode(column: "id", as: Int64.self),
            physicianID: try row.decode(column: "physician_id", as: Int64.self),
            contact: PatientContact(
                firstName: try row.decode(column: "first_name", as: String.self),
                middleName: try row.decode(column: "middle_name", as: String.self),
                lastName: try row.decode(column: "last_name", as: String.self),
                medicalNumber: try row.decode(column: "medical_number", as: String.self),
                email: try row.decode(column: "email", as: String.self),
                phone: try row.decode(column: "phone", as: String.self),
                address: try row.decode(column: "address", as: String.self)
            ),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self)),
            lastActivityAt: try row.decode(column: "last_activity_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            adherenceVersion: try row.decode(column: "adherence_version", as: Int64.self)
        )
    }

    // MARK: Physicians

    /// Active physicians with the names they registered under, for choosing who looks after a patient.
    func physicians(on db: any SQLDatabase) async throws -> [(id: Int64, name: String)] {
        try await db.raw(
            """
            SELECT a.id, a.username, p.first_name, p.middle_name, p.last_name
            FROM staff_accounts a LEFT JOIN physician_profiles p ON p.account_id = a.id
            WHERE a.role = \(bind: StaffRole.physician.rawValue) AND a.status = \(bind: AccountStatus.active.rawValue)
            ORDER BY a.username_key
            """
        ).all().map { row in
            let id = try row.decode(column: "id", as: Int64.self)
            return (id, try Self.physicianName(row))
        }
    }

    /// How each physician is named to patients and on lists: "Dr Dana Demo", or the username without a profile.
    func physicianNames(ids: [Int64], on db: any SQLDatabase) async throws -> [Int64: String] {
        guard !ids.isEmpty else { return [:] }
        var names: [Int64: String] = [:]
        for row in try await db.raw(
            """
            SELECT a.id, a.username, p.first_name, p.middle_name, p.last_name
            FROM staff_accounts a LEFT JOIN physician_profiles p ON p.account_id = a.id
            WHERE a.id IN (\(binds: Array(Set(ids))))
            """
        ).all() {
            names[try row.decode(column: "id", as: Int64.self)] = try Self.physicianName(row)
        }
        return names
    }

    private static func physicianName(_ row: any SQLRow) throws -> String {
        let parts = [
            try row.decode(column: "first_name", as: String?.self), try row.decode(column: "middle_name", as: String?.self),
            try row.decode(column: "last_name", as: String?.self)
        ].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? try row.decode(column: "username", as: String.self) : "Dr " + parts.joined(separator: " ")
    }
}

extension String {
    /// `%`, `_` and `\` taken literally in a `LIKE` pattern used with `ESCAPE '\'`.
    var likeEscaped: String {
        replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}
