import Foundation
import SQLKit

/// One kind of entry an app account's feed carries ("Someone replied to your question", a broadcast,
/// a calendar reminder). Features declare their kinds; the account chooses per kind whether she wants them.
package struct NotificationKind: Sendable, Hashable, Identifiable {
    /// Stored with every entry and in her choices: never change it once released.
    package let id: String
    /// What the preferences screen calls it ("Replies to your questions").
    package let title: String
    /// Whether she gets it until she chooses otherwise.
    package let onByDefault: Bool
    /// The account role it is written for (`member`).
    package let role: String

    package init(_ id: String, title: String, onByDefault: Bool = true, for role: String) {
        self.id = id
        self.title = title
        self.onByDefault = onByDefault
        self.role = role
    }

    package static func == (lhs: NotificationKind, rhs: NotificationKind) -> Bool { lhs.id == rhs.id && lhs.role == rhs.role }
    package func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(role)
    }
}

/// What an entry is about, so the app can open it: a thread, a chat room, a broadcast, a calendar event.
package struct NotificationSubject: Sendable, Hashable {
    package let type: String
    package let id: Int64?

    package init(_ type: String, id: Int64?) {
        self.type = type
        self.id = id
    }
}

/// A subject with an id, as `notification_reach` counts its entries.
fileprivate struct CountedSubject: Hashable {
    let type: String
    let id: Int64
}

extension NotificationSubject {
    fileprivate var counted: CountedSubject? { id.map { CountedSubject(type: type, id: $0) } }
}

/// Titles of a feature's subjects for the feed (a thread's title, or a placeholder once it is removed),
/// read when the feed is, so a title changed or removed since is never shown as it was.
package struct NotificationSubjectTitles: Sendable {
    package let type: String
    package let titles: @Sendable (_ ids: [Int64], any SQLDatabase) async throws -> [Int64: String]

    package init(type: String, titles: @escaping @Sendable ([Int64], any SQLDatabase) async throws -> [Int64: String]) {
        self.type = type
        self.titles = titles
    }
}

/// An entry a feature writes, in the same transaction as what caused it.
package struct NewNotification: Sendable {
    package var kind: NotificationKind
    /// One line for the feed; never a member's own words about her health, since a push never carries it
    /// but the app's feed shows it to whoever holds her phone.
    package var message: String
    /// Longer text (a broadcast's body).
    package var body: String?
    package var subject: NotificationSubject?
    /// A second id the app needs (the reply in a thread).
    package var detailID: Int64?
    /// A moderator's reason, when something of hers was removed.
    package var reason: String?
    /// Set for entries that must be written once only (a reminder for one occurrence): a second write
    /// with the same key for the same account, by any server, is ignored.
    package var onceKey: String?

    package init(
        kind: NotificationKind,
        message: String,
        body: String? = nil,
        subject: NotificationSubject? = nil,
        detailID: Int64? = nil,
        reason: String? = nil,
        onceKey: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.body = body
        self.subject = subject
        self.detailID = detailID
        self.reason = reason
        self.onceKey = onceKey
    }
}

/// An entry of a feed as stored.
package struct StoredNotification: Sendable, Equatable {
    package let id: Int64
    package let kind: String
    package let message: String
    package let body: String?
    package let subject: NotificationSubject?
    package let detailID: Int64?
    package let reason: String?
    package let createdAt: Date
    package let readAt: Date?
}

/// What one account has chosen about her notifications.
package struct NotificationChoices: Sendable, Equatable {
    /// The kinds she switched away from their default: kind id → on.
    package var overrides: [String: Bool]
    /// How long before a calendar event its reminder comes.
    package var reminderLeadMinutes: Int
    /// The daily check-in reminder's time, in minutes after midnight in the program's time zone.
    package var checkInMinute: Int

    package static let reminderLeadChoices = [10, 30, 60, 120, 1_440]
    package static let defaultReminderLeadMinutes = 60
    package static let defaultCheckInMinute = 19 * 60

    package func wants(_ kind: NotificationKind) -> Bool { overrides[kind.id] ?? kind.onByDefault }

    package init(
        overrides: [String: Bool] = [:],
        reminderLeadMinutes: Int = Self.defaultReminderLeadMinutes,
        checkInMinute: Int = Self.defaultCheckInMinute
    ) {
        self.overrides = overrides
        self.reminderLeadMinutes = reminderLeadMinutes
        self.checkInMinute = checkInMinute
    }
}

