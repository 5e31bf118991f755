import Foundation
import SQLKit

/// A member of staff who signs in to the portal.
public struct StaffAccount: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var username: String
    public var email: String?
    public var role: StaffRole
    public var status: AccountStatus
    public var createdAt: Date
    public var updatedAt: Date

    package init(id: Int64, username: String, email: String? = nil, role: StaffRole, status: AccountStatus, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.username = username
        self.email = email
        self.role = role
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What a physician tells us when registering (seed 002, section 3.13).
public struct PhysicianProfile: Sendable, Equatable {
    public var firstName: String
    public var middleName: String
    public var lastName: String
    public var practiceLocation: String
    /// The practice's phone as ten digits; empty for a physician who has not given it.
    public var practicePhone: String
    public var medicalIDNumber: String

    public var fullName: String {
        [firstName, middleName, lastName].filter { !$0.isEmpty }.joined(separator: " ")
    }

    package init(
        firstName: String,
        middleName: String,
        lastName: String,
        practiceLocation: String,
        practicePhone: String = "",
        medicalIDNumber: String
    ) {
        self.firstName = firstName
        self.middleName = middleName
        self.lastName = lastName
        self.practiceLocation = practiceLocation
        self.practicePhone = practicePhone
        self.medicalIDNumber = medicalIDNumber
    }
}

/// The columns the staff list can be sorted by.
public enum StaffSort: String, Sendable, CaseIterable {
    case username, role, status, created

    package var column: String {
        switch self {
        case .username: "username_key"
        case .role: "role"
        case .status: "status"
        case .created: "created_at"
        }
    }
}

public struct StaffListQuery: Sendable, Equatable {
    /// Finds usernames and email addresses starting with this text, in any case.
    public var search = ""
    public var role: StaffRole?
    public var status: AccountStatus?
    public var sort = StaffSort.username
    public var descending = false
    public var page = PageRequest(number: 1)

    public init() {}
}

/// Usernames compare without regard to case: `Dr.Smith` and `dr.smith` are one person.
package func usernameKey(_ username: String) -> String {
    username.precomposedStringWithCanonicalMapping.lowercased()
}

package struct UsernameTaken: Error { package init() {} }

/// A table with at most one row for each account, read beside the accounts of a list: its `columns`,
/// found by its `accountID` column.
package struct AccountDetails: Sendable {
    package let table: String
    package let accountID: String
    package let columns: [String]

    package init(table: String, accountID: String, columns: [String]) {
        self.table = table
        self.accountID = accountID
        self.columns = columns
    }
}

/// The only place staff accounts are read and written.
package struct StaffAccountRepository: Sendable {
    private static let columns = ["id", "username", "email", "role", "status", "created_at", "updated_at"]

    /// The account's columns of the table called `table` in a query, each named with `prefix`, for a
    /// query that reads an account together with something else (the session it is signed in with).
    package static func columnList(of table: String, prefix: String) -> String {
        columns.map { "\(table).\($0) AS \(prefix)\($0)" }.joined(separator: ", ")
    }

    /// An account read through `columnList(of:prefix:)`.
    ///
    /// Each column is decoded by its name: every staff request reads its account with its session, and
    /// `Decodable` with converted key names spent more than the rest of the decoding on turning each key
    /// into snake case, for every row.
    package func account(from row: any SQLRow, prefix: String? = nil) throws -> StaffAccount {
        let prefix = prefix ?? ""
        let id = try row.decode(column: prefix + "id", as: Int64.self)
        guard let role = StaffRole(rawValue: try row.decode(column: prefix + "role", as: String.self)),
            let status = AccountStatus(rawValue: try row.decode(column: prefix + "status", as: String.self))
        else {
            throw StorageInconsistency(description: "staff account \(id) has an unknown role or status")
        }
        return StaffAccount(
            id: id,
            username: try row.decode(column: prefix + "username", as: String.self),
            email: try row.decode(column: prefix + "email", as: String?.self),
            role: role,
            status: status,
            createdAt: Date(millisecondsSince1970: try row.decode(column: prefix + "created_at", as: Int64.self)),
            updatedAt: Date(millisecondsSince1970: try row.decode(column: prefix + "updated_at", as: Int64.self))
        )
    }

    package func hasAdministrator(on db: any SQLDatabase) async throws -> Bool {
        try await db.select().column("id").from("staff_accounts")
            .where("role", .equal, StaffRole.administrator.rawValue)
            .limit(1)
            .first() != nil
    }

    package func create(
        username: String,
        email: String?,
        role: StaffRole,
        status: AccountStatus,
        passwordHash: String,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> StaffAccount {
        let key = usernameKey(username)
        if try await db.select().column("id").from("staff_accounts").where("username_key", .equal, key).first() != nil {
            throw UsernameTaken()
        }
        let time = now.millisecondsSince1970
        let row = try await db.insert(into: "staff_accounts")
            .columns("username", "username_key", "email", "role", "status", "password_hash", "created_at", "updated_at")
            .values(
                SQLBind(username),
                SQLBind(key),
                SQLBind(email),
                SQLBind(role.rawValue),
                SQLBind(status.rawValue),
                SQLBind(passwordHash),
                SQLBind(time),
                SQLBind(time)
            )
            .returning("id")
            .first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw StorageInconsistency(description: "insert into staff_accounts returned no id")
        }
        return StaffAccount(id: id, username: username, email: email, role: role, status: status, createdAt: now, updatedAt: now)
    }

    package func find(id: Int64, on db: any SQLDatabase) async throws -> StaffAccount? {
        try await db.select().columns(Self.columns).from("staff_accounts").where("id", .equal, id)
            .where("deleted_at", .is, SQLLiteral.null)
            .first().map { try account(from: $0) }
    }

    package func find(username: String, on db: any SQLDatabase) async throws -> StaffAccount? {
        try await db.select().columns(Self.columns).from("staff_accounts").where("username_key", .equal, usernameKey(username)).first().map {
            try account(from: $0)
        }
    }

    /// The account and its password hash, for checking a sign-in.
    package func credentials(username: String, on db: any SQLDatabase) async throws -> (account: StaffAccount, passwordHash: String)? {
        guard
            let row = try await db.select().columns(Self.columns + ["password_hash"]).from("staff_accounts")
                .where("username_key", .equal, usernameKey(username))
                .where("deleted_at", .is, SQLLiteral.null)
                .first()
        else { return nil }
        return (try account(from: row), try row.decode(column: "password_hash", as: String.self))
    }

    package func passwordHash(accountID: Int64, on db: any SQLDatabase) async throws -> String? {
        try await db.select().column("password_hash").from("staff_accounts").where("id", .equal, accountID)
            .first()?.decode(column: "password_hash", as: String.self)
    }

    package func setPasswordHash(_ hash: String, accountID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("staff_accounts")
            .set("password_hash", to: hash)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, accountID)
            .run()
    }

    package func setStatus(_ status: AccountStatus, accountID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("staff_accounts")
            .set("status", to: status.rawValue)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, accountID)
            .run()
    }

    package func list(_ query: StaffListQuery, on db: any SQLDatabase) async throws -> PageOf<StaffAccount> {
        try await list(query, beside: nil, on: db) { account, _ in account }
    }

    /// A page of accounts, each read with its row of `details` (a medical professional's profile, for her
    /// name) in the same statement; `decode` gets the account and the row, whose `details` columns are
    /// NULL for an account without one.
    package func list<Item: Sendable>(
        _ query: StaffListQuery,
        beside details: AccountDetails?,
        on db: any SQLDatabase,
        decode: @escaping (StaffAccount, any SQLRow) throws -> Item
    ) async throws -> PageOf<Item> {
        let table = "staff_accounts"
        let key: SortKey = query.sort == .created ? .integer(query.sort.column, table: table) : .text(query.sort.column, table: table)
        func accounts(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            if query.search.isEmpty {
                builder.from(table)
            } else {
                // The accounts whose username, or whose email address, starts with the text: a range on
                // each one's index, gathered before the list's order applies. As one condition (`OR`),
                // PostgreSQL walked every username in order, testing both. The email's range leaves out the
                // accounts the username's found, so the two are put together without comparing whole rows.
                let prefix = usernameKey(query.search)
                let username = startsWith(SQLColumn("username_key"), prefix)
                let matching: SQLQueryString = """
                    SELECT * FROM staff_accounts WHERE \(username)
                    UNION ALL SELECT * FROM staff_accounts WHERE \(startsWith(SQLFunction("LOWER", args: SQLColumn("email")), prefix)) AND NOT \(username)
                    """
                builder.from(SQLAlias(SQLGroupExpression(matching), as: SQLIdentifier(table)))
            }
            builder.where(SQLColumn("deleted_at", table: table), .is, SQLLiteral.null)
            // Written in, not bound: nine accounts in ten are medical professionals, so a bound role's
            // statement was planned afresh at every page (its plan for an average role cost more).
            if let role = query.role { builder.where(SQLColumn("role", table: table), .equal, valueFromClosedSet(role.rawValue)) }
            if let status = query.status { builder.where(SQLColumn("status", table: table), .equal, valueFromClosedSet(status.rawValue)) }
            return builder
        }
        var columns = (Self.columns + ["username_key"]).map { SQLColumn($0, table: table) }
        if let details { columns += details.columns.map { SQLColumn($0, table: details.table) } }
        return try await db.seek(
            query.page,
            order: ListOrder(query.sort.rawValue, keys: [key, .integer("id", table: table)], descending: query.descending),
            columns: columns,
            rows: { builder in
                guard let details else { return accounts(builder) }
                return accounts(builder).join(
                    SQLIdentifier(details.table),
                    method: SQLJoinMethod.left,
                    on: SQLColumn(details.accountID, table: details.table),
                    .equal,
                    SQLColumn("id", table: table)
                )
            },
            counted: details == nil ? nil : accounts,
            decode: { row in try decode(try account(from: row), row) }
        )
    }

    /// Physicians who registered and wait for an administrator.
    package func awaitingApprovalCount(on db: any SQLDatabase) async throws -> Int {
        // Written in, as the list's status is: a bound status was planned afresh at every page on PostgreSQL.
        try await db.count(in: "staff_accounts") {
            $0.where(SQLColumn("status"), .equal, valueFromClosedSet(AccountStatus.awaitingApproval.rawValue))
        }
    }

    package func createPhysicianProfile(_ profile: PhysicianProfile, accountID: Int64, on db: any SQLDatabase) async throws {
        try await db.insert(into: "physician_profiles")
            .columns("account_id", "first_name", "middle_name", "last_name", "practice_location", "practice_phone", "medical_id_number")
            .values(
                SQLBind(accountID),
                SQLBind(profile.firstName),
                SQLBind(profile.middleName),
                SQLBind(profile.lastName),
                SQLBind(profile.practiceLocation),
                SQLBind(profile.practicePhone),
                SQLBind(profile.medicalIDNumber)
            )
            .run()
    }

    /// Where a physician's practice is and its phone, as she changes them in her account.
    package func updatePractice(accountID: Int64, location: String, phone: String, on db: any SQLDatabase) async throws {
        try await db.update("physician_profiles")
            .set("practice_location", to: location)
            .set("practice_phone", to: phone)
            .where("account_id", .equal, accountID)
            .run()
    }

    package func physicianProfile(accountID: Int64, on db: any SQLDatabase) async throws -> PhysicianProfile? {
        guard
            let row = try await db.select()
                .columns("first_name", "middle_name", "last_name", "practice_location", "practice_phone", "medical_id_number")
                .from("physician_profiles").where("account_id", .equal, accountID).first()
        else { return nil }
        return PhysicianProfile(
            firstName: try row.decode(column: "first_name", as: String.self),
            middleName: try row.decode(column: "middle_name", as: String.self),
            lastName: try row.decode(column: "last_name", as: String.self),
            practiceLocation: try row.decode(column: "practice_location", as: String.self),
            practicePhone: try row.decode(column: "practice_phone", as: String.self),
            medicalIDNumber: try row.decode(column: "medical_id_number", as: String.self)
        )
    }

    package func recordApproval(accountID: Int64, approvedBy: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("physician_profiles")
            .set("approved_by", to: approvedBy)
            .set("approved_at", to: now.millisecondsSince1970)
            .where("account_id", .equal, accountID)
            .run()
    }

    /// Active administrators, other than `excluding`: the last one can be neither disabled nor deleted.
    package func activeAdministratorCount(excluding accountID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "staff_accounts") {
            $0.where("role", .equal, StaffRole.administrator.rawValue)
                .where("status", .equal, AccountStatus.active.rawValue)
                .where("deleted_at", .is, SQLLiteral.null)
                .where("id", .notEqual, accountID)
        }
    }

    /// Active accounts with this email address, compared without case (a password reset goes to each).
    package func activeAccounts(email: String, on db: any SQLDatabase) async throws -> [StaffAccount] {
        try await db.select().columns(Self.columns).from("staff_accounts")
            .where(SQLFunction("LOWER", args: SQLColumn("email")), .equal, SQLBind(email.lowercased()))
            .where("status", .equal, AccountStatus.active.rawValue)
            .where("deleted_at", .is, SQLLiteral.null)
            .orderBy("id")
            .all()
            .map { try account(from: $0) }
    }

    /// Deletes an account's sign-in and personal details, keeping a nameless row under `formerName`
    /// so that what she wrote keeps its author; `unusableHash` is a hash of a password nobody knows.
    package func forget(accountID: Int64, formerName: String, unusableHash: String, now: Date, on db: any SQLDatabase) async throws {
        let time = now.millisecondsSince1970
        try await db.update("staff_accounts")
            .set("username", to: formerName)
            // No username typed at sign-in gives this key: a colon is not allowed in usernames.
            .set("username_key", to: "deleted:\(accountID)")
            .set("email", to: SQLLiteral.null)
            .set("status", to: AccountStatus.disabled.rawValue)
            .set("password_hash", to: unusableHash)
            .set("updated_at", to: time)
            .set("deleted_at", to: time)
            .where("id", .equal, accountID)
            .run()
        try await db.delete(from: "physician_profiles").where("account_id", .equal, accountID).run()
    }

    package func count(on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "staff_accounts")
    }

    package init() {}
}

/// The database holds something the code cannot explain; logged, shown to the person as a plain error.
package struct StorageInconsistency: Error, CustomStringConvertible {
    package let description: String

    package init(description: String) {
        self.description = description
    }
}
