import Foundation
import PortalPlatform
import SQLKit

/// What people send their program's staff from an app: feedback, or a report of something that went
/// wrong. Plain text, escaped wherever it is shown; one inbox per program (`FeedbackInboxController`).
struct FeedbackMessage: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        case feedback
        case bugReport = "bug_report"

        var title: String {
            switch self {
            case .feedback: "Feedback"
            case .bugReport: "Something went wrong"
            }
        }
    }

    /// What every app is answered when its message is kept (201).
    struct Received: Encodable, Sendable {
        let id: Int64
        let submittedAt: Date
    }

    let id: Int64
    let author: AppAccountRef
    let kind: Kind
    let body: String
    let submittedAt: Date
    let handledAt: Date?
}

enum FeedbackRules {
    static let maximumLength = 4_000

    /// The problem with a message, or nil when it will do.
    static func problem(_ message: String) -> String? {
        if message.isEmpty { return "Write your feedback" }
        if message.count > maximumLength { return "Feedback must be \(maximumLength) characters or fewer" }
        return nil
    }

    /// The problem with a kind as an app sends it (`feedback` when it sends none), or nil.
    static func kindProblem(_ kind: String?) -> String? {
        guard let kind, FeedbackMessage.Kind(rawValue: kind) == nil else { return nil }
        return "Use \(FeedbackMessage.Kind.allCases.map(\.rawValue).joined(separator: " or "))"
    }
}

/// The only place the feedback inbox's SQL lives; every statement is limited to one program.
struct FeedbackRepository {
    let program: Program

    private static let columns = ColumnList(["id", "author_role", "author_id", "kind", "body", "submitted_at", "handled_at"])

    func add(_ kind: FeedbackMessage.Kind, body: String, from author: AppAccountRef, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        try await db.insert(into: "feedback").columns("program", "author_role", "author_id", "kind", "body", "submitted_at")
            .values(
                SQLBind(program.id),
                SQLBind(author.role),
                SQLBind(author.accountID),
                SQLBind(kind.rawValue),
                SQLBind(body),
                SQLBind(now.millisecondsSince1970)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
    }

    private func decode(_ row: any SQLRow) throws -> FeedbackMessage {
        FeedbackMessage(
            id: try row.decode(column: "id", as: Int64.self),
            author: AppAccountRef(
                role: try row.decode(column: "author_role", as: String.self),
                accountID: try row.decode(column: "author_id", as: Int64.self)
            ),
            kind: FeedbackMessage.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .feedback,
            body: try row.decode(column: "body", as: String.self),
            submittedAt: Date(millisecondsSince1970: try row.decode(column: "submitted_at", as: Int64.self)),
            handledAt: try row.decode(column: "handled_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    /// The program's messages, newest first: everyone's (an export), or one account's.
    func messages(from author: AppAccountRef? = nil, on db: any SQLDatabase) async throws -> [FeedbackMessage] {
        let query = db.select().column(Self.columns).from("feedback").where("program", .equal, program.id)
        if let author { query.where("author_role", .equal, author.role).where("author_id", .equal, author.accountID) }
        return try await query.orderBy("submitted_at", .descending).orderBy("id", .descending).all().map(decode)
    }

    /// One page of the inbox, newest first: the messages not yet handled, or every one, read from the index
    /// of the program's messages by their time (`feedback_waiting`, `feedback_newest`).
    func page(_ page: PageRequest, unhandledOnly: Bool, on db: any SQLDatabase) async throws -> PageOf<FeedbackMessage> {
        try await db.seek(
            page,
            order: ListOrder("newest", keys: [.integer("submitted_at"), .integer("id")], descending: true),
            columns: [Self.columns],
            rows: { builder in
                builder.from("feedback").where("program", .equal, program.id)
                return unhandledOnly ? builder.where("handled_at", .is, SQLLiteral.null) : builder
            },
            decode: decode
        )
    }

    /// Marks a message handled: its author, or nil when the program has no such message or it already was.
    func markHandled(id: Int64, by staffID: Int64, now: Date, on db: any SQLDatabase) async throws -> AppAccountRef? {
        try await db.update("feedback")
            .set("handled_at", to: now.millisecondsSince1970).set("handled_by", to: staffID)
            .where("id", .equal, id).where("program", .equal, program.id).where("handled_at", .is, SQLLiteral.null)
            .returning("author_role", "author_id").first()
            .map {
                AppAccountRef(
                    role: try $0.decode(column: "author_role", as: String.self),
                    accountID: try $0.decode(column: "author_id", as: Int64.self)
                )
            }
    }

    func exists(id: Int64, on db: any SQLDatabase) async throws -> Bool {
        try await db.select().column("id").from("feedback").where("id", .equal, id).where("program", .equal, program.id).first() != nil
    }

    /// An account's messages go with the account.
    static func deleteAll(from author: AppAccountRef, on db: any SQLDatabase) async throws {
        try await db.delete(from: "feedback").where("author_role", .equal, author.role).where("author_id", .equal, author.accountID).run()
    }
}
