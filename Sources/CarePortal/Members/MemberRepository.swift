import Foundation
import PortalPlatform
import SQLKit

struct PseudonymTaken: Error {}

/// The columns the members list can be sorted by.
public enum MemberSort: String, Sendable, CaseIterable {
    case pseudonym, joined, lastActive = "last-active"

    var column: String {
        switch self {
        case .pseudonym: "pseudonym_key"
        case .joined: "created_at"
        case .lastActive: "last_active_at"
        }
    }
}

public struct MemberListQuery: Sendable, Equatable {
    /// Finds pseudonyms starting with this text, so the search can use the index at any size.
    public var search = ""
    public var cohortID: Int64?
    public var status: Member.Status?
    public var sort = MemberSort.joined
    public var descending = true
    public var page = PageRequest(number: 1)
}

/// One cohort with how many members it has and when one of them was last active.
public struct CohortSummary: Sendable, Equatable {
    public var cohort: Cohort
    public var memberCount: Int
    public var activeLastWeek: Int
    public var lastActiveAt: Date?
}

/// One sign-in, failed sign-in, recovery or sign-out of a member, for her page in the portal.
public struct MemberSignIn: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case signIn = "sign_in"
        case failed = "failed"
        case registered = "registered"
        case recovered = "recovered"

        public var title: String {
            switch self {
            case .signIn: "Signed in"
            case .failed: "Wrong password"
            case .registered: "Registered"
            case .recovered: "Recovered her account"
            }
        }
    }

    public var happenedAt: Date
    public var kind: Kind
    public var address: String?
    public var userAgent: String?
}

/// What a member's secrets are checked against; never leaves the server.
struct MemberCredentials: Sendable {
    var id: Int64
    var passwordHash: String
    var securityAnswerHash: String
    var status: Member.Status
}

/// The only place members, cohorts, member tokens and sign-in history are read and written.
struct MemberRepository: Sendable {
    // MARK: Cohorts

    /// The cohort of a due month, made the first time someone needs it.
    func cohort(dueMonth: String, now: Date, on db: any SQLDatabase) async throws -> Cohort {
        try await db.insert(into: "cohorts").columns("due_month", "created_at")
            .values(SQLBind(dueMonth), SQLBind(now.millisecondsSince1970))
            .ignoringConflicts(with: ["due_month"])
            .run()
        guard let row = try await db.select().columns("id", "due_month").from("cohorts").where("due_month", .equal, dueMonth).first() else {
            throw StorageInconsistency(description: "cohort \(dueMonth) missing after insert")
        }
        return try decodeCohort(row)
    }

    func cohorts(on db: any SQLDatabase) async throws -> [Cohort] {
        try await db.select().columns("id", "due_month").from("cohorts").orderBy("due_month").all().map(decodeCohort)
    }