/// A phone that receives pushes for an account.
package struct PushDevice: Sendable, Equatable {
    package enum Platform: String, Sendable, CaseIterable {
        case ios, android
    }

    package let token: String
    package let platform: Platform

    package init(token: String, platform: Platform) {
        self.token = token
        self.platform = platform
    }
}

/// Every app account's feed: one way to write an entry, read a page of them, count the unread, and the
/// pushes that tell her phone something is waiting. The only place the feed's SQL lives.
///
/// An entry a member may not want is never written: the kind's choice is checked as it is written, in
/// SQL for writes to many (`writeToMany`), so a broadcast to thousands is one statement.
package struct Notifications: Sendable {
    /// After this many failed attempts a push is given up (the entry stays in her feed).
    package static let maximumPushAttempts = 8
    package static let pushClaimDuration: TimeInterval = 120

    package let now: @Sendable () -> Date

    package init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    // MARK: Writing

    /// Writes `entry` to one account's feed if she wants its kind; true when it was written (false when
    /// she switched the kind off, or an entry with the same once-key is already there).
    @discardableResult
    package func write(_ entry: NewNotification, to recipient: AppAccountRef, on db: any SQLDatabase) async throws -> Bool {
        guard recipient.role == entry.kind.role else { return false }
        let choice = try await db.select().column("enabled").from("notification_choices")
            .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID)
            .where("kind", .equal, entry.kind.id)
            .first()?.decode(column: "enabled", as: Bool.self)
        guard choice ?? entry.kind.onByDefault else { return false }
        let written =
            try await db.insert(into: "notifications")
            .columns(Self.insertColumns)
            .values([SQLBind(recipient.role), SQLBind(recipient.accountID)] + Self.values(of: entry, now: now()))
            .ignoringConflicts(with: ["account_role", "account_id", "once_key"])
            .returning("id")
            .first() != nil
        if written, let subject = entry.subject?.counted { try await Self.changeReach([subject: (1, 0)], on: db) }
        return written
    }

    /// Writes `entry` to every account of its kind's role whose id `accounts` selects (a query with one
    /// column, `id`) and who wants the kind; returns how many were written.
    @discardableResult
    package func writeToMany(_ entry: NewNotification, accounts: SQLQueryString, on db: any SQLDatabase) async throws -> Int {
        let kind = entry.kind
        let choice: SQLQueryString = """
            SELECT 1 FROM notification_choices c WHERE c.account_role = \(bind: kind.role) AND c.account_id = a.id
            AND c.kind = \(bind: kind.id) AND c.enabled = \(bind: !kind.onByDefault)
            """
        let wanted: SQLQueryString = kind.onByDefault ? "NOT EXISTS (\(choice))" : "EXISTS (\(choice))"
        let values = Self.values(of: entry, now: now())
        var select: SQLQueryString = "SELECT \(bind: kind.role), a.id"
        for value in values { select += ", \(value)" }
        let columns = Self.insertColumns.joined(separator: ", ")
        let rows = try await db.raw(
            """
            INSERT INTO notifications (\(unsafeRaw: columns))
            \(select) FROM (\(accounts)) a WHERE \(wanted)
            ON CONFLICT (account_role, account_id, once_key) DO NOTHING
            RETURNING id
            """
        ).all()
        if !rows.isEmpty, let subject = entry.subject?.counted { try await Self.changeReach([subject: (rows.count, 0)], on: db) }
        return rows.count
    }

    private static let insertColumns = [
        "account_role", "account_id", "kind", "message", "body", "subject_type", "subject_id", "detail_id", "reason",
        "once_key", "created_at", "push_status", "push_attempts", "push_next_at"
    ]

    private static func values(of entry: NewNotification, now: Date) -> [SQLBind] {
        let time = now.millisecondsSince1970
        return [
            SQLBind(entry.kind.id), SQLBind(entry.message), SQLBind(entry.body), SQLBind(entry.subject?.type), SQLBind(entry.subject?.id),
            SQLBind(entry.detailID), SQLBind(entry.reason), SQLBind(entry.onceKey), SQLBind(time),
            SQLBind(PushStatus.pending.rawValue), SQLBind(0), SQLBind(time)
        ]
    }

    // MARK: Reading

    /// Her feed, newest first, and how many of all her entries are unread — both counts from one pass
    /// over her entries on the feed's index.
    package func feed(
        of recipient: AppAccountRef,
        page: PageRequest,
        on db: any SQLDatabase
    ) async throws -> (page: PageOf<StoredNotification>, unread: Int) {
        let counts = try await db.raw(
            """
            SELECT COUNT(*) AS total, COUNT(*) - COUNT(read_at) AS unread FROM notifications
            WHERE account_role = \(bind: recipient.role) AND account_id = \(bind: recipient.accountID)
            """
        ).first()
        let total = try counts?.decode(column: "total", as: Int.self) ?? 0
        let rows =
            total <= page.offset
            ? []
            : try await db.select()
                .columns("id", "kind", "message", "body", "subject_type", "subject_id", "detail_id", "reason", "created_at", "read_at")
                .from("notifications")
                .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID)
                .orderBy("id", .descending).limit(page.size).offset(page.offset).all()
        return (PageOf(items: try rows.map(Self.decode), totalCount: total, request: page), try counts?.decode(column: "unread", as: Int.self) ?? 0)
    }

    package func unreadCount(of recipient: AppAccountRef, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "notifications") {
            $0.where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID)
                .where("read_at", .is, SQLLiteral.null)
        }
    }

    /// Marks one of her entries read; false when she has no entry with that id.
    package func markRead(id: Int64, of recipient: AppAccountRef, on db: any SQLDatabase) async throws -> Bool {
        let exists =
            try await db.count(in: "notifications") {
                $0.where("id", .equal, id).where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID)
            } > 0
        guard exists else { return false }
        let changed = try await db.update("notifications").set("read_at", to: now().millisecondsSince1970)
            .where("id", .equal, id).where("read_at", .is, SQLLiteral.null)
            .returning("subject_type", "subject_id").all()
        try await Self.changeReach(Self.reachChanges(of: changed, written: 0, read: 1), on: db)
        return true
    }

    /// Marks every entry up to `upToID` (all when nil) read, so one that arrived after the app drew
    /// her feed stays unread; returns how many changed.
    @discardableResult
    package func markAllRead(of recipient: AppAccountRef, upToID: Int64?, on db: any SQLDatabase) async throws -> Int {
        var update = db.update("notifications").set("read_at", to: now().millisecondsSince1970)
            .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID)
            .where("read_at", .is, SQLLiteral.null)
        if let upToID { update = update.where("id", .lessThanOrEqual, upToID) }
        let changed = try await update.returning("subject_type", "subject_id").all()
        try await Self.changeReach(Self.reachChanges(of: changed, written: 0, read: 1), on: db)
        return changed.count
    }

    private static func decode(_ row: any SQLRow) throws -> StoredNotification {
        let subjectType = try row.decode(column: "subject_type", as: String?.self)
        return StoredNotification(
            id: try row.decode(column: "id", as: Int64.self),
            kind: try row.decode(column: "kind", as: String.self),
            message: try row.decode(column: "message", as: String.self),
            body: try row.decode(column: "body", as: String?.self),
            subject: try subjectType.map { NotificationSubject($0, id: try row.decode(column: "subject_id", as: Int64?.self)) },
            detailID: try row.decode(column: "detail_id", as: Int64?.self),
            reason: try row.decode(column: "reason", as: String?.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            readAt: try row.decode(column: "read_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    // MARK: Counts about a subject

    /// How many entries about `subject` are in feeds, and how many of them have been read: counted from the
    /// kept `notification_reach`, which every write, read and removal here changes in the same transaction.
    package func reach(of subject: NotificationSubject, on db: any SQLDatabase) async throws -> (written: Int, read: Int) {
        guard let id = subject.id else { return (0, 0) }
        return try await reach(ofType: subject.type, ids: [id], on: db)[id] ?? (0, 0)
    }

    /// The same for each of the subjects of one type with these ids (those with no entries left out), in one
    /// statement that reads a row for each.
    package func reach(ofType type: String, ids: [Int64], on db: any SQLDatabase) async throws -> [Int64: (written: Int, read: Int)] {
        guard !ids.isEmpty else { return [:] }
        var reach: [Int64: (written: Int, read: Int)] = [:]
        for row in try await db.select().columns("subject_id", "written_count", "read_count").from("notification_reach")
            .where("subject_type", .equal, type).where("subject_id", .in, ids).where("written_count", .greaterThan, 0).all()
        {
            reach[try row.decode(column: "subject_id", as: Int64.self)] =
                (try row.decode(column: "written_count", as: Int.self), try row.decode(column: "read_count", as: Int.self))
        }
        return reach
    }

    /// Counts every subject's entries into `notification_reach` (migration 45, and the benchmarks' data).
    package static func countReach(on db: any SQLDatabase) async throws {
        try await db.raw(
            """
            INSERT INTO notification_reach (subject_type, subject_id, written_count, read_count)
            SELECT subject_type, subject_id, COUNT(*), COUNT(read_at) FROM notifications
            WHERE subject_type IS NOT NULL AND subject_id IS NOT NULL GROUP BY subject_type, subject_id
            """
        ).run()
    }

    /// The changes to each subject's counts that these entries (rows with `subject_type` and `subject_id`,
    /// and `read_at` when `read` is nil: a removal takes back the reads of entries that were read) make.
    private static func reachChanges(of rows: [any SQLRow], written: Int, read: Int?) throws -> [CountedSubject: (written: Int, read: Int)] {
        var changes: [CountedSubject: (written: Int, read: Int)] = [:]
        for row in rows {
            guard let type = try row.decode(column: "subject_type", as: String?.self),
                let id = try row.decode(column: "subject_id", as: Int64?.self)
            else { continue }
            let wasRead = try read ?? (row.decode(column: "read_at", as: Int64?.self) != nil ? -1 : 0)
            let change = changes[CountedSubject(type: type, id: id)] ?? (0, 0)
            changes[CountedSubject(type: type, id: id)] = (change.written + written, change.read + wasRead)
        }
        return changes
    }

    /// Adds the changes to the subjects' counts, in the subjects' order, so two transactions changing the same
    /// subjects wait for each other rather than each holding a row the other needs.
    private static func changeReach(_ changes: [CountedSubject: (written: Int, read: Int)], on db: any SQLDatabase) async throws {
        for (subject, change) in changes.sorted(by: { ($0.key.type, $0.key.id) < ($1.key.type, $1.key.id) })
        where change.written != 0 || change.read != 0 {
            try await db.raw(
                """
                INSERT INTO notification_reach (subject_type, subject_id, written_count, read_count)
                VALUES (\(bind: subject.type), \(bind: subject.id), \(bind: max(0, change.written)), \(bind: max(0, change.read)))
                ON CONFLICT (subject_type, subject_id) DO UPDATE SET
                written_count = notification_reach.written_count + \(bind: change.written),
                read_count = notification_reach.read_count + \(bind: change.read)
                """
            ).run()
        }
    }

    /// Removes her entries about `subject` that have not been read (a cancelled reminder's).
    package func withdrawUnread(about subject: NotificationSubject, of recipient: AppAccountRef, on db: any SQLDatabase) async throws {
        let removed = try await db.delete(from: "notifications")
            .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID)
            .where("subject_type", .equal, subject.type).where("subject_id", .equal, subject.id)
            .where("read_at", .is, SQLLiteral.null)
            .returning("subject_type", "subject_id").all()
        try await Self.changeReach(Self.reachChanges(of: removed, written: -1, read: 0), on: db)
    }

    // MARK: Choices

    package func choices(of recipient: AppAccountRef, on db: any SQLDatabase) async throws -> NotificationChoices {
        var choices = NotificationChoices()
        for row in try await db.select().columns("kind", "enabled").from("notification_choices")
            .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID).all()
        {
            choices.overrides[try row.decode(column: "kind", as: String.self)] = try row.decode(column: "enabled", as: Bool.self)
        }
        if let row = try await db.select().columns("reminder_lead_minutes", "check_in_minute").from("notification_settings")
            .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID).first()
        {
            choices.reminderLeadMinutes = try row.decode(column: "reminder_lead_minutes", as: Int.self)
            choices.checkInMinute = try row.decode(column: "check_in_minute", as: Int.self)
        }
        return choices
    }

    /// Saves her choices; a kind set to its default is stored as no choice, so a changed default reaches her.
    package func save(_ choices: NotificationChoices, kinds: [NotificationKind], of recipient: AppAccountRef, on db: any SQLDatabase) async throws {
        try await db.delete(from: "notification_choices")
            .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID).run()
        for kind in kinds where choices.wants(kind) != kind.onByDefault {
            try await db.insert(into: "notification_choices").columns("account_role", "account_id", "kind", "enabled")
                .values(SQLBind(recipient.role), SQLBind(recipient.accountID), SQLBind(kind.id), SQLBind(!kind.onByDefault))
                .run()
        }
        try await db.insert(into: "notification_settings").columns("account_role", "account_id", "reminder_lead_minutes", "check_in_minute")
            .values(SQLBind(recipient.role), SQLBind(recipient.accountID), SQLBind(choices.reminderLeadMinutes), SQLBind(choices.checkInMinute))
            .onConflict(with: ["account_role", "account_id"]) {
                $0.set(excludedValueOf: "reminder_lead_minutes").set(excludedValueOf: "check_in_minute")
            }
            .run()
    }

    // MARK: Devices

    package func register(_ device: PushDevice, for recipient: AppAccountRef, on db: any SQLDatabase) async throws {
        let time = now().millisecondsSince1970
        // A phone that changes hands keeps its token: the token follows whoever registered it last.
        try await db.insert(into: "push_devices").columns("token", "platform", "account_role", "account_id", "registered_at")
            .values(SQLBind(device.token), SQLBind(device.platform.rawValue), SQLBind(recipient.role), SQLBind(recipient.accountID), SQLBind(time))
            .onConflict(with: ["token"]) {
                $0.set(excludedValueOf: "platform").set(excludedValueOf: "account_role").set(excludedValueOf: "account_id").set(
                    excludedValueOf: "registered_at"
                )
            }
            .run()
    }

    /// Forgets her phone's token; false when she had no such token.
    package func unregister(token: String, for recipient: AppAccountRef, on db: any SQLDatabase) async throws -> Bool {
        try await db.delete(from: "push_devices").where("token", .equal, token)
            .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID)
            .returning("token").all().count > 0
    }

    package func devices(of recipient: AppAccountRef, on db: any SQLDatabase) async throws -> [PushDevice] {
        try await db.select().columns("token", "platform").from("push_devices")
            .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID)
            .orderBy("token").all()
            .map {
                PushDevice(
                    token: try $0.decode(column: "token", as: String.self),
                    platform: PushDevice.Platform(rawValue: try $0.decode(column: "platform", as: String.self)) ?? .android
                )
            }
    }

    /// Everything of an account's notifications, for when the account itself is deleted.
    package func forget(_ recipient: AppAccountRef, on db: any SQLDatabase) async throws {
        let removed = try await db.delete(from: "notifications")
            .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID)
            .returning("subject_type", "subject_id", "read_at").all()
        try await Self.changeReach(Self.reachChanges(of: removed, written: -1, read: nil), on: db)
        for table in ["notification_choices", "notification_settings", "push_devices"] {
            try await db.delete(from: table)
                .where("account_role", .equal, recipient.role).where("account_id", .equal, recipient.accountID).run()
        }
    }

    // MARK: Pushes

    package enum PushStatus: String, Sendable {
        /// Waiting for the push sender.
        case pending
        case sent
        /// Her account has no phone registered: nothing to send.
        case noDevice = "no_device"
        case failed
        /// Written before pushes existed, or of a kind never pushed.
        case skipped
    }

    /// A push waiting to be handed to the push gateway: who it is for and her phones, never what it says.
    package struct DuePush: Sendable {
        package let notificationID: Int64
        package let recipient: AppAccountRef
        package let attempts: Int
    }

    /// Claims up to `limit` due pushes, so no other server sends them meanwhile.
    package func claimDuePushes(limit: Int, on db: any SQLDatabase) async throws -> [DuePush] {
        let time = now()
        let unclaimed = SQLGroupExpression(
            SQLBinaryExpression(
                SQLBinaryExpression(SQLColumn("push_claimed_until"), .is, SQLLiteral.null),
                .or,
                SQLBinaryExpression(SQLColumn("push_claimed_until"), .lessThan, SQLBind(time.millisecondsSince1970))
            )
        )
        let candidates = try await db.select().column("id").from("notifications")
            .where("push_status", .equal, PushStatus.pending.rawValue)
            .where("push_next_at", .lessThanOrEqual, time.millisecondsSince1970)
            .where(unclaimed)
            .orderBy("push_next_at").orderBy("id").limit(limit).all()
            .map { try $0.decode(column: "id", as: Int64.self) }
        var claimed: [DuePush] = []
        for id in candidates {
            // Only one server's conditional update succeeds for an entry.
            if let row = try await db.update("notifications")
                .set("push_claimed_until", to: time.addingTimeInterval(Self.pushClaimDuration).millisecondsSince1970)
                .where("id", .equal, id).where("push_status", .equal, PushStatus.pending.rawValue).where(unclaimed)
                .returning("id", "account_role", "account_id", "push_attempts").first()
            {
                claimed.append(
                    DuePush(
                        notificationID: id,
                        recipient: AppAccountRef(
                            role: try row.decode(column: "account_role", as: String.self),
                            accountID: try row.decode(column: "account_id", as: Int64.self)
                        ),
                        attempts: try row.decode(column: "push_attempts", as: Int.self)
                    )
                )
            }
        }
        return claimed
    }

    package func markPushed(_ push: DuePush, status: PushStatus, on db: any SQLDatabase) async throws {
        try await db.update("notifications")
            .set("push_status", to: status.rawValue)
            .set("push_attempts", to: push.attempts + (status == .sent ? 1 : 0))
            .set("push_claimed_until", to: SQLLiteral.null)
            .set("push_error", to: SQLLiteral.null)
            .where("id", .equal, push.notificationID).run()
    }

    /// Records a failed attempt; tries again later with a growing pause, as the outbox does, or gives up.
    package func markPushFailed(_ push: DuePush, error: String, on db: any SQLDatabase) async throws {
        let attempts = push.attempts + 1
        let pause = min(3600, 30 * pow(2, Double(attempts - 1)))
        try await db.update("notifications")
            .set("push_status", to: (attempts >= Self.maximumPushAttempts ? PushStatus.failed : .pending).rawValue)
            .set("push_attempts", to: attempts)
            .set("push_next_at", to: now().addingTimeInterval(pause).millisecondsSince1970)
            .set("push_claimed_until", to: SQLLiteral.null)
            .set("push_error", to: String(error.prefix(500)))
            .where("id", .equal, push.notificationID).run()
    }

    package func pushStatus(of id: Int64, on db: any SQLDatabase) async throws -> (status: PushStatus, attempts: Int)? {
        try await db.select().columns("push_status", "push_attempts").from("notifications").where("id", .equal, id).first().map {
            (
                PushStatus(rawValue: try $0.decode(column: "push_status", as: String.self)) ?? .pending,
                try $0.decode(column: "push_attempts", as: Int.self)
            )
        }
    }
}

