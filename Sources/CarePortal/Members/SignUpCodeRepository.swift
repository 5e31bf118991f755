import Foundation
import PortalPlatform
import SQLKit

/// A one-time code an administrator reads to a woman over the phone so she can register in the app.
public struct SignUpCode: Sendable, Equatable, Identifiable {
    public enum Status: String, Sendable, CaseIterable {
        case unused, used, expired, revoked

        public var title: String {
            switch self {
            case .unused: "Not used yet"
            case .used: "Used"
            case .expired: "Expired"
            case .revoked: "Revoked"
            }
        }
    }

    public var id: Int64
    public var note: String
    public var createdAt: Date
    public var expiresAt: Date
    public var usedAt: Date?
    public var usedByMemberID: Int64?
    public var revokedAt: Date?

    public func status(at now: Date) -> Status {
        if usedAt != nil { return .used }
        if revokedAt != nil { return .revoked }
        return expiresAt <= now ? .expired : .unused
    }

    /// Letters and digits nobody mistakes for each other on the phone: no 0/O, no 1/I/L.
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    static let length = 6

    /// A new code from the secure generator, without modulo bias.
    static func generate(randomBytes: (Int) -> [UInt8]) -> String {
        let limit = UInt8(256 - 256 % alphabet.count)
        var characters: [Character] = []
        while characters.count < length {
            for byte in randomBytes(length * 2) where byte < limit && characters.count < length {
                characters.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(characters)
    }

    /// Codes are compared without regard to case or the spaces people type between groups.
    static func normalized(_ typed: String) -> String {
        typed.uppercased().filter { !$0.isWhitespace && $0 != "-" }
    }
}

/// The only place sign-up codes are read and written. Only a hash of each code is kept.
struct SignUpCodeRepository: Sendable {
    func create(code: String, note: String, lifetime: TimeInterval, createdBy: Int64, now: Date, on db: any SQLDatabase) async throws -> SignUpCode {
        let expires = now.addingTimeInterval(lifetime)
        let row = try await db.insert(into: "sign_up_codes")
            .columns("code_hash", "note", "created_by", "created_at", "expires_at")
            .values(
                SQLBind(SecretToken.hash(SignUpCode.normalized(code))),
                SQLBind(note),
                SQLBind(createdBy),
                SQLBind(now.millisecondsSince1970),
                SQLBind(expires.millisecondsSince1970)
            )
            .returning("id")
            .first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw StorageInconsistency(description: "insert into sign_up_codes returned no id")
        }
        try await writeSearchWords(codeID: id, note: note, createdAt: now.millisecondsSince1970, on: db)
        return SignUpCode(id: id, note: note, createdAt: now, expiresAt: expires, usedAt: nil, usedByMemberID: nil, revokedAt: nil)
    }

    /// Draws a new code, unlike any other, and stores its hash; returns the code to show once.
    func issue(
        note: String,
        lifetime: TimeInterval,
        createdBy: Int64,
        randomBytes: (Int) -> [UInt8],
        now: Date,
        on db: any SQLDatabase
    ) async throws -> (code: String, created: SignUpCode) {
        // 31^6 codes: a clash with an existing one is rare, and simply drawn again.
        var code = SignUpCode.generate(randomBytes: randomBytes)
        while try await exists(code: code, on: db) {
            code = SignUpCode.generate(randomBytes: randomBytes)
        }
        let created = try await create(code: code, note: note, lifetime: lifetime, createdBy: createdBy, now: now, on: db)
        return (code, created)
    }

    func exists(code: String, on db: any SQLDatabase) async throws -> Bool {
        try await db.select().column("id").from("sign_up_codes")
            .where("code_hash", .equal, SecretToken.hash(SignUpCode.normalized(code))).first() != nil
    }

    /// Marks a usable code as used by a member; returns its id, or nil when the code is unknown, used, expired or revoked.
    /// The conditions sit in the UPDATE itself, so two registrations racing for one code cannot both win.
    func consume(code: String, memberID: Int64, now: Date, on db: any SQLDatabase) async throws -> Int64? {
        try await db.update("sign_up_codes")
            .set("used_at", to: now.millisecondsSince1970)
            .set("used_by_member_id", to: memberID)
            .where("code_hash", .equal, SecretToken.hash(SignUpCode.normalized(code)))
            .where("used_at", .is, SQLLiteral.null)
            .where("revoked_at", .is, SQLLiteral.null)
            .where("expires_at", .greaterThan, now.millisecondsSince1970)
            .returning("id")
            .first()?
            .decode(column: "id", as: Int64.self)
    }

    /// True when the code can be used now (checked before the slow work of hashing a password).
    func isUsable(code: String, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.select().column("id").from("sign_up_codes")
            .where("code_hash", .equal, SecretToken.hash(SignUpCode.normalized(code)))
            .where("used_at", .is, SQLLiteral.null)
            .where("revoked_at", .is, SQLLiteral.null)
            .where("expires_at", .greaterThan, now.millisecondsSince1970)
            .first() != nil
    }

    func find(id: Int64, on db: any SQLDatabase) async throws -> SignUpCode? {
        try await db.select().column("*").from("sign_up_codes").where("id", .equal, id).first().map(decode)
    }

    /// Revokes a code that is still usable; returns false when it was already used, expired or revoked.
    func revoke(id: Int64, by accountID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("sign_up_codes")
            .set("revoked_at", to: now.millisecondsSince1970)
            .set("revoked_by", to: accountID)
            .where("id", .equal, id)
            .where("used_at", .is, SQLLiteral.null)
            .where("revoked_at", .is, SQLLiteral.null)
            .where("expires_at", .greaterThan, now.millisecondsSince1970)
            .returning("id")
            .first() != nil
    }

    /// Codes newest first, by what became of them and by the words of their notes: every word typed the start
    /// of one of the note's words, the page read from the index of word starts in the list's order.
    func list(status: SignUpCode.Status?, search: String, page: PageRequest, now: Date, on db: any SQLDatabase) async throws -> PageOf<SignUpCode> {
        let time = now.millisecondsSince1970
        let words = WordStarts.words(of: search)
        func byStatus(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            switch status {
            case .unused?:
                builder.where("used_at", .is, SQLLiteral.null).where("revoked_at", .is, SQLLiteral.null)
                    .where("expires_at", .greaterThan, time)
            case .used?:
                builder.where("used_at", .isNot, SQLLiteral.null)
            case .expired?:
                builder.where("used_at", .is, SQLLiteral.null).where("revoked_at", .is, SQLLiteral.null)
                    .where("expires_at", .lessThanOrEqual, time)
            case .revoked?:
                builder.where("used_at", .is, SQLLiteral.null).where("revoked_at", .isNot, SQLLiteral.null)
            case nil:
                break
            }
            return builder
        }
        /// The codes whose notes' words start with every word typed, under the names `sign_up_codes` gives the same
        /// values, the status looked up for those found.
        func matching(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            builder.fromWordStarts(words, table: "sign_up_code_words", owner: "code_id", copied: ["created_at"])
            if status != nil {
                builder.where(
                    SQLBinaryExpression(SQLIdentifier("id"), .in, SQLGroupExpression(byStatus(db.select().column("id").from("sign_up_codes")).select))
                )
            }
            return builder
        }
        let searching = !search.trimmed.isEmpty
        return try await db.seek(
            page,
            order: ListOrder("created", keys: [.integer("created_at"), .integer("id")], descending: true),
            rows: { searching ? $0.from("sign_up_codes") : byStatus($0.from("sign_up_codes")) },
            counted: searching ? matching : nil,
            idsFirst: searching ? matching : nil,
            decode: decode
        )
    }

    /// Writes the rows of the starts of the note's words (migration 50).
    func writeSearchWords(codeID: Int64, note: String, createdAt: Int64, on db: any SQLDatabase) async throws {
        try await db.replaceSearchRows(
            in: "sign_up_code_words",
            column: "word_start",
            values: WordStarts.starts(of: note).sorted(),
            owner: "code_id",
            id: codeID,
            copied: [("created_at", createdAt)]
        )
    }

    private func decode(_ row: any SQLRow) throws -> SignUpCode {
        SignUpCode(
            id: try row.decode(column: "id", as: Int64.self),
            note: try row.decode(column: "note", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            expiresAt: Date(millisecondsSince1970: try row.decode(column: "expires_at", as: Int64.self)),
            usedAt: try row.decode(column: "used_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            usedByMemberID: try row.decode(column: "used_by_member_id", as: Int64?.self),
            revokedAt: try row.decode(column: "revoked_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }
}