    func cohortSummaries(now: Date, on db: any SQLDatabase) async throws -> [CohortSummary] {
        let weekAgo = now.addingTimeInterval(-7 * 86_400).millisecondsSince1970
        let rows = try await db.raw(
            """
            SELECT c.id, c.due_month, COUNT(m.id) AS member_count,
                   COALESCE(SUM(CASE WHEN m.last_active_at > \(bind: weekAgo) THEN 1 ELSE 0 END), 0) AS active_last_week,
                   MAX(m.last_active_at) AS last_active_at
            FROM cohorts c LEFT JOIN members m ON m.cohort_id = c.id
            GROUP BY c.id, c.due_month
            ORDER BY c.due_month
            """
        ).all()
        return try rows.map { row in
            CohortSummary(
                cohort: try decodeCohort(row),
                memberCount: try row.decode(column: "member_count", as: Int.self),
                activeLastWeek: try row.decode(column: "active_last_week", as: Int.self),
                lastActiveAt: try row.decode(column: "last_active_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
            )
        }
    }

    // MARK: Members

    func create(_ new: NewMember, cohort: Cohort, now: Date, on db: any SQLDatabase) async throws -> Member {
        let key = usernameKey(new.pseudonym)
        if try await db.select().column("id").from("members").where("pseudonym_key", .equal, key).first() != nil {
            throw PseudonymTaken()
        }
        let time = now.millisecondsSince1970
        let row = try await db.insert(into: "members")
            .columns(
                "pseudonym",
                "pseudonym_key",
                "password_hash",
                "avatar",
                "due_date",
                "cohort_id",
                "recovery_email",
                "recovery_email_key",
                "security_question",
                "security_answer_hash",
                "us_state",
                "zip_code",
                "bio",
                "status",
                "sign_up_code_id",
                "created_at",
                "updated_at",
                "last_active_at"
            )
            .values(
                SQLBind(new.pseudonym),
                SQLBind(key),
                SQLBind(new.passwordHash),
                SQLBind(new.avatarID),
                SQLBind(new.dueDate.iso),
                SQLBind(cohort.id),
                SQLBind(new.recoveryEmail),
                SQLBind(MemberRules.emailKey(new.recoveryEmail)),
                SQLBind(new.securityQuestion),
                SQLBind(new.securityAnswerHash),
                SQLBind(new.usState),
                SQLBind(new.zipCode),
                SQLBind(new.bio),
                SQLBind(Member.Status.active.rawValue),
                SQLBind(Int64?.none),
                SQLBind(time),
                SQLBind(time),
                SQLBind(time)
            )
            .returning("id")
            .first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw StorageInconsistency(description: "insert into members returned no id")
        }
        return Member(
            id: id,
            pseudonym: new.pseudonym,
            avatarID: new.avatarID,
            dueDate: new.dueDate,
            cohort: cohort,
            recoveryEmail: new.recoveryEmail,
            securityQuestion: new.securityQuestion,
            usState: new.usState,
            zipCode: new.zipCode,
            bio: new.bio,
            status: .active,
            signUpCodeID: nil,
            createdAt: now,
            lastActiveAt: now
        )
    }

    /// Ties the account to the sign-up code it was made with (seed DR1.FR1.7).
    func setSignUpCode(id: Int64, codeID: Int64, on db: any SQLDatabase) async throws {
        try await db.update("members").set("sign_up_code_id", to: codeID).where("id", .equal, id).run()
    }

    func find(id: Int64, on db: any SQLDatabase) async throws -> Member? {
        try await selectMembers(on: db).where(SQLColumn("id", table: "members"), .equal, SQLBind(id)).first().map(decodeMember)
    }

    func credentials(pseudonym: String, on db: any SQLDatabase) async throws -> MemberCredentials? {
        try await selectCredentials(on: db).where("pseudonym_key", .equal, usernameKey(pseudonym)).first().map(decodeCredentials)
    }

    func credentials(id: Int64, on db: any SQLDatabase) async throws -> MemberCredentials? {
        try await selectCredentials(on: db).where("id", .equal, id).first().map(decodeCredentials)
    }

    /// Every member who gave this recovery email (several may share one).
    func credentials(recoveryEmail: String, on db: any SQLDatabase) async throws -> [MemberCredentials] {
        try await selectCredentials(on: db).where("recovery_email_key", .equal, MemberRules.emailKey(recoveryEmail))
            .orderBy("id").limit(10).all().map(decodeCredentials)
    }

    /// The fields a member may change about herself; nil leaves a field as it is.
    struct ProfileChanges: Sendable {
        var avatarID: String?
        var recoveryEmail: String?
        /// `.some(nil)` clears the location.
        var location: (state: String?, zipCode: String?)?
        var bio: String?
    }

    func update(id: Int64, _ changes: ProfileChanges, now: Date, on db: any SQLDatabase) async throws {
        let query = db.update("members").set("updated_at", to: now.millisecondsSince1970)
        if let avatar = changes.avatarID { query.set("avatar", to: avatar) }
        if let email = changes.recoveryEmail {
            query.set("recovery_email", to: email).set("recovery_email_key", to: MemberRules.emailKey(email))
        }
        if let location = changes.location {
            query.set("us_state", to: location.state).set("zip_code", to: location.zipCode)
        }
        if let bio = changes.bio { query.set("bio", to: bio) }
        try await query.where("id", .equal, id).run()
    }

