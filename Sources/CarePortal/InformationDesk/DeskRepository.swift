import Foundation
import PortalPlatform
import SQLKit
import SafeHTML

/// The only place the information desk's tables are read and written. Full-text search is SQLite's
/// FTS5 or PostgreSQL's text search, chosen by engine behind the same methods.
struct DeskRepository: Sendable {
    let engine: Database.Engine

    // MARK: Threads

    func insertThread(
        title: String,
        body: StoredText,
        authorMemberID: Int64,
        isAnonymous: Bool,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Int64 {
        let time = now.millisecondsSince1970
        let row = try await db.insert(into: "desk_threads")
            .columns("title", "body_source", "body_html", "body_text", "author_member_id", "is_anonymous", "created_at", "last_activity_at")
            .values(
                SQLBind(title),
                SQLBind(body.source),
                SQLBind(body.html),
                SQLBind(body.text),
                SQLBind(authorMemberID),
                SQLBind(isAnonymous),
                SQLBind(time),
                SQLBind(time)
            )
            .returning("id")
            .first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else { throw DeskStorageError.noIDReturned }
        try await reindex(threadID: id, on: db)
        return id
    }

    func findThread(id: Int64, on db: any SQLDatabase) async throws -> DeskThread? {
        try await db.raw("\(unsafeRaw: Self.threadSelect) WHERE t.id = \(bind: id)").first().map(decodeThread)
    }

    /// One page of threads for the list, filtered, searched and sorted.
    /// `total` is how many the filter holds, when the caller already knows it from `counts`.
    func list(_ query: DeskListQuery, total knownTotal: Int? = nil, on db: any SQLDatabase) async throws -> PageOf<DeskThread> {
        let conditions = self.conditions(query, filter: query.filter)
        var total = knownTotal ?? 0
        if knownTotal == nil {
            total =
                try await db.raw("SELECT COUNT(*) AS count FROM desk_threads t WHERE \(conditions)").first()?
                .decode(column: "count", as: Int.self) ?? 0
        }
        let order: SQLQueryString =
            switch query.sort {
            case .oldestWaiting: "t.created_at ASC, t.id ASC"
            case .newest: "t.created_at DESC, t.id DESC"
            case .activity: "t.last_activity_at DESC, t.id DESC"
            }
        // The page's ids are chosen first from the narrow rows, and only those twenty are read whole:
        // sorting the matches of a search with every column of every match costs far more.
        let rows = try await db.raw(
            """
            \(unsafeRaw: Self.threadSelect) WHERE t.id IN (
                SELECT t.id FROM desk_threads t WHERE \(conditions) ORDER BY \(order)
                LIMIT \(literal: query.page.size) OFFSET \(literal: query.page.offset)
            ) ORDER BY \(order)
            """
        ).all()
        return PageOf(items: try rows.map(decodeThread), totalCount: total, request: query.page)
    }

    /// The list's version (`list_versions`), which the database raises whenever anything the list
    /// shows or counts may have changed.
    func listVersion(on db: any SQLDatabase) async throws -> Int64 {
        guard let row = try await db.raw("SELECT version FROM list_versions WHERE list = 'desk'").first() else {
            throw DeskStorageError.noListVersion
        }
        return try row.decode(column: "version", as: Int64.self)
    }

    /// How many threads each filter holds under the same search and moderation rules.
    func counts(_ query: DeskListQuery, on db: any SQLDatabase) async throws -> DeskCounts {
        // Without a search, three counts, each of which an index answers, rather than one pass adding up
        // every row; a search's matches are few, and found once rather than three times.
        let counting: SQLQueryString =
            Self.searchWords(query.search).isEmpty
            ? """
            SELECT (SELECT COUNT(*) FROM desk_threads t WHERE \(conditions(query, filter: .all))) AS total,
                (SELECT COUNT(*) FROM desk_threads t WHERE \(conditions(query, filter: .waiting))) AS waiting,
                (SELECT COUNT(*) FROM desk_threads t WHERE \(conditions(query, filter: .accepted))) AS accepted
            """
            : """
            SELECT COUNT(*) AS total,
                COALESCE(SUM(CASE WHEN t.answered_at IS NULL THEN 1 ELSE 0 END), 0) AS waiting,
                COALESCE(SUM(CASE WHEN t.accepted_reply_id IS NOT NULL THEN 1 ELSE 0 END), 0) AS accepted
            FROM desk_threads t WHERE \(conditions(query, filter: .all))
            """
        guard let row = try await db.raw(counting).first() else { return DeskCounts() }
        let total = try row.decode(column: "total", as: Int.self)
        let waiting = try row.decode(column: "waiting", as: Int.self)
        return DeskCounts(waiting: waiting, answered: total - waiting, accepted: try row.decode(column: "accepted", as: Int.self), all: total)
    }

    private func conditions(_ query: DeskListQuery, filter: DeskFilter) -> SQLQueryString {
        var parts: [SQLQueryString] = []
        if !query.includeModerated { parts.append("t.moderation = 'visible'") }
        switch filter {
        case .waiting: parts.append("t.answered_at IS NULL")
        case .answered: parts.append("t.answered_at IS NOT NULL")
        case .accepted: parts.append("t.accepted_reply_id IS NOT NULL")
        case .all: break
        }
        if let search = searchCondition(query.search) { parts.append(search) }
        return parts.isEmpty ? "1 = 1" : parts.joined(separator: " AND ")
    }

    /// The thread ids whose words match every word of `text`, or nil when it holds no words.
    private func searchCondition(_ text: String) -> SQLQueryString? {
        let words = Self.searchWords(text)
        guard !words.isEmpty else { return nil }
        switch engine {
        case .sqlite:
            // Each word quoted, so nothing typed is read as FTS5 query syntax; together they must all match.
            let match = words.map { "\"\($0)\"" }.joined(separator: " ")
            return "t.id IN (SELECT rowid FROM desk_search WHERE desk_search MATCH \(bind: match))"
        case .postgres:
            return "t.search_document @@ plainto_tsquery('english', \(bind: words.joined(separator: " ")))"
        }
    }

    /// Letters and digits only, at most twelve words.
    static func searchWords(_ text: String) -> [String] {
        text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).prefix(12).map { String($0).lowercased() }
    }

