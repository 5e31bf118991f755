import Foundation
import PortalPlatform
import SQLKit

/// The only place memory care's SQL lives: accounts and their confirmation, keys and PINs, memories and
/// contacts with their change numbers, invitations, links and their history, the access log, her location
/// and the program's settings.
struct CareRepository: Sendable {
    // MARK: Accounts

    struct StoredCredentials: Sendable {
        let id: Int64
        let passwordHash: String
        let status: CareAccount.Status
    }

    static func emailKey(_ email: String) -> String { email.trimmed.lowercased() }

    func credentials(kind: CareAccountKind, email: String, on db: any SQLDatabase) async throws -> StoredCredentials? {
        try await db.select().columns("id", "password_hash", "status").from("care_accounts")
            .where("kind", .equal, kind.rawValue).where("email_key", .equal, Self.emailKey(email))
            .first().map {
                StoredCredentials(
                    id: try $0.decode(column: "id", as: Int64.self),
                    passwordHash: try $0.decode(column: "password_hash", as: String.self),
                    status: CareAccount.Status(rawValue: try $0.decode(column: "status", as: String.self)) ?? .disabled
                )
            }
    }

    func markActivity(accountID: Int64, at now: Date, on db: any SQLDatabase) async throws {
        try await db.update("care_accounts").set("last_active_at", to: now.millisecondsSince1970).where("id", .equal, accountID).run()
    }

    /// A new unconfirmed account; nil, with nothing written, when the address already has one of this kind.
    func createAccount(
        kind: CareAccountKind,
        email: String,
        name: String,
        passwordHash: String,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Int64? {
        try await db.insert(into: "care_accounts")
            .columns("kind", "email", "email_key", "name", "password_hash", "status", "created_at")
            .values(
                SQLBind(kind.rawValue),
                SQLBind(email.trimmed),
                SQLBind(Self.emailKey(email)),
                SQLBind(name),
                SQLBind(passwordHash),
                SQLBind(CareAccount.Status.unconfirmed.rawValue),
                SQLBind(now.millisecondsSince1970)
            )
            .ignoringConflicts(with: ["kind", "email_key"])
            .returning("id").first()?.decode(column: "id", as: Int64.self)
    }

    private static let accountColumns = ColumnList([
        "id", "kind", "email", "name", "status", "pin_hash", "created_at", "confirmed_at", "last_active_at"
    ])

    private func decodeAccount(_ row: any SQLRow) throws -> CareAccount {
        func time(_ column: String) throws -> Date? { try row.decode(column: column, as: Int64?.self).map(Date.init(millisecondsSince1970:)) }
        return CareAccount(
            id: try row.decode(column: "id", as: Int64.self),
            kind: CareAccountKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .caregiver,
            email: try row.decode(column: "email", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            status: CareAccount.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .disabled,
            hasPIN: try row.decode(column: "pin_hash", as: String?.self) != nil,
            createdAt: try time("created_at")!,
            confirmedAt: try time("confirmed_at"),
            lastActiveAt: try time("last_active_at")
        )
    }

    func account(id: Int64, kind: CareAccountKind, on db: any SQLDatabase) async throws -> CareAccount? {
        try await db.select().column(Self.accountColumns).from("care_accounts").where("id", .equal, id).where("kind", .equal, kind.rawValue)
            .first().map(decodeAccount)
    }

    func accounts(ids: [Int64], on db: any SQLDatabase) async throws -> [CareAccount] {
        guard !ids.isEmpty else { return [] }
        return try await db.select().column(Self.accountColumns).from("care_accounts").where("id", .in, ids).all().map(decodeAccount)
    }

    func account(kind: CareAccountKind, email: String, on db: any SQLDatabase) async throws -> CareAccount? {
        try await db.select().column(Self.accountColumns).from("care_accounts")
            .where("kind", .equal, kind.rawValue).where("email_key", .equal, Self.emailKey(email))
            .first().map(decodeAccount)
    }

    /// One page of a kind's accounts for staff, by name, with the total that match; `search` matches
    /// name or email address.
    func accounts(
        kind: CareAccountKind,
        search: String,
        status: CareAccount.Status?,
        limit: Int,
        offset: Int,
        on db: any SQLDatabase
    ) async throws -> (accounts: [CareAccount], total: Int) {
        func filtered(_ query: SQLSelectBuilder) -> SQLSelectBuilder {
            query.where("kind", .equal, kind.rawValue)
            if let status { query.where("status", .equal, status.rawValue) }
            let words = search.lowercased().split(separator: " ").prefix(5)
            for word in words {
                query.where { $0.where(lowercased("name", contains: String(word))).orWhere(lowercased("email_key", contains: String(word))) }
            }
            return query
        }
        let rows = try await filtered(db.select().column(Self.accountColumns).from("care_accounts"))
            .orderBy("name").orderBy("id").limit(limit).offset(offset).all().map(decodeAccount)
        let total =
            try await filtered(db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("care_accounts"))
            .first()?.decode(column: "n", as: Int.self) ?? 0
        return (rows, total)
    }

    func setStatus(accountID: Int64, kind: CareAccountKind, to status: CareAccount.Status, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("care_accounts").set("status", to: status.rawValue)
            .where("id", .equal, accountID).where("kind", .equal, kind.rawValue).where("status", .notEqual, CareAccount.Status.unconfirmed.rawValue)
            .returning("id").first() != nil
    }

    /// Deletes the account and everything it owns (memories, contacts, links, tokens, keys), in the caller's
    /// transaction. A caregiver's reads stay in her access log, no longer naming him (his id there becomes 0,
    /// so no later account can take his place in it).
    func deleteAccount(id: Int64, kind: CareAccountKind, on db: any SQLDatabase) async throws -> Bool {
        if kind == .caregiver { try await db.update("care_access_log").set("caregiver_id", to: Int64(0)).where("caregiver_id", .equal, id).run() }
        return try await db.delete(from: "care_accounts").where("id", .equal, id).where("kind", .equal, kind.rawValue).returning("id").first() != nil
    }

    /// Ends the account's sessions, all of them or all but the one `keeping` names (its hash).
    func revokeTokens(accountID: Int64, kind: CareAccountKind, keeping: String? = nil, on db: any SQLDatabase) async throws {
        let delete = db.delete(from: kind.appAccount.tokens.table).where("account_id", .equal, accountID)
        if let keeping { delete.where("token_hash", .notEqual, keeping) }
        try await delete.run()
    }

    func kind(ofAccount id: Int64, on db: any SQLDatabase) async throws -> CareAccountKind? {
        try await db.select().column("kind").from("care_accounts").where("id", .equal, id).first()
            .flatMap { CareAccountKind(rawValue: try $0.decode(column: "kind", as: String.self)) }
    }

    /// A new password ends every session of the account but the one `keeping` names, if any.
    func setPassword(accountID: Int64, kind: CareAccountKind, hash: String, keeping: String? = nil, on db: any SQLDatabase) async throws {
        try await db.update("care_accounts").set("password_hash", to: hash).where("id", .equal, accountID).run()
        try await revokeTokens(accountID: accountID, kind: kind, keeping: keeping, on: db)
    }

    /// Forgotten-password links, for both kinds.
    static let resetLinks = PasswordResetLinks(table: "care_password_resets", owner: "account_id")

    // MARK: Confirmation links

    func createConfirmation(tokenHash: String, accountID: Int64, expiresAt: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "care_confirmations").columns("token_hash", "account_id", "expires_at")
            .values(SQLBind(tokenHash), SQLBind(accountID), SQLBind(expiresAt.millisecondsSince1970)).run()
    }

    func confirmationIsUsable(tokenHash: String, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.select().column("account_id").from("care_confirmations")
            .where("token_hash", .equal, tokenHash).where("expires_at", .greaterThan, now.millisecondsSince1970).first() != nil
    }

    /// Uses the link once: the account it belongs to becomes active; nil when the link is unknown, used or expired.
    func confirm(tokenHash: String, now: Date, on db: any SQLDatabase) async throws -> (id: Int64, kind: CareAccountKind)? {
        guard
            let accountID = try await db.delete(from: "care_confirmations")
                .where("token_hash", .equal, tokenHash).where("expires_at", .greaterThan, now.millisecondsSince1970)
                .returning("account_id").first()?.decode(column: "account_id", as: Int64.self)
        else { return nil }
        try await db.delete(from: "care_confirmations").where("account_id", .equal, accountID).run()
        guard
            let row = try await db.update("care_accounts")
                .set("status", to: CareAccount.Status.active.rawValue).set("confirmed_at", to: now.millisecondsSince1970)
                .where("id", .equal, accountID).where("status", .equal, CareAccount.Status.unconfirmed.rawValue)
                .returning("kind").first()
        else { return nil }
        return (accountID, CareAccountKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .caregiver)
    }

    func deleteConfirmations(expiredBefore: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "care_confirmations").where("expires_at", .lessThan, expiredBefore.millisecondsSince1970).run()
    }