    func setPassword(id: Int64, hash: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("members").set("password_hash", to: hash).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    func setStatus(id: Int64, _ status: Member.Status, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("members").set("status", to: status.rawValue).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    /// Holds her row until the transaction ends, on PostgreSQL (SQLite's transactions run one at a time
    /// anyway): a deletion takes it before it takes back her rows from the counts kept of them, so that no
    /// row of hers is stored meanwhile; what she sends that is counted (a survey's response) holds it
    /// too, before the counted row, so the two take their locks in the same order and never wait on each
    /// other in a circle. `deleting` holds it alone; otherwise any number hold it together. False when
    /// her account is gone (deleted while her request was on its way).
    func hold(id: Int64, deleting: Bool, engine: Database.Engine, on db: any SQLDatabase) async throws -> Bool {
        let lock = engine == .postgres ? (deleting ? " FOR UPDATE" : " FOR KEY SHARE") : ""
        return try await db.raw("SELECT id FROM members WHERE id = \(bind: id)\(unsafeRaw: lock)").first() != nil
    }

    /// Deletes everything held about a member; her tokens and sign-in history go with her.
    func delete(id: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "members").where("id", .equal, id).run()
    }

    func markActive(id: Int64, at now: Date, on db: any SQLDatabase) async throws {
        try await db.update("members").set("last_active_at", to: now.millisecondsSince1970).where("id", .equal, id).run()
    }

    func list(_ query: MemberListQuery, on db: any SQLDatabase) async throws -> PageOf<Member> {
        let key: SortKey =
            query.sort == .pseudonym
            ? .text(query.sort.column, table: "members") : .integer(query.sort.column, table: "members")
        /// The members the filters keep, from their own table without the cohorts' join.
        let kept: (SQLSelectBuilder) -> SQLSelectBuilder = { filter($0.from("members"), query) }
        return try await db.seek(
            query.page,
            order: ListOrder(query.sort.rawValue, keys: [key, .integer("id", table: "members")], descending: query.descending),
            columns: [Self.listedColumns],
            rows: {
                filter(
                    $0.from("members").join("cohorts", on: SQLColumn("cohort_id", table: "members"), .equal, SQLColumn("id", table: "cohorts")),
                    query
                )
            },
            counted: kept,
            // One cohort's or status's page: its ids are sought on that filter's index alone. Reading whole
            // rows in the same seek, PostgreSQL priced the filter's index (rows scattered over the table)
            // above a walk of every member in date order, filtered, and planned the statement again on every
            // request. Unfiltered or searched, whole rows in one seek cost PostgreSQL less.
            idsFirst: query.cohortID != nil || query.status != nil ? kept : nil,
            decode: decodeMember
        )
    }

    /// The pseudonyms of these members; a deleted member is simply missing.
    func pseudonyms(ids: [Int64], on db: any SQLDatabase) async throws -> [Int64: String] {
        guard !ids.isEmpty else { return [:] }
        var names: [Int64: String] = [:]
        for row in try await db.select().columns("id", "pseudonym").from("members").where("id", .in, ids).all() {
            names[try row.decode(column: "id", as: Int64.self)] = try row.decode(column: "pseudonym", as: String.self)
        }
        return names
    }

    func count(on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "members")
    }

    private func filter(_ builder: SQLSelectBuilder, _ query: MemberListQuery) -> SQLSelectBuilder {
        if !query.search.isEmpty {
            // A range on the unique index: "ann" finds ann, Anna and ann_b without reading every row.
            let prefix = usernameKey(query.search)
            builder.where(startsWith(SQLColumn("pseudonym_key", table: "members"), prefix))
        }
        if let cohortID = query.cohortID { builder.where(SQLColumn("cohort_id", table: "members"), .equal, SQLBind(cohortID)) }
        if let status = query.status { builder.where(SQLColumn("status", table: "members"), .equal, SQLBind(status.rawValue)) }
        return builder
    }