    private static let threadSelect = """
        SELECT t.id, t.title, t.body_source, t.body_html, t.body_text, t.author_member_id, t.is_anonymous, t.created_at,
            t.last_activity_at, t.answered_at, t.reply_count, t.accepted_reply_id, t.moderation, t.moderation_reason,
            t.hidden_by_flags, t.replies_version, m.pseudonym AS author_pseudonym, m.avatar AS author_avatar
        FROM desk_threads t JOIN members m ON m.id = t.author_member_id
        """

    private func decodeThread(_ row: any SQLRow) throws -> DeskThread {
        DeskThread(
            id: try row.decode(column: "id", as: Int64.self),
            title: try row.decode(column: "title", as: String.self),
            body: StoredText(
                source: try row.decode(column: "body_source", as: String.self),
                html: try row.decode(column: "body_html", as: String.self),
                text: try row.decode(column: "body_text", as: String.self)
            ),
            author: .member(
                id: try row.decode(column: "author_member_id", as: Int64.self),
                pseudonym: try row.decode(column: "author_pseudonym", as: String.self),
                avatar: Avatar.member(try row.decode(column: "author_avatar", as: String.self)) ?? .memberDefault
            ),
            isAnonymous: try row.decode(column: "is_anonymous", as: Bool.self),
            createdAt: try date(row, "created_at"),
            lastActivityAt: try date(row, "last_activity_at"),
            answeredAt: try optionalDate(row, "answered_at"),
            replyCount: try row.decode(column: "reply_count", as: Int.self),
            acceptedReplyID: try row.decode(column: "accepted_reply_id", as: Int64?.self),
            moderation: Moderation(rawValue: try row.decode(column: "moderation", as: String.self)) ?? .hidden,
            moderationReason: try row.decode(column: "moderation_reason", as: String?.self),
            hiddenByFlags: try row.decode(column: "hidden_by_flags", as: Bool.self),
            repliesVersion: try row.decode(column: "replies_version", as: Int64.self)
        )
    }

    /// Makes changes to one thread take turns (PostgreSQL; SQLite transactions already do), so
    /// counting flags and acting on the count cannot interleave.
    func lock(threadID: Int64, on db: any SQLDatabase) async throws {
        if engine == .postgres { try await db.raw("SELECT id FROM desk_threads WHERE id = \(bind: threadID) FOR UPDATE").run() }
    }