    // MARK: Her key and PIN

    func sealedKey(accountID: Int64, on db: any SQLDatabase) async throws -> String? {
        try await db.select().column("sealed_key").from("care_keys").where("account_id", .equal, accountID)
            .first()?.decode(column: "sealed_key", as: String.self)
    }

    /// Keeps her sealed key unless she has one already; the key in force is read back.
    func keepSealedKey(_ sealed: String, accountID: Int64, on db: any SQLDatabase) async throws {
        try await db.insert(into: "care_keys").columns("account_id", "sealed_key").values(SQLBind(accountID), SQLBind(sealed))
            .ignoringConflicts(with: ["account_id"]).run()
    }

    func pinHash(accountID: Int64, on db: any SQLDatabase) async throws -> String? {
        try await db.select().column("pin_hash").from("care_accounts").where("id", .equal, accountID)
            .first()?.decode(column: "pin_hash", as: String?.self)
    }

    func passwordHash(accountID: Int64, on db: any SQLDatabase) async throws -> String? {
        try await db.select().column("password_hash").from("care_accounts").where("id", .equal, accountID)
            .first()?.decode(column: "password_hash", as: String.self)
    }

    func setPIN(hash: String, accountID: Int64, on db: any SQLDatabase) async throws {
        try await db.update("care_accounts").set("pin_hash", to: hash).where("id", .equal, accountID).run()
        try await db.update("care_receiver_tokens").set("unlocked_until", to: SQLLiteral.null).where("account_id", .equal, accountID).run()
    }

    func unlock(tokenHash: String, until: Date, on db: any SQLDatabase) async throws {
        try await db.update("care_receiver_tokens").set("unlocked_until", to: until.millisecondsSince1970).where("token_hash", .equal, tokenHash)
            .run()
    }

    func lock(tokenHash: String, on db: any SQLDatabase) async throws {
        try await db.update("care_receiver_tokens").set("unlocked_until", to: SQLLiteral.null).where("token_hash", .equal, tokenHash).run()
    }

    // MARK: Change numbers

    /// The next number in her changes, in the caller's transaction; on PostgreSQL the update holds her
    /// row, so two changes at once take different numbers in the order they commit.
    func nextChangeNumber(receiverID: Int64, on db: any SQLDatabase) async throws -> Int64 {
        try await db.raw("UPDATE care_accounts SET change_counter = change_counter + 1 WHERE id = \(bind: receiverID) RETURNING change_counter")
            .first()!.decode(column: "change_counter", as: Int64.self)
    }

    // MARK: Memories

    /// A memory's row as written: plain content, or a secured memory's seal with only its reminder readable.
    struct MemoryRow: Sendable {
        var type: MemoryType
        var clientID: String?
        var plain: MemoryContent?
        var sealed: String?
        var reminderAt: String?
        var recurrence: String
        var changedBy: AppAccountRef
        /// When its reminder next falls due; nil when it has none left.
        var nextReminderAt: Date?
    }

    /// A memory as read: plain content, or the seal to open with her key.
    struct StoredMemory: Sendable {
        var memory: Memory
        var sealed: String?
    }

    /// What few memories have, kept as JSON in `details`: empty when a memory has none of it, so most rows
    /// are read without decoding any JSON.
    struct MemoryDetails: Codable {
        var customFields: [CustomField]
        var fields: [String: String]
        var items: [TodoItem]

        static let none = MemoryDetails(customFields: [], fields: [:], items: [])

        init(customFields: [CustomField], fields: [String: String], items: [TodoItem]) {
            (self.customFields, self.fields, self.items) = (customFields, fields, items)
        }

        init(stored: String) throws {
            self = stored.isEmpty ? .none : try JSONDecoder().decode(MemoryDetails.self, from: Data(stored.utf8))
        }

        func stored() throws -> String {
            customFields.isEmpty && fields.isEmpty && items.isEmpty ? "" : String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
        }
    }

    /// Values kept one a line in a column (tags, phones, people's ids): none of them can hold a line break,
    /// which validation refuses as a control character.
    static func joined(_ values: [String]) -> String { values.joined(separator: "\n") }