    /// A member's columns and her cohort's due month.
    private static let memberColumns = ColumnList(joining: [
        ColumnList(
            [
                "id", "pseudonym", "avatar", "due_date", "cohort_id", "recovery_email", "security_question", "us_state", "zip_code",
                "bio", "status", "sign_up_code_id", "created_at", "last_active_at"
            ],
            table: "members"
        ),
        ColumnList(["due_month"], table: "cohorts")
    ])

    /// The same and the key the list sorts pseudonyms by.
    private static let listedColumns = ColumnList(joining: [memberColumns, ColumnList(["pseudonym_key"], table: "members")])

    private func selectMembers(on db: any SQLDatabase) -> SQLSelectBuilder {
        db.select()
            .column(Self.memberColumns)
            .from("members")
            .join("cohorts", on: SQLColumn("cohort_id", table: "members"), .equal, SQLColumn("id", table: "cohorts"))
    }

    private func selectCredentials(on db: any SQLDatabase) -> SQLSelectBuilder {
        db.select().columns("id", "password_hash", "security_answer_hash", "status").from("members")
    }

    private func decodeMember(_ row: any SQLRow) throws -> Member {
        let dueText = try row.decode(column: "due_date", as: String.self)
        guard let dueDate = CalendarDate(iso: dueText),
            let status = Member.Status(rawValue: try row.decode(column: "status", as: String.self))
        else { throw StorageInconsistency(description: "member row has an unreadable due date or status") }
        return Member(
            id: try row.decode(column: "id", as: Int64.self),
            pseudonym: try row.decode(column: "pseudonym", as: String.self),
            avatarID: try row.decode(column: "avatar", as: String.self),
            dueDate: dueDate,
            cohort: Cohort(id: try row.decode(column: "cohort_id", as: Int64.self), dueMonth: try row.decode(column: "due_month", as: String.self)),
            recoveryEmail: try row.decode(column: "recovery_email", as: String.self),
            securityQuestion: try row.decode(column: "security_question", as: String.self),
            usState: try row.decode(column: "us_state", as: String?.self),
            zipCode: try row.decode(column: "zip_code", as: String?.self),
            bio: try row.decode(column: "bio", as: String.self),
            status: status,
            signUpCodeID: try row.decode(column: "sign_up_code_id", as: Int64?.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            lastActiveAt: Date(millisecondsSince1970: try row.decode(column: "last_active_at", as: Int64.self))
        )
    }

    private func decodeCohort(_ row: any SQLRow) throws -> Cohort {
        Cohort(id: try row.decode(column: "id", as: Int64.self), dueMonth: try row.decode(column: "due_month", as: String.self))
    }

    private func decodeCredentials(_ row: any SQLRow) throws -> MemberCredentials {
        MemberCredentials(
            id: try row.decode(column: "id", as: Int64.self),
            passwordHash: try row.decode(column: "password_hash", as: String.self),
            securityAnswerHash: try row.decode(column: "security_answer_hash", as: String.self),
            status: Member.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .disabled
        )
    }

    // MARK: Sign-in history

    func recordSignIn(memberID: Int64, kind: MemberSignIn.Kind, origin: AuditOrigin, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "member_sign_ins").columns("member_id", "happened_at", "kind", "address", "user_agent")
            .values(
                SQLBind(memberID),
                SQLBind(now.millisecondsSince1970),
                SQLBind(kind.rawValue),
                SQLBind(origin.address),
                SQLBind(origin.userAgent.map { String($0.prefix(200)) })
            )
            .run()
    }

    func signIns(memberID: Int64, limit: Int = 20, on db: any SQLDatabase) async throws -> [MemberSignIn] {
        try await db.select().columns("happened_at", "kind", "address", "user_agent").from("member_sign_ins")
            .where("member_id", .equal, memberID)
            .orderBy("happened_at", .descending).orderBy("id", .descending)
            .limit(limit)
            .all()
            .map { row in
                MemberSignIn(
                    happenedAt: Date(millisecondsSince1970: try row.decode(column: "happened_at", as: Int64.self)),
                    kind: MemberSignIn.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .signIn,
                    address: try row.decode(column: "address", as: String?.self),
                    userAgent: try row.decode(column: "user_agent", as: String?.self)
                )
            }
    }
}