    func setAcceptedReply(threadID: Int64, replyID: Int64?, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("desk_threads")
            .set("accepted_reply_id", to: replyID.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
            .set("last_activity_at", to: now.millisecondsSince1970)
            .where("id", .equal, threadID)
            .run()
    }

    /// Recounts the visible replies and when staff first answered, after a reply is added, hidden or restored.
    func refreshSummary(threadID: Int64, on db: any SQLDatabase) async throws {
        try await db.raw(
            """
            UPDATE desk_threads SET
                reply_count = (SELECT COUNT(*) FROM desk_replies r WHERE r.thread_id = \(bind: threadID) AND r.moderation = 'visible'),
                answered_at = (SELECT MIN(r.created_at) FROM desk_replies r
                    WHERE r.thread_id = \(bind: threadID) AND r.moderation = 'visible' AND r.author_staff_id IS NOT NULL),
                accepted_reply_id = (SELECT r.id FROM desk_replies r
                    WHERE r.id = desk_threads.accepted_reply_id AND r.moderation = 'visible')
            WHERE id = \(bind: threadID)
            """
        ).run()
    }

    func touch(threadID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("desk_threads").set("last_activity_at", to: now.millisecondsSince1970).where("id", .equal, threadID).run()
    }

    // MARK: Replies

    func insertReply(threadID: Int64, author: DeskAuthor, body: StoredText, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        let row = try await db.insert(into: "desk_replies")
            .columns("thread_id", "author_member_id", "author_staff_id", "body_source", "body_html", "body_text", "created_at")
            .values(
                SQLBind(threadID),
                SQLBind(author.memberID),
                SQLBind(author.staffID),
                SQLBind(body.source),
                SQLBind(body.html),
                SQLBind(body.text),
                SQLBind(now.millisecondsSince1970)
            )
            .returning("id")
            .first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else { throw DeskStorageError.noIDReturned }
        try await touch(threadID: threadID, now: now, on: db)
        try await refreshSummary(threadID: threadID, on: db)
        try await reindex(threadID: threadID, on: db)
        return id
    }

    /// A thread's replies in the order they were posted. Pages read them through
    /// `InformationDesk.replies(of:on:)`, which keeps them while the thread's `repliesVersion` stands.
    func replies(threadID: Int64, on db: any SQLDatabase) async throws -> [DeskReply] {
        try await db.raw("\(unsafeRaw: Self.replySelect) WHERE r.thread_id = \(bind: threadID) ORDER BY r.id").all().map(decodeReply)
    }

    func findReply(id: Int64, on db: any SQLDatabase) async throws -> DeskReply? {
        try await db.raw("\(unsafeRaw: Self.replySelect) WHERE r.id = \(bind: id)").first().map(decodeReply)
    }

    /// Replaces a reply's body, keeping what it said before.
    func editReply(id: Int64, previous: StoredText, body: StoredText, now: Date, on db: any SQLDatabase) async throws {
        let time = now.millisecondsSince1970
        try await db.insert(into: "desk_reply_versions").columns("reply_id", "body_source", "body_html", "replaced_at")
            .values(SQLBind(id), SQLBind(previous.source), SQLBind(previous.html), SQLBind(time))
            .run()
        try await db.update("desk_replies")
            .set("body_source", to: body.source).set("body_html", to: body.html).set("body_text", to: body.text)
            .set("edited_at", to: time)
            .where("id", .equal, id)
            .run()
    }

    /// Earlier versions of these replies, oldest first, keyed by reply.
    func versions(replyIDs: [Int64], on db: any SQLDatabase) async throws -> [Int64: [(html: String, replacedAt: Date)]] {
        guard !replyIDs.isEmpty else { return [:] }
        var result: [Int64: [(html: String, replacedAt: Date)]] = [:]
        let rows = try await db.select().columns("reply_id", "body_html", "replaced_at").from("desk_reply_versions")
            .where("reply_id", .in, replyIDs).orderBy("id").all()
        for row in rows {
            result[try row.decode(column: "reply_id", as: Int64.self), default: []]
                .append((try row.decode(column: "body_html", as: String.self), try date(row, "replaced_at")))
        }
        return result
    }

    /// Each reply's member is looked up by her id, row by row: joined, PostgreSQL estimated a thread's
    /// twenty-odd replies and hashed every member for each thread page (two thirds of the query's time
    /// with 1,000 members, and more with more).
    private static let replySelect = """
        SELECT r.id, r.thread_id, r.author_member_id, r.author_staff_id, r.body_source, r.body_html, r.body_text, r.created_at,
            r.edited_at, r.moderation, r.moderation_reason, r.hidden_by_flags,
            (SELECT m.pseudonym FROM members m WHERE m.id = r.author_member_id) AS member_pseudonym,
            (SELECT m.avatar FROM members m WHERE m.id = r.author_member_id) AS member_avatar,
            s.username AS staff_username, s.role AS staff_role, p.avatar AS staff_avatar
        FROM desk_replies r
        LEFT JOIN staff_accounts s ON s.id = r.author_staff_id
        LEFT JOIN staff_profiles p ON p.account_id = r.author_staff_id
        """

    private func decodeReply(_ row: any SQLRow) throws -> DeskReply {
        let author: DeskAuthor
        if let memberID = try row.decode(column: "author_member_id", as: Int64?.self) {
            author = .member(
                id: memberID,
                pseudonym: try row.decode(column: "member_pseudonym", as: String.self),
                avatar: Avatar.member(try row.decode(column: "member_avatar", as: String.self)) ?? .memberDefault
            )
        } else {
            author = .staff(
                id: try row.decode(column: "author_staff_id", as: Int64.self),
                username: try row.decode(column: "staff_username", as: String.self),
                role: StaffRole(rawValue: try row.decode(column: "staff_role", as: String.self)) ?? .medicalProfessional,
                avatar: try row.decode(column: "staff_avatar", as: String?.self).flatMap(Avatar.any)
            )
        }
        return DeskReply(
            id: try row.decode(column: "id", as: Int64.self),
            threadID: try row.decode(column: "thread_id", as: Int64.self),
            author: author,
            body: StoredText(
                source: try row.decode(column: "body_source", as: String.self),
                html: try row.decode(column: "body_html", as: String.self),
                text: try row.decode(column: "body_text", as: String.self)
            ),
            createdAt: try date(row, "created_at"),
            editedAt: try optionalDate(row, "edited_at"),
            moderation: Moderation(rawValue: try row.decode(column: "moderation", as: String.self)) ?? .hidden,
            moderationReason: try row.decode(column: "moderation_reason", as: String?.self),
            hiddenByFlags: try row.decode(column: "hidden_by_flags", as: Bool.self)
        )
    }

    // MARK: Moderation

    /// Hides, removes or restores a post; the thread's counts and search words follow.
    func setModeration(
        _ post: DeskPost,
        threadID: Int64,
        to moderation: Moderation,
        reason: String?,
        byFlags: Bool,
        on db: any SQLDatabase
    ) async throws {
        let (table, id) = Self.location(post)
        try await db.update(table)
            .set("moderation", to: moderation.rawValue)
            .set("moderation_reason", to: reason.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
            .set("hidden_by_flags", to: byFlags)
            .where("id", .equal, id)
            .run()
        try await refreshSummary(threadID: threadID, on: db)
        try await reindex(threadID: threadID, on: db)
    }

    private static func location(_ post: DeskPost) -> (table: String, id: Int64) {
        switch post {
        case .question: ("desk_threads", post.id)
        case .reply: ("desk_replies", post.id)
        }
    }

    func logModeration(
        actorID: Int64?,
        actorName: String,
        action: ModerationEntry.Action,
        post: DeskPost,
        threadID: Int64,
        reason: String,
        now: Date,
        on db: any SQLDatabase
    ) async throws {
        try await db.insert(into: "desk_moderation_log")
            .columns("happened_at", "actor_id", "actor_name", "action", "post", "thread_id", "reason")
            .values(
                SQLBind(now.millisecondsSince1970),
                SQLBind(actorID),
                SQLBind(actorName),
                SQLBind(action.rawValue),
                SQLBind(post.description),
                SQLBind(threadID),
                SQLBind(reason)
            )
            .run()
    }

    func moderationLog(_ query: ModerationLogQuery, on db: any SQLDatabase) async throws -> PageOf<ModerationEntry> {
        try await db.seek(
            query.page,
            order: ListOrder("time", keys: [.integer("happened_at"), .integer("id")], descending: true),
            rows: { moderationFilter($0.from("desk_moderation_log"), query) },
            decode: decodeModeration
        )
    }

    /// The moderators with entries in the log, each under the name of her latest entry. It steps through
    /// the log's actor index from one moderator to the next, reading a few entries per moderator rather
    /// than the whole log.
    func moderators(on db: any SQLDatabase) async throws -> [ModerationLogQuery.Known] {
        try await db.raw(
            """
            WITH RECURSIVE moderators(actor_id) AS (
                SELECT MIN(actor_id) FROM desk_moderation_log
                UNION ALL
                SELECT (SELECT MIN(actor_id) FROM desk_moderation_log WHERE actor_id > moderators.actor_id)
                FROM moderators WHERE moderators.actor_id IS NOT NULL
            )
            SELECT actor_id, (
                SELECT actor_name FROM desk_moderation_log AS entry WHERE entry.actor_id = moderators.actor_id
                ORDER BY happened_at DESC, id DESC LIMIT 1
            ) AS actor_name
            FROM moderators WHERE actor_id IS NOT NULL
            """
        ).all().map { row in
            ModerationLogQuery.Known(
                id: try row.decode(column: "actor_id", as: Int64.self),
                name: try row.decode(column: "actor_name", as: String.self)
            )
        }
    }

    /// Every entry the filters keep, newest first, for the CSV export.
    func moderationLogEntries(_ query: ModerationLogQuery, on db: any SQLDatabase) async throws -> [ModerationEntry] {
        try await moderationFilter(db.select().column("*").from("desk_moderation_log"), query)
            .orderBy("happened_at", .descending).orderBy("id", .descending)
            .all().map(decodeModeration)
    }

    private func moderationFilter(_ builder: SQLSelectBuilder, _ query: ModerationLogQuery) -> SQLSelectBuilder {
        // The action and the moderator are literals from closed sets (`valueFromClosedSet`): a moderator
        // with a handful of entries gets a plan of her own that reads her index, not the whole log's.
        if let action = query.action { builder.where("action", .equal, valueFromClosedSet(action.rawValue)) }
        switch query.moderator {
        case .automatic: builder.where("actor_id", .is, SQLLiteral.null)
        case .account(let id): builder.where("actor_id", .equal, valueFromClosedSet(id))
        case nil: break
        }
        if let threadID = query.threadID { builder.where("thread_id", .equal, threadID) }
        return builder
    }

    private func decodeModeration(_ row: any SQLRow) throws -> ModerationEntry {
        ModerationEntry(
            id: try row.decode(column: "id", as: Int64.self),
            happenedAt: try date(row, "happened_at"),
            actorID: try row.decode(column: "actor_id", as: Int64?.self),
            actorName: try row.decode(column: "actor_name", as: String.self),
            action: ModerationEntry.Action(rawValue: try row.decode(column: "action", as: String.self)) ?? .hidden,
            post: DeskPost(try row.decode(column: "post", as: String.self)) ?? .question(0),
            threadID: try row.decode(column: "thread_id", as: Int64.self),
            reason: try row.decode(column: "reason", as: String.self)
        )
    }

    // MARK: Flags

    /// Records a member's flag; false when she had already flagged this post.
    func addFlag(_ post: DeskPost, threadID: Int64, memberID: Int64, reason: String, now: Date, on db: any SQLDatabase) async throws -> Bool {
        let existing = try await db.count(in: "desk_flags") {
            $0.where("post", .equal, post.description).where("member_id", .equal, memberID)
        }
        guard existing == 0 else { return false }
        let inserted = try await db.insert(into: "desk_flags")
            .columns("post", "thread_id", "reply_id", "member_id", "reason", "created_at")
            .values(
                SQLBind(post.description),
                SQLBind(threadID),
                SQLBind(post.replyID),
                SQLBind(memberID),
                SQLBind(reason),
                SQLBind(now.millisecondsSince1970)
            )
            .ignoringConflicts(with: ["post", "member_id"])
            .returning("id").all()
        // Her flag was sent twice at once: the other request counted it.
        guard !inserted.isEmpty else { return false }
        // Counted up on the post's row, which two flags at once wait for in turn: neither is lost.
        try await db.raw(
            """
            INSERT INTO desk_flagged_posts (post, thread_id, reply_id, open_flags, first_at)
            VALUES (\(bind: post.description), \(bind: threadID), \(bind: post.replyID), 1, \(bind: now.millisecondsSince1970))
            ON CONFLICT (post) DO UPDATE SET open_flags = desk_flagged_posts.open_flags + 1
            """
        ).run()
        return true
    }

    /// How many different members have open flags on the post.
    func openFlagCount(_ post: DeskPost, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "desk_flags") { $0.where("post", .equal, post.description).where("resolved_at", .is, SQLLiteral.null) }
    }

    func resolveFlags(_ post: DeskPost, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("desk_flags").set("resolved_at", to: now.millisecondsSince1970)
            .where("post", .equal, post.description).where("resolved_at", .is, SQLLiteral.null)
            .run()
        try await db.delete(from: "desk_flagged_posts").where("post", .equal, post.description).run()
    }

    /// The questions a member replied to, other than her own, in order: when her account goes with her replies,
    /// each question's summary (`refreshSummary`) is counted again without them.
    func threadsWithReplies(byMember memberID: Int64, on db: any SQLDatabase) async throws -> [Int64] {
        try await db.raw(
            """
            SELECT DISTINCT r.thread_id FROM desk_replies r JOIN desk_threads t ON t.id = r.thread_id
            WHERE r.author_member_id = \(bind: memberID) AND t.author_member_id <> \(bind: memberID)
            ORDER BY r.thread_id
            """
        ).all().map { try $0.decode(column: "thread_id", as: Int64.self) }
    }

    /// The posts a member has open flags on: their counts change when her account goes with her flags.
    func postsWithOpenFlags(byMember memberID: Int64, on db: any SQLDatabase) async throws -> [String] {
        try await db.select().column("post").from("desk_flags")
            .where("member_id", .equal, memberID).where("resolved_at", .is, SQLLiteral.null)
            .all().map { try $0.decode(column: "post", as: String.self) }
    }

    /// Takes a deleted member's open flags off the moderation queue's counts (`desk_flagged_posts`), once her
    /// flags have gone with her account: one off each post she flagged (she flags a post once), counted down
    /// on its row as flags are counted up, and the post's first flag is the first one left. A post left
    /// without open flags leaves the queue. (A post deleted with its thread or its author's account leaves
    /// it with its row: foreign keys.)
    func uncountFlags(on posts: [String], on db: any SQLDatabase) async throws {
        guard !posts.isEmpty else { return }
        try await db.raw(
            """
            UPDATE desk_flagged_posts SET open_flags = open_flags - 1, first_at = COALESCE((
                SELECT MIN(created_at) FROM desk_flags WHERE desk_flags.post = desk_flagged_posts.post AND resolved_at IS NULL
            ), first_at)
            WHERE post IN (\(binds: posts))
            """
        ).run()
        try await db.delete(from: "desk_flagged_posts").where("post", .in, posts).where("open_flags", .lessThanOrEqual, 0).run()
    }

    /// Posts with open flags, most-flagged first (then the longest flagged), each with its reasons: a page found
    /// by seeking on migration 51's index of the queue's order, whose first key is the open flags negated
    /// (`flag_rank`) so that every key runs the same way.
    func flaggedPosts(page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<FlaggedPost> {
        let found = try await db.seek(
            page,
            order: ListOrder("queue", keys: [.integer("flag_rank"), .integer("first_at"), .text("post")], descending: false),
            columns: [SQLColumn("post"), SQLColumn("thread_id"), SQLColumn("first_at"), SQLColumn("flag_rank")],
            rows: { $0.from("desk_flagged_posts") },
            decode: { (post: try $0.decode(column: "post", as: String.self), threadID: try $0.decode(column: "thread_id", as: Int64.self)) }
        )
        let keys = found.items
        guard !keys.isEmpty else { return found.replacingItems([]) }
        // What the page shows of each post, in one statement: each question's title, text and moderation,
        // the titles of the threads its replies are in, each reply's text and moderation, and each post's
        // open flags. Only those columns: not the bodies' source and HTML, nor the authors.
        let threadIDs = Array(Set(keys.map(\.threadID)))
        let replyIDs = keys.compactMap { DeskPost($0.post)?.replyID }
        var threads: [Int64: (title: String, text: String, moderation: Moderation)] = [:]
        var replies: [Int64: (text: String, moderation: Moderation)] = [:]
        var flags: [(id: Int64, post: String, reason: String, at: Date)] = []
        let repliesPart: SQLQueryString =
            replyIDs.isEmpty
            ? ""
            : """
             UNION ALL SELECT 'reply', id, NULL, NULL, body_text, moderation, NULL FROM desk_replies WHERE id IN (\(binds: replyIDs))
            """
        // The first branch names the columns' types: PostgreSQL settles each pair of branches in turn, and
        // would take the first two's bare NULLs for text.
        for row in try await db.raw(
            """
            SELECT 'thread' AS kind, id, NULL AS post, title, body_text AS text, moderation, CAST(NULL AS BIGINT) AS created_at
                FROM desk_threads WHERE id IN (\(binds: threadIDs))\(repliesPart)
            UNION ALL SELECT 'flag', id, post, NULL, reason, NULL, created_at FROM desk_flags
                WHERE post IN (\(binds: keys.map(\.post))) AND resolved_at IS NULL
            """
        ).all() {
            let id = try row.decode(column: "id", as: Int64.self)
            let text = try row.decode(column: "text", as: String.self)
            switch try row.decode(column: "kind", as: String.self) {
            case "flag":
                flags.append((id, try row.decode(column: "post", as: String.self), text, try date(row, "created_at")))
            case "reply":
                replies[id] = (text, Moderation(rawValue: try row.decode(column: "moderation", as: String.self)) ?? .hidden)
            default:
                let moderation = Moderation(rawValue: try row.decode(column: "moderation", as: String.self)) ?? .hidden
                threads[id] = (try row.decode(column: "title", as: String.self), text, moderation)
            }
        }
        // Each post's flags in the order they were raised.
        var reasons: [String: [(reason: String, at: Date)]] = [:]
        for flag in flags.sorted(by: { $0.id < $1.id }) {
            reasons[flag.post, default: []].append((flag.reason, flag.at))
        }
        var items: [FlaggedPost] = []
        for key in keys {
            guard let post = DeskPost(key.post), let thread = threads[key.threadID] else { continue }
            let text: String, moderation: Moderation
            switch post {
            case .question:
                (text, moderation) = (thread.text, thread.moderation)
            case .reply(let id):
                guard let reply = replies[id] else { continue }
                (text, moderation) = (reply.text, reply.moderation)
            }
            items.append(
                FlaggedPost(
                    post: post,
                    threadID: key.threadID,
                    threadTitle: thread.title,
                    excerpt: SanitizedText.excerpt(of: text, maxCharacters: 300),
                    moderation: moderation,
                    reasons: reasons[key.post] ?? []
                )
            )
        }
        return found.replacingItems(items)
    }

    /// How many visible questions wait for a first reply (as the staff list's "Waiting" counts them), and
    /// when the oldest of them was asked.
    func waitingQuestions(on db: any SQLDatabase) async throws -> (count: Int, oldest: Date?) {
        guard
            let row = try await db.raw(
                """
                SELECT COUNT(*) AS waiting, MIN(created_at) AS oldest FROM desk_threads
                WHERE answered_at IS NULL AND moderation = 'visible'
                """
            ).first()
        else { return (0, nil) }
        return (
            try row.decode(column: "waiting", as: Int.self),
            try row.decode(column: "oldest", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    /// How many posts have open flags.
    func openFlagTotal(on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "desk_flagged_posts")
    }

    // MARK: Titles for the feed

    /// Each thread's title, or the placeholder when it no longer shows; threads that are gone are left out.
    static func threadTitles(_ ids: [Int64], on db: any SQLDatabase) async throws -> [Int64: String] {
        guard !ids.isEmpty else { return [:] }
        var titles: [Int64: String] = [:]
        for row in try await db.select().columns("id", "title", "moderation").from("desk_threads").where("id", .in, ids).all() {
            let visible = try row.decode(column: "moderation", as: String.self) == Moderation.visible.rawValue
            titles[try row.decode(column: "id", as: Int64.self)] = visible ? try row.decode(column: "title", as: String.self) : Moderation.placeholder
        }
        return titles
    }

    // MARK: Anonymous authors

    func recordReveal(threadID: Int64, by staff: StaffAccount, reason: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "desk_author_reveals")
            .columns("thread_id", "revealed_by", "revealed_by_name", "reason", "revealed_at")
            .values(SQLBind(threadID), SQLBind(staff.id), SQLBind(staff.username), SQLBind(reason), SQLBind(now.millisecondsSince1970))
            .run()
    }

    func reveals(threadID: Int64, on db: any SQLDatabase) async throws -> [AuthorReveal] {
        try await db.select().columns("revealed_by_name", "reason", "revealed_at").from("desk_author_reveals")
            .where("thread_id", .equal, threadID).orderBy("id").all()
            .map {
                AuthorReveal(
                    revealedByName: try $0.decode(column: "revealed_by_name", as: String.self),
                    reason: try $0.decode(column: "reason", as: String.self),
                    revealedAt: try date($0, "revealed_at")
                )
            }
    }

    // MARK: New-question emails

    func emailsSwitchedOff(staffID: Int64, on db: any SQLDatabase) async throws -> Bool {
        try await db.count(in: "desk_email_opt_outs") { $0.where("staff_id", .equal, staffID) } > 0
    }

    func setEmailsSwitchedOff(_ off: Bool, staffID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "desk_email_opt_outs").where("staff_id", .equal, staffID).run()
        if off {
            try await db.insert(into: "desk_email_opt_outs").columns("staff_id", "since")
                .values(SQLBind(staffID), SQLBind(now.millisecondsSince1970)).run()
        }
    }

    /// The addresses of active medical professionals who want new-question emails.
    func newQuestionRecipients(on db: any SQLDatabase) async throws -> [String] {
        try await db.raw(
            """
            SELECT s.email FROM staff_accounts s
            WHERE s.role = \(bind: StaffRole.medicalProfessional.rawValue) AND s.status = \(bind: AccountStatus.active.rawValue)
                AND s.email IS NOT NULL AND s.email <> ''
                AND NOT EXISTS (SELECT 1 FROM desk_email_opt_outs o WHERE o.staff_id = s.id)
            ORDER BY s.id
            """
        ).all().map { try $0.decode(column: "email", as: String.self) }
    }

    // MARK: Search index

    /// Rewrites a thread's words: its title, question and visible replies; a hidden or removed thread has none.
    /// SQLite keeps them in the FTS5 table `desk_search`, PostgreSQL in the thread's `search_document`.
    func reindex(threadID: Int64, on db: any SQLDatabase) async throws {
        let thread = try await db.select().columns("title", "body_text", "moderation").from("desk_threads").where("id", .equal, threadID).first()
        let isVisible = try thread.map { try $0.decode(column: "moderation", as: String.self) == Moderation.visible.rawValue } ?? false
        switch engine {
        case .sqlite: try await db.raw("DELETE FROM desk_search WHERE rowid = \(bind: threadID)").run()
        case .postgres:
            if !isVisible { try await db.raw("UPDATE desk_threads SET search_document = NULL WHERE id = \(bind: threadID)").run() }
        }
        guard let thread, isVisible else { return }
        let replies = try await db.select().column("body_text").from("desk_replies")
            .where("thread_id", .equal, threadID).where("moderation", .equal, Moderation.visible.rawValue).orderBy("id").all()
            .map { try $0.decode(column: "body_text", as: String.self) }
        try await index(
            threadID: threadID,
            title: try thread.decode(column: "title", as: String.self),
            body: ([try thread.decode(column: "body_text", as: String.self)] + replies).joined(separator: "\n"),
            on: db
        )
    }

    private func index(threadID: Int64, title: String, body: String, on db: any SQLDatabase) async throws {
        switch engine {
        case .sqlite:
            try await db.raw("INSERT INTO desk_search (rowid, title, body) VALUES (\(bind: threadID), \(bind: title), \(bind: body))").run()
        case .postgres:
            try await db.raw(
                """
                UPDATE desk_threads SET search_document = setweight(to_tsvector('english', \(bind: title)), 'A') || to_tsvector('english', \(bind: body))
                WHERE id = \(bind: threadID)
                """
            ).run()
        }
    }

    // MARK: Re-sanitizing

    /// Ids of threads after `afterID`, for walking every stored body in batches.
    func threadIDs(after afterID: Int64, limit: Int, on db: any SQLDatabase) async throws -> [Int64] {
        try await db.select().column("id").from("desk_threads").where("id", .greaterThan, afterID).orderBy("id").limit(limit).all()
            .map { try $0.decode(column: "id", as: Int64.self) }
    }

    func bodies(
        of table: DeskBodyTable,
        after afterID: Int64,
        limit: Int,
        on db: any SQLDatabase
    ) async throws -> [(id: Int64, source: String, html: String)] {
        try await db.select().columns("id", "body_source", "body_html").from(table.rawValue)
            .where("id", .greaterThan, afterID).orderBy("id").limit(limit).all()
            .map {
                (
                    try $0.decode(column: "id", as: Int64.self), try $0.decode(column: "body_source", as: String.self),
                    try $0.decode(column: "body_html", as: String.self)
                )
            }
    }

    func setBody(of table: DeskBodyTable, id: Int64, html: String, text: String?, on db: any SQLDatabase) async throws {
        let update = db.update(table.rawValue).set("body_html", to: html)
        if let text { update.set("body_text", to: text) }
        try await update.where("id", .equal, id).run()
    }

    /// The thread whose search words a changed body belongs to; earlier reply versions are not searched.
    func threadID(of table: DeskBodyTable, id: Int64, on db: any SQLDatabase) async throws -> Int64? {
        switch table {
        case .questions: id
        case .replies: try await findReply(id: id, on: db)?.threadID
        case .replyVersions: nil
        }
    }

    func threadCount(on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "desk_threads")
    }

    // MARK: Decoding

    private func date(_ row: any SQLRow, _ column: String) throws -> Date {
        Date(millisecondsSince1970: try row.decode(column: column, as: Int64.self))
    }

    private func optionalDate(_ row: any SQLRow, _ column: String) throws -> Date? {
        try row.decode(column: column, as: Int64?.self).map(Date.init(millisecondsSince1970:))
    }
}

/// The tables that hold posted bodies, for `careportal resanitize`.
enum DeskBodyTable: String, Sendable, CaseIterable {
    case questions = "desk_threads"
    case replies = "desk_replies"
    case replyVersions = "desk_reply_versions"
}

enum DeskStorageError: Error {
    case noIDReturned
    /// `list_versions` has lost the desk's row, which migration 15 made; nothing removes it.
    case noListVersion
}