    static func lines(_ stored: String) -> [String] {
        stored.isEmpty ? [] : stored.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private static let memoryColumns = ColumnList([
        "id", "receiver_id", "client_id", "type", "secured", "title", "category", "happens_at", "reminder_at", "recurrence", "status", "location",
        "emoji", "description", "tags", "people", "details", "sealed", "version", "change_number", "created_at", "updated_at", "changed_by_role",
        "deleted_at"
    ])

    private func decodeMemory(_ row: any SQLRow) throws -> StoredMemory {
        let secured = try row.decode(column: "secured", as: Int64.self) != 0
        let deletedAt = try row.decode(column: "deleted_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        let (recurrence, days) = Self.splitRecurrence(try row.decode(column: "recurrence", as: String.self))
        var content: MemoryContent?
        if !secured, deletedAt == nil {
            let details = try MemoryDetails(stored: try row.decode(column: "details", as: String.self))
            let happensAt = try row.decode(column: "happens_at", as: String.self)
            content = MemoryContent(
                title: try row.decode(column: "title", as: String.self),
                category: try row.decode(column: "category", as: String.self),
                happensAt: happensAt.isEmpty ? nil : happensAt,
                reminderAt: try row.decode(column: "reminder_at", as: String?.self),
                recurrence: recurrence.rawValue,
                recurrenceDays: days,
                status: try row.decode(column: "status", as: String.self),
                tags: Self.lines(try row.decode(column: "tags", as: String.self)),
                location: try row.decode(column: "location", as: String.self),
                emoji: try row.decode(column: "emoji", as: String.self),
                description: try row.decode(column: "description", as: String.self),
                customFields: details.customFields,
                people: Self.lines(try row.decode(column: "people", as: String.self)).compactMap { Int64($0) },
                fields: details.fields,
                items: details.items
            )
        }
        let memory = Memory(
            id: try row.decode(column: "id", as: Int64.self),
            receiverID: try row.decode(column: "receiver_id", as: Int64.self),
            clientID: try row.decode(column: "client_id", as: String?.self),
            type: MemoryType(rawValue: try row.decode(column: "type", as: String.self)) ?? .genericMemory,
            secured: secured,
            content: content,
            reminderAt: try row.decode(column: "reminder_at", as: String?.self),
            recurrence: recurrence,
            version: try row.decode(column: "version", as: Int64.self),
            changeNumber: try row.decode(column: "change_number", as: Int64.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self)),
            changedByCaregiver: try row.decode(column: "changed_by_role", as: String.self) == AppAccountKind.caregiver.role,
            deletedAt: deletedAt
        )
        return StoredMemory(memory: memory, sealed: deletedAt == nil ? try row.decode(column: "sealed", as: String?.self) : nil)
    }

    /// `weekly:mon,wed` as stored, split into the recurrence and its days.
    static func splitRecurrence(_ stored: String) -> (Recurrence, [String]) {
        let parts = stored.split(separator: ":", maxSplits: 1)
        let recurrence = Recurrence(rawValue: parts.first.map(String.init) ?? "") ?? .none
        let days = parts.count == 2 ? parts[1].split(separator: ",").map(String.init) : []
        return (recurrence, days)
    }

    static func storedRecurrence(_ content: MemoryContent) -> String {
        content.recurrenceDays.isEmpty ? content.recurrence : "\(content.recurrence):\(content.recurrenceDays.joined(separator: ","))"
    }

    private func values(of row: MemoryRow) throws -> [String: SQLBind] {
        let plain = row.plain
        let details = plain.map { MemoryDetails(customFields: $0.customFields, fields: $0.fields, items: $0.items) } ?? .none
        return [
            "type": SQLBind(row.type.rawValue), "secured": SQLBind(Int64(row.sealed == nil ? 0 : 1)), "title": SQLBind(plain?.title ?? ""),
            "category": SQLBind(plain?.category ?? ""), "happens_at": SQLBind(plain?.happensAt ?? ""), "reminder_at": SQLBind(row.reminderAt),
            "recurrence": SQLBind(row.recurrence), "status": SQLBind(plain?.status ?? ""), "location": SQLBind(plain?.location ?? ""),
            "emoji": SQLBind(plain?.emoji ?? ""), "description": SQLBind(plain?.description ?? ""),
            "details": SQLBind(try details.stored()), "tags": SQLBind(Self.joined(plain?.tags ?? [])),
            "people": SQLBind(Self.joined((plain?.people ?? []).map(String.init))), "sealed": SQLBind(row.sealed), "search_text": SQLBind(""),
            "changed_by_role": SQLBind(row.changedBy.role), "changed_by_id": SQLBind(row.changedBy.accountID),
            "next_reminder_at": SQLBind(row.nextReminderAt?.millisecondsSince1970)
        ]
    }

    /// A new memory; nil, with nothing written, when she already has one with this client id.
    func insertMemory(_ row: MemoryRow, receiverID: Int64, changeNumber: Int64, now: Date, on db: any SQLDatabase) async throws -> Int64? {
        var values = try values(of: row)
        values["receiver_id"] = SQLBind(receiverID)
        values["client_id"] = SQLBind(row.clientID)
        values["version"] = SQLBind(Int64(1))
        values["change_number"] = SQLBind(changeNumber)
        values["created_at"] = SQLBind(now.millisecondsSince1970)
        values["updated_at"] = SQLBind(now.millisecondsSince1970)
        let columns = values.keys.sorted()
        guard
            let id = try await db.insert(into: "care_memories").columns(columns).values(columns.map { values[$0]! })
                .ignoringConflicts(with: ["receiver_id", "client_id"])
                .returning("id").first()?.decode(column: "id", as: Int64.self)
        else { return nil }
        try await replaceLinks(memoryID: id, receiverID: receiverID, content: row.plain, on: db)
        return id
    }

    /// Writes a memory's new content if it is still at `version`; false, with nothing written, otherwise.
    func updateMemory(
        id: Int64,
        receiverID: Int64,
        version: Int64,
        with row: MemoryRow,
        changeNumber: Int64,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Bool {
        let values = try values(of: row)
        let update = db.update("care_memories")
        for (column, value) in values.sorted(by: { $0.key < $1.key }) { update.set(SQLColumn(column), to: value) }
        guard
            try await update.set("version", to: version + 1).set("change_number", to: changeNumber).set("updated_at", to: now.millisecondsSince1970)
                .where("id", .equal, id).where("receiver_id", .equal, receiverID).where("version", .equal, version).where(
                    "deleted_at",
                    .is,
                    SQLLiteral.null
                )
                .returning("id").first() != nil
        else { return false }
        try await replaceLinks(memoryID: id, receiverID: receiverID, content: row.plain, on: db)
        return true
    }

    /// Marks a live memory changed without changing what it says (a file attached or removed), so every
    /// device's next sync fetches it again; its version stays, so nobody's edit of its words conflicts.
    func touchMemory(id: Int64, receiverID: Int64, changeNumber: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("care_memories").set("change_number", to: changeNumber).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("receiver_id", .equal, receiverID).where("deleted_at", .is, SQLLiteral.null).run()
    }

    /// Deletes a memory's words and keeps its id as deleted, so every device's next sync removes it.
    func deleteMemory(
        id: Int64,
        receiverID: Int64,
        version: Int64,
        by actor: AppAccountRef,
        changeNumber: Int64,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Bool {
        guard
            try await db.update("care_memories")
                .set("title", to: "").set("category", to: "").set("happens_at", to: "").set("reminder_at", to: SQLLiteral.null).set(
                    "recurrence",
                    to: "none"
                )
                .set("status", to: "").set("location", to: "").set("emoji", to: "").set("description", to: "").set("details", to: "")
                .set("tags", to: "").set("people", to: "")
                .set("sealed", to: SQLLiteral.null).set("search_text", to: "")
                .set("next_reminder_at", to: SQLLiteral.null).set("follow_up_at", to: SQLLiteral.null).set("follow_up_of", to: SQLLiteral.null)
                .set("version", to: version + 1).set("change_number", to: changeNumber).set("updated_at", to: now.millisecondsSince1970)
                .set("deleted_at", to: now.millisecondsSince1970).set("changed_by_role", to: actor.role).set("changed_by_id", to: actor.accountID)
                .where("id", .equal, id).where("receiver_id", .equal, receiverID).where("version", .equal, version).where(
                    "deleted_at",
                    .is,
                    SQLLiteral.null
                )
                .returning("id").first() != nil
        else { return false }
        try await replaceLinks(memoryID: id, receiverID: receiverID, content: nil, on: db)
        return true
    }

    /// The words, tags and people a plain memory is found by; none for a secured or deleted one.
    private func replaceLinks(memoryID: Int64, receiverID: Int64, content: MemoryContent?, on db: any SQLDatabase) async throws {
        try await db.delete(from: "care_memory_tags").where("memory_id", .equal, memoryID).run()
        try await db.delete(from: "care_memory_people").where("memory_id", .equal, memoryID).run()
        let happensAt = content?.happensAt ?? ""
        try await writeSearchWords(memoryID: memoryID, receiverID: receiverID, text: content?.searchText ?? "", happensAt: happensAt, on: db)
        guard let content else { return }
        let tags = Set(content.tags.map { $0.trimmed.lowercased() })
        if !tags.isEmpty {
            let insert = db.insert(into: "care_memory_tags").columns("memory_id", "receiver_id", "tag", "happens_at")
            for tag in tags.sorted() { insert.values(SQLBind(memoryID), SQLBind(receiverID), SQLBind(tag), SQLBind(happensAt)) }
            try await insert.run()
        }
        if !content.people.isEmpty {
            let insert = db.insert(into: "care_memory_people").columns("memory_id", "contact_id")
            for person in Set(content.people).sorted() { insert.values(SQLBind(memoryID), SQLBind(person)) }
            try await insert.run()
        }
    }

    /// Every start of every word of a plain memory's searchable text, for her search (`care_memory_words`),
    /// with its time for the list's order (left out by the migrations written before the table had it).
    func writeSearchWords(memoryID: Int64, receiverID: Int64, text: String, happensAt: String? = nil, on db: any SQLDatabase) async throws {
        try await db.replaceSearchRows(
            in: "care_memory_words",
            column: "word_start",
            values: WordStarts.starts(of: text).sorted(),
            owner: "memory_id",
            id: memoryID,
            copied: [("receiver_id", receiverID)] + (happensAt.map { [("happens_at", $0)] } ?? [])
        )
    }

    func memory(id: Int64, receiverID: Int64, on db: any SQLDatabase) async throws -> StoredMemory? {
        try await db.select().column(Self.memoryColumns).from("care_memories").where("id", .equal, id).where("receiver_id", .equal, receiverID)
            .first().map(decodeMemory)
    }

    func memory(clientID: String, receiverID: Int64, on db: any SQLDatabase) async throws -> StoredMemory? {
        try await db.select().column(Self.memoryColumns).from("care_memories").where("client_id", .equal, clientID).where(
            "receiver_id",
            .equal,
            receiverID
        )
        .first().map(decodeMemory)
    }

    /// What her list, her search, and a caregiver's reads filter by.
    struct MemoryFilter: Sendable {
        /// As typed: every word must start a word of the memory's title, description, custom fields or to-do lines.
        var words: [String] = []
        var categories: [String]?
        var types: [MemoryType]?
        var tag: String?
        var from: String?
        var to: String?
        /// Leave secured memories out (caregivers never learn of them; search does not reach them).
        var plainOnly = false
        /// Only memories with a reminder, or appointments and to-dos (a caregiver's `reminders` scope).
        var remindersOrPlans = false
    }

    /// One page of her memories, latest first (undated last): `limit + 1` are read so the caller knows if more follow.
    func memories(receiverID: Int64, filter: MemoryFilter, limit: Int, offset: Int, on db: any SQLDatabase) async throws -> [StoredMemory] {
        let query = db.select().column(Self.memoryColumns).from("care_memories")
            .where("receiver_id", .equal, receiverID).where("deleted_at", .is, SQLLiteral.null)
        if let driving = Self.onlyIndex(of: filter) {
            // Its index holds only her plain live memories, each with its time: the page is read from it in order,
            // each other word typed looked up for the memories found.
            let otherWords = driving.otherWords.map { word in
                SQLQueryString(
                    " AND EXISTS (SELECT 1 FROM care_memory_words o WHERE o.word_start = \(bind: word) AND o.memory_id = d.memory_id)"
                )
            }
            return try await query.where(
                SQLQueryString(
                    """
                    id IN (SELECT d.memory_id FROM \(ident: driving.table) d \
                    WHERE d.receiver_id = \(bind: receiverID) AND d.\(ident: driving.column) = \(bind: driving.value)\(SQLList(otherWords, separator: SQLRaw(""))) \
                    ORDER BY d.happens_at DESC, d.memory_id DESC LIMIT \(literal: limit + 1) OFFSET \(literal: offset))
                    """
                )
            )
            .where("secured", .equal, Int64(0))
            .orderBy("happens_at", .descending).orderBy("id", .descending).all().map(decodeMemory)
        }
        if filter.plainOnly || !filter.words.isEmpty || filter.categories != nil || filter.tag != nil || filter.from != nil || filter.to != nil {
            query.where("secured", .equal, Int64(0))
        }
        if !filter.words.isEmpty {
            let words = WordStarts.words(of: filter.words.joined(separator: " ")).prefix(8)
            // Typed, but nothing a word could start with (only punctuation): nothing matches.
            if words.isEmpty { query.where(SQLLiteral.boolean(false)) }
            for word in words {
                query.where(
                    SQLQueryString(
                        "id IN (SELECT memory_id FROM care_memory_words WHERE word_start = \(bind: word) AND receiver_id = \(bind: receiverID))"
                    )
                )
            }
        }
        if let categories = filter.categories {
            // One category reads its own range of `care_memories_category`, in the list's order.
            if categories.count == 1 { query.where("category", .equal, categories[0]) } else { query.where("category", .in, categories) }
        }
        if let types = filter.types { query.where("type", .in, types.map(\.rawValue)) }
        if let tag = filter.tag {
            query.where(
                SQLQueryString(
                    "id IN (SELECT memory_id FROM care_memory_tags WHERE receiver_id = \(bind: receiverID) AND tag = \(bind: tag.trimmed.lowercased()))"
                )
            )
        }
        if let from = filter.from { query.where("happens_at", .greaterThanOrEqual, from) }
        if let to = filter.to { query.where("happens_at", .lessThan, to).where("happens_at", .notEqual, "") }
        if filter.remindersOrPlans {
            query.where {
                $0.where("reminder_at", .isNot, SQLLiteral.null).orWhere("type", .in, MemoryType.allCases.filter(\.isPlan).map(\.rawValue))
            }
        }
        return try await query.orderBy("happens_at", .descending).orderBy("id", .descending).limit(limit + 1).offset(offset).all().map(decodeMemory)
    }

    /// The index a filter of one tag, or of words alone, is read from: the tag's, or the longest word's (the
    /// other words then looked up for each memory it finds). Nil for any other filter.
    private static func onlyIndex(of filter: MemoryFilter) -> (table: String, column: String, value: String, otherWords: [String])? {
        guard filter.categories == nil, filter.types == nil, filter.from == nil, filter.to == nil, !filter.remindersOrPlans else { return nil }
        if let tag = filter.tag, filter.words.isEmpty { return ("care_memory_tags", "tag", tag.trimmed.lowercased(), []) }
        let words = Array(WordStarts.words(of: filter.words.joined(separator: " ")).prefix(8))
        guard filter.tag == nil, let longest = words.max(by: { $0.count < $1.count }) else { return nil }
        return ("care_memory_words", "word_start", longest, words.filter { $0 != longest })
    }

    /// Her plain memories that name this contact (`4.1.5.1.1`), latest first.
    func memories(withContact contactID: Int64, receiverID: Int64, limit: Int, on db: any SQLDatabase) async throws -> [StoredMemory] {
        try await db.select().column(Self.memoryColumns).from("care_memories")
            .where("receiver_id", .equal, receiverID).where("deleted_at", .is, SQLLiteral.null)
            .where(SQLQueryString("id IN (SELECT memory_id FROM care_memory_people WHERE contact_id = \(bind: contactID))"))
            .orderBy("happens_at", .descending).orderBy("id", .descending).limit(limit).all().map(decodeMemory)
    }

    func memoryIDs(withContact contactID: Int64, on db: any SQLDatabase) async throws -> [Int64] {
        try await db.select().column("memory_id").from("care_memory_people").where("contact_id", .equal, contactID).all()
            .map { try $0.decode(column: "memory_id", as: Int64.self) }
    }

    func memoryChanges(receiverID: Int64, since: Int64, limit: Int, on db: any SQLDatabase) async throws -> [StoredMemory] {
        try await db.select().column(Self.memoryColumns).from("care_memories")
            .where("receiver_id", .equal, receiverID).where("change_number", .greaterThan, since)
            .orderBy("change_number").limit(limit).all().map(decodeMemory)
    }

    func memoryCount(receiverID: Int64, on db: any SQLDatabase) async throws -> (all: Int, secured: Int) {
        let row = try await db.raw(
            """
            SELECT COUNT(*) AS n, CAST(COALESCE(SUM(secured), 0) AS BIGINT) AS s FROM care_memories WHERE receiver_id = \(bind: receiverID) AND deleted_at IS NULL
            """
        ).first()
        return (try row?.decode(column: "n", as: Int.self) ?? 0, try row?.decode(column: "s", as: Int.self) ?? 0)
    }

    // MARK: Reminders

    struct DueReminder: Sendable {
        let id: Int64
        let receiverID: Int64
        let occurrence: Date
        let type: MemoryType
        let secured: Bool
        let title: String
        let reminderAt: String?
        let recurrence: String
    }

    /// Memories whose reminder is due by `now`, the earliest first.
    func dueReminders(now: Date, limit: Int, on db: any SQLDatabase) async throws -> [DueReminder] {
        try await db.select().columns("id", "receiver_id", "next_reminder_at", "type", "secured", "title", "reminder_at", "recurrence")
            .from("care_memories").where("next_reminder_at", .lessThanOrEqual, now.millisecondsSince1970)
            .orderBy("next_reminder_at").limit(limit).all().map { row in
                DueReminder(
                    id: try row.decode(column: "id", as: Int64.self),
                    receiverID: try row.decode(column: "receiver_id", as: Int64.self),
                    occurrence: Date(millisecondsSince1970: try row.decode(column: "next_reminder_at", as: Int64.self)),
                    type: MemoryType(rawValue: try row.decode(column: "type", as: String.self)) ?? .genericMemory,
                    secured: try row.decode(column: "secured", as: Int64.self) != 0,
                    title: try row.decode(column: "title", as: String.self),
                    reminderAt: try row.decode(column: "reminder_at", as: String?.self),
                    recurrence: try row.decode(column: "recurrence", as: String.self)
                )
            }
    }

    /// Moves a reminder from the occurrence just due to the next (and sets a plan's follow-up); false when
    /// another server moved it first, or the memory changed meanwhile.
    func advanceReminder(id: Int64, from occurrence: Date, to next: Date?, followUpAt: Date?, on db: any SQLDatabase) async throws -> Bool {
        let update = db.update("care_memories").set("next_reminder_at", to: SQLBind(next?.millisecondsSince1970))
        if let followUpAt {
            update.set("follow_up_at", to: followUpAt.millisecondsSince1970).set("follow_up_of", to: occurrence.millisecondsSince1970)
        }
        return try await update.where("id", .equal, id).where("next_reminder_at", .equal, occurrence.millisecondsSince1970)
            .returning("id").first() != nil
    }

    struct DueFollowUp: Sendable {
        let id: Int64
        let receiverID: Int64
        let receiverName: String
        /// The reminder it follows.
        let occurrence: Date
        let title: String
        let isOpen: Bool
    }

    func dueFollowUps(now: Date, limit: Int, on db: any SQLDatabase) async throws -> [DueFollowUp] {
        try await db.raw(
            """
            SELECT m.id, m.receiver_id, a.name, m.follow_up_of, m.title, m.status FROM care_memories m JOIN care_accounts a ON a.id = m.receiver_id
            WHERE m.follow_up_at <= \(bind: now.millisecondsSince1970) ORDER BY m.follow_up_at LIMIT \(literal: limit)
            """
        ).all().map { row in
            DueFollowUp(
                id: try row.decode(column: "id", as: Int64.self),
                receiverID: try row.decode(column: "receiver_id", as: Int64.self),
                receiverName: try row.decode(column: "name", as: String.self),
                occurrence: Date(millisecondsSince1970: try row.decode(column: "follow_up_of", as: Int64.self)),
                title: try row.decode(column: "title", as: String.self),
                isOpen: try row.decode(column: "status", as: String.self) == MemoryStatus.open.rawValue
            )
        }
    }

    /// Takes a follow-up once; false when another server took it first.
    func clearFollowUp(id: Int64, from occurrence: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("care_memories").set("follow_up_at", to: SQLLiteral.null).set("follow_up_of", to: SQLLiteral.null)
            .where("id", .equal, id).where("follow_up_of", .equal, occurrence.millisecondsSince1970).returning("id").first() != nil
    }

    /// The caregivers whose link to her grants her reminders, in force now.
    func caregivers(seeingRemindersOf receiverID: Int64, on db: any SQLDatabase) async throws -> [Int64] {
        try await db.select().columns("caregiver_id", "scopes").from("care_links")
            .where("receiver_id", .equal, receiverID).where("revoked_at", .is, SQLLiteral.null).all()
            .filter { CareGrant(stored: try $0.decode(column: "scopes", as: String.self), categories: "").allows(.reminders) }
            .map { try $0.decode(column: "caregiver_id", as: Int64.self) }
    }

    // MARK: Contacts

    private static let contactColumns = ColumnList([
        "id", "receiver_id", "client_id", "name", "phones", "email", "address", "company", "version", "change_number", "updated_at", "deleted_at"
    ])

    private func decodeContact(_ row: any SQLRow) throws -> CareContact {
        CareContact(
            id: try row.decode(column: "id", as: Int64.self),
            receiverID: try row.decode(column: "receiver_id", as: Int64.self),
            clientID: try row.decode(column: "client_id", as: String?.self),
            content: ContactContent(
                name: try row.decode(column: "name", as: String.self),
                phones: Self.lines(try row.decode(column: "phones", as: String.self)),
                email: try row.decode(column: "email", as: String.self),
                address: try row.decode(column: "address", as: String.self),
                company: try row.decode(column: "company", as: String.self)
            ),
            version: try row.decode(column: "version", as: Int64.self),
            changeNumber: try row.decode(column: "change_number", as: Int64.self),
            updatedAt: Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self)),
            deletedAt: try row.decode(column: "deleted_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    func insertContact(
        _ contact: ContactContent,
        clientID: String?,
        receiverID: Int64,
        changeNumber: Int64,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Int64? {
        try await db.insert(into: "care_contacts")
            .columns(
                "receiver_id",
                "client_id",
                "name",
                "phones",
                "email",
                "address",
                "company",
                "details",
                "search_text",
                "version",
                "change_number",
                "created_at",
                "updated_at"
            )
            .values(
                SQLBind(receiverID),
                SQLBind(clientID),
                SQLBind(contact.name),
                SQLBind(Self.joined(contact.phones)),
                SQLBind(contact.email),
                SQLBind(contact.address),
                SQLBind(contact.company),
                SQLBind(""),
                SQLBind(contact.searchText),
                SQLBind(Int64(1)),
                SQLBind(changeNumber),
                SQLBind(now.millisecondsSince1970),
                SQLBind(now.millisecondsSince1970)
            )
            .ignoringConflicts(with: ["receiver_id", "client_id"])
            .returning("id").first()?.decode(column: "id", as: Int64.self)
    }

    func updateContact(
        id: Int64,
        receiverID: Int64,
        version: Int64,
        with contact: ContactContent,
        changeNumber: Int64,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Bool {
        try await db.update("care_contacts")
            .set("name", to: contact.name).set("phones", to: Self.joined(contact.phones)).set("email", to: contact.email)
            .set("address", to: contact.address).set("company", to: contact.company).set("search_text", to: contact.searchText)
            .set("version", to: version + 1).set("change_number", to: changeNumber).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("receiver_id", .equal, receiverID).where("version", .equal, version).where(
                "deleted_at",
                .is,
                SQLLiteral.null
            )
            .returning("id").first() != nil
    }

    func deleteContact(id: Int64, receiverID: Int64, version: Int64, changeNumber: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        guard
            try await db.update("care_contacts")
                .set("name", to: "").set("phones", to: "").set("email", to: "").set("address", to: "").set("company", to: "")
                .set("search_text", to: "").set("version", to: version + 1).set("change_number", to: changeNumber)
                .set("updated_at", to: now.millisecondsSince1970).set("deleted_at", to: now.millisecondsSince1970)
                .where("id", .equal, id).where("receiver_id", .equal, receiverID).where("version", .equal, version).where(
                    "deleted_at",
                    .is,
                    SQLLiteral.null
                )
                .returning("id").first() != nil
        else { return false }
        try await db.delete(from: "care_memory_people").where("contact_id", .equal, id).run()
        return true
    }

    func contact(id: Int64, receiverID: Int64, on db: any SQLDatabase) async throws -> CareContact? {
        try await db.select().column(Self.contactColumns).from("care_contacts").where("id", .equal, id).where("receiver_id", .equal, receiverID)
            .first().map(decodeContact)
    }

    func contact(clientID: String, receiverID: Int64, on db: any SQLDatabase) async throws -> CareContact? {
        try await db.select().column(Self.contactColumns).from("care_contacts").where("client_id", .equal, clientID).where(
            "receiver_id",
            .equal,
            receiverID
        )
        .first().map(decodeContact)
    }

    /// Her contacts by name, `limit + 1` read; `words` match name, email, company or address.
    func contacts(receiverID: Int64, words: [String], limit: Int, offset: Int, on db: any SQLDatabase) async throws -> [CareContact] {
        let query = db.select().column(Self.contactColumns).from("care_contacts")
            .where("receiver_id", .equal, receiverID).where("deleted_at", .is, SQLLiteral.null)
        for word in words.prefix(8) {
            query.where(SQLQueryString("search_text LIKE \(bind: word.containsPattern) ESCAPE '\\'"))
        }
        return try await query.orderBy("name").orderBy("id").limit(limit + 1).offset(offset).all().map(decodeContact)
    }

    func contactIDs(receiverID: Int64, among ids: [Int64], on db: any SQLDatabase) async throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return Set(
            try await db.select().column("id").from("care_contacts")
                .where("receiver_id", .equal, receiverID).where("deleted_at", .is, SQLLiteral.null).where("id", .in, Array(Set(ids)))
                .all().map { try $0.decode(column: "id", as: Int64.self) }
        )
    }

    func contactChanges(receiverID: Int64, since: Int64, limit: Int, on db: any SQLDatabase) async throws -> [CareContact] {
        try await db.select().column(Self.contactColumns).from("care_contacts")
            .where("receiver_id", .equal, receiverID).where("change_number", .greaterThan, since)
            .orderBy("change_number").limit(limit).all().map(decodeContact)
    }

    func contactCount(receiverID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("care_contacts")
            .where("receiver_id", .equal, receiverID).where("deleted_at", .is, SQLLiteral.null)
            .first()?.decode(column: "n", as: Int.self) ?? 0
    }

    // MARK: Invitations and links

    private func decodeGrant(_ row: any SQLRow) throws -> CareGrant {
        CareGrant(stored: try row.decode(column: "scopes", as: String.self), categories: try row.decode(column: "categories", as: String.self))
    }

    /// A new invitation; nil when another already has this code (the caller draws another).
    func createInvitation(
        receiverID: Int64,
        codeHash: String,
        grant: CareGrant,
        now: Date,
        expiresAt: Date,
        on db: any SQLDatabase
    ) async throws -> Int64? {
        try await db.insert(into: "care_invitations")
            .columns("receiver_id", "code_hash", "scopes", "categories", "created_at", "expires_at")
            .values(
                SQLBind(receiverID),
                SQLBind(codeHash),
                SQLBind(grant.storedScopes),
                SQLBind(grant.storedCategories),
                SQLBind(now.millisecondsSince1970),
                SQLBind(expiresAt.millisecondsSince1970)
            )
            .ignoringConflicts(with: ["code_hash"])
            .returning("id").first()?.decode(column: "id", as: Int64.self)
    }

    private func decodeInvitation(_ row: any SQLRow) throws -> CareInvitation {
        CareInvitation(
            id: try row.decode(column: "id", as: Int64.self),
            receiverID: try row.decode(column: "receiver_id", as: Int64.self),
            grant: try decodeGrant(row),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            expiresAt: Date(millisecondsSince1970: try row.decode(column: "expires_at", as: Int64.self))
        )
    }

    /// Her invitations not yet used, withdrawn or expired, newest first.
    func openInvitations(receiverID: Int64, now: Date, on db: any SQLDatabase) async throws -> [CareInvitation] {
        try await db.select().columns("id", "receiver_id", "scopes", "categories", "created_at", "expires_at").from("care_invitations")
            .where("receiver_id", .equal, receiverID).where("used_at", .is, SQLLiteral.null).where("withdrawn_at", .is, SQLLiteral.null)
            .where("expires_at", .greaterThan, now.millisecondsSince1970)
            .orderBy("id", .descending).limit(50).all().map(decodeInvitation)
    }

    func withdrawInvitation(id: Int64, receiverID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("care_invitations").set("withdrawn_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("receiver_id", .equal, receiverID).where("used_at", .is, SQLLiteral.null).where(
                "withdrawn_at",
                .is,
                SQLLiteral.null
            )
            .returning("id").first() != nil
    }

    /// Uses an invitation once; nil when the code is unknown, used, withdrawn or expired.
    func useInvitation(codeHash: String, now: Date, on db: any SQLDatabase) async throws -> CareInvitation? {
        try await db.update("care_invitations").set("used_at", to: now.millisecondsSince1970)
            .where("code_hash", .equal, codeHash).where("used_at", .is, SQLLiteral.null).where("withdrawn_at", .is, SQLLiteral.null)
            .where("expires_at", .greaterThan, now.millisecondsSince1970)
            .returning("id", "receiver_id", "scopes", "categories", "created_at", "expires_at").first().map(decodeInvitation)
    }

    private static let linkColumns = """
        l.id, l.receiver_id, l.caregiver_id, l.scopes, l.categories, l.created_at, l.revoked_at, r.name AS receiver_name, g.name AS caregiver_name
        """

    private func decodeLink(_ row: any SQLRow) throws -> CareLink {
        CareLink(
            id: try row.decode(column: "id", as: Int64.self),
            receiverID: try row.decode(column: "receiver_id", as: Int64.self),
            caregiverID: try row.decode(column: "caregiver_id", as: Int64.self),
            grant: try decodeGrant(row),
            receiverName: try row.decode(column: "receiver_name", as: String.self),
            caregiverName: try row.decode(column: "caregiver_name", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            revokedAt: try row.decode(column: "revoked_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    private func links(where condition: SQLQueryString, on db: any SQLDatabase) async throws -> [CareLink] {
        try await db.raw(
            """
            SELECT \(unsafeRaw: Self.linkColumns) FROM care_links l
            JOIN care_accounts r ON r.id = l.receiver_id JOIN care_accounts g ON g.id = l.caregiver_id
            WHERE \(condition) ORDER BY l.revoked_at IS NOT NULL, l.id DESC LIMIT 200
            """
        ).all().map(decodeLink)
    }

    /// A link by id, revoked or not.
    func link(id: Int64, on db: any SQLDatabase) async throws -> CareLink? {
        try await links(where: "l.id = \(bind: id)", on: db).first
    }

    /// Her links (or, with `caregiverID`, his), those in force first.
    func links(receiverID: Int64, on db: any SQLDatabase) async throws -> [CareLink] {
        try await links(where: "l.receiver_id = \(bind: receiverID)", on: db)
    }

    func links(caregiverID: Int64, on db: any SQLDatabase) async throws -> [CareLink] {
        try await links(where: "l.caregiver_id = \(bind: caregiverID)", on: db)
    }

    /// His link in force to whoever owns the memory `memoryID`, if any.
    func activeLink(caregiverID: Int64, toOwnerOf memoryID: Int64, on db: any SQLDatabase) async throws -> CareLink? {
        try await links(
            where: """
                l.caregiver_id = \(bind: caregiverID) AND l.revoked_at IS NULL
                AND l.receiver_id = (SELECT receiver_id FROM care_memories WHERE id = \(bind: memoryID))
                """,
            on: db
        ).first
    }

    /// The link in force between the two, if any.
    func activeLink(receiverID: Int64, caregiverID: Int64, on db: any SQLDatabase) async throws -> CareLink? {
        try await links(where: "l.receiver_id = \(bind: receiverID) AND l.caregiver_id = \(bind: caregiverID) AND l.revoked_at IS NULL", on: db).first
    }

    func createLink(receiverID: Int64, caregiverID: Int64, grant: CareGrant, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        try await db.insert(into: "care_links").columns("receiver_id", "caregiver_id", "scopes", "categories", "created_at")
            .values(
                SQLBind(receiverID),
                SQLBind(caregiverID),
                SQLBind(grant.storedScopes),
                SQLBind(grant.storedCategories),
                SQLBind(now.millisecondsSince1970)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
    }

    func changeLink(id: Int64, grant: CareGrant, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("care_links").set("scopes", to: grant.storedScopes).set("categories", to: grant.storedCategories)
            .where("id", .equal, id).where("revoked_at", .is, SQLLiteral.null).returning("id").first() != nil
    }

    func revokeLink(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("care_links").set("revoked_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("revoked_at", .is, SQLLiteral.null).returning("id").first() != nil
    }

    func addLinkEvent(
        linkID: Int64,
        event: CareLinkEvent.Kind,
        by actor: CareLinkEvent.Actor,
        grant: CareGrant,
        now: Date,
        on db: any SQLDatabase
    ) async throws {
        try await db.insert(into: "care_link_events").columns("link_id", "at", "event", "actor_role", "actor_id", "scopes", "categories")
            .values(
                SQLBind(linkID),
                SQLBind(now.millisecondsSince1970),
                SQLBind(event.rawValue),
                SQLBind(actor.role),
                SQLBind(actor.id),
                SQLBind(grant.storedScopes),
                SQLBind(grant.storedCategories)
            ).run()
    }

    func linkEvents(linkID: Int64, on db: any SQLDatabase) async throws -> [CareLinkEvent] {
        try await db.select().columns("at", "event", "actor_role", "actor_id", "scopes", "categories").from("care_link_events")
            .where("link_id", .equal, linkID).orderBy("id").all().map { row in
                CareLinkEvent(
                    at: Date(millisecondsSince1970: try row.decode(column: "at", as: Int64.self)),
                    kind: CareLinkEvent.Kind(rawValue: try row.decode(column: "event", as: String.self)) ?? .changed,
                    actor: CareLinkEvent.Actor(
                        role: try row.decode(column: "actor_role", as: String.self),
                        id: try row.decode(column: "actor_id", as: Int64?.self)
                    ),
                    grant: try decodeGrant(row)
                )
            }
    }

    /// How many links a care receiver or caregiver has in force.
    func activeLinkCount(accountID: Int64, kind: CareAccountKind, on db: any SQLDatabase) async throws -> Int {
        try await db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from("care_links")
            .where(kind == .careReceiver ? "receiver_id" : "caregiver_id", .equal, accountID).where("revoked_at", .is, SQLLiteral.null)
            .first()?.decode(column: "n", as: Int.self) ?? 0
    }

    // MARK: The access log

    func logAccess(
        receiverID: Int64,
        caregiverID: Int64,
        what: CareAccessEntry.What,
        recordID: Int64?,
        now: Date,
        on db: any SQLDatabase
    ) async throws {
        try await db.insert(into: "care_access_log").columns("receiver_id", "caregiver_id", "at", "what", "record_id")
            .values(SQLBind(receiverID), SQLBind(caregiverID), SQLBind(now.millisecondsSince1970), SQLBind(what.rawValue), SQLBind(recordID)).run()
    }

    /// What caregivers read of hers, newest first, with who read it (nil when that caregiver's account is gone).
    func accessLog(receiverID: Int64, limit: Int, offset: Int, on db: any SQLDatabase) async throws -> [CareAccessEntry] {
        try await db.raw(
            """
            SELECT a.at, a.what, a.record_id, a.caregiver_id, g.name FROM care_access_log a LEFT JOIN care_accounts g ON g.id = a.caregiver_id
            WHERE a.receiver_id = \(bind: receiverID) ORDER BY a.id DESC LIMIT \(literal: limit + 1) OFFSET \(literal: offset)
            """
        ).all().map { row in
            CareAccessEntry(
                at: Date(millisecondsSince1970: try row.decode(column: "at", as: Int64.self)),
                caregiverID: try row.decode(column: "caregiver_id", as: Int64.self),
                caregiverName: try row.decode(column: "name", as: String?.self),
                what: CareAccessEntry.What(rawValue: try row.decode(column: "what", as: String.self)) ?? .memories,
                recordID: try row.decode(column: "record_id", as: Int64?.self)
            )
        }
    }

    // MARK: Her location

    func saveLocation(_ location: CareLocation, receiverID: Int64, on db: any SQLDatabase) async throws {
        try await db.insert(into: "care_locations").columns("receiver_id", "latitude", "longitude", "accuracy_metres", "at")
            .values(
                SQLBind(receiverID),
                SQLBind(location.latitude),
                SQLBind(location.longitude),
                SQLBind(location.accuracyMetres),
                SQLBind(location.at.millisecondsSince1970)
            )
            .onConflict(with: ["receiver_id"]) {
                $0.set(excludedValueOf: "latitude").set(excludedValueOf: "longitude").set(excludedValueOf: "accuracy_metres").set(
                    excludedValueOf: "at"
                )
            }
            .run()
    }

    func location(receiverID: Int64, on db: any SQLDatabase) async throws -> CareLocation? {
        try await db.select().columns("latitude", "longitude", "accuracy_metres", "at").from("care_locations").where(
            "receiver_id",
            .equal,
            receiverID
        )
        .first().map {
            CareLocation(
                latitude: try $0.decode(column: "latitude", as: Double.self),
                longitude: try $0.decode(column: "longitude", as: Double.self),
                accuracyMetres: try $0.decode(column: "accuracy_metres", as: Double?.self),
                at: Date(millisecondsSince1970: try $0.decode(column: "at", as: Int64.self))
            )
        }
    }

    // MARK: The program's settings

    func settings(on db: any SQLDatabase) async throws -> CareSettings {
        guard let row = try await db.select().columns("support_phone", "support_email").from("care_settings").where("id", .equal, Int64(1)).first()
        else { return CareSettings(supportPhone: "", supportEmail: "") }
        return CareSettings(
            supportPhone: try row.decode(column: "support_phone", as: String.self),
            supportEmail: try row.decode(column: "support_email", as: String.self)
        )
    }

    func saveSettings(_ settings: CareSettings, by staffID: Int64?, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "care_settings").columns("id", "support_phone", "support_email", "updated_at", "updated_by")
            .values(
                SQLBind(Int64(1)),
                SQLBind(settings.supportPhone),
                SQLBind(settings.supportEmail),
                SQLBind(now.millisecondsSince1970),
                SQLBind(staffID)
            )
            .onConflict(with: ["id"]) {
                $0.set(excludedValueOf: "support_phone").set(excludedValueOf: "support_email").set(excludedValueOf: "updated_at").set(
                    excludedValueOf: "updated_by"
                )
            }
            .run()
    }
}