/// Who a live nudge is for: connected apps of these accounts (or of every account of a role) fetch
/// their feed again. The nudge carries no content.
package struct NotificationAudience: Sendable, Equatable {
    package let role: String
    /// Nil: every account of the role.
    package let accountIDs: [Int64]?

    /// A signal is small: beyond this many accounts, everyone connected is nudged.
    static let listLimit = 200

    package init(role: String, accountIDs: [Int64]?) {
        self.role = role
        self.accountIDs = accountIDs.map { $0.count > Self.listLimit ? nil : $0 } ?? nil
    }

    package var signal: String {
        "\(role) " + (accountIDs.map { $0.map(String.init).joined(separator: ",") } ?? "*")
    }

    package init?(signal: String) {
        let parts = signal.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        role = String(parts[0])
        if parts[1] == "*" {
            accountIDs = nil
        } else {
            let ids = parts[1].split(separator: ",").compactMap { Int64($0) }
            guard !ids.isEmpty else { return nil }
            accountIDs = ids
        }
    }

    package func includes(_ accountID: Int64) -> Bool { accountIDs?.contains(accountID) ?? true }
}

extension Notifications {
    /// The live-signal topic apps' sockets listen on for "something new in your feed".
    package static let liveTopic = "notifications"
}

extension Portal {
    /// After a commit that wrote notifications: nudges the audience's connected apps on every server.
    /// A lost nudge loses nothing — the entry is in the feed — so a failure is only logged.
    package func announceNotifications(to audience: NotificationAudience) async {
        if audience.accountIDs?.isEmpty == true { return }
        do {
            try await live.send(Notifications.liveTopic, audience.signal)
        } catch {
            logger.warning("New notifications could not be signalled", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
