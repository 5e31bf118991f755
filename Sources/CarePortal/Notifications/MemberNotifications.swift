import Foundation
import PortalPlatform
import SQLKit

/// The kinds of entry a member's feed carries, declared by the features that write them.
/// The ids are stored: never change one once released (the desk's three predate the others).
extension NotificationKind {
    static let deskReply = NotificationKind("reply", title: "Replies to your questions at the information desk", for: "member")
    static let deskAcceptedAnswer = NotificationKind("accepted_answer", title: "An accepted answer to your question", for: "member")
    static let deskPostRemoved = NotificationKind("removed", title: "A moderator removed one of your posts at the information desk", for: "member")
    static let deskNewQuestion = NotificationKind(
        "desk_new_question",
        title: "New questions at the information desk",
        onByDefault: false,
        for: "member"
    )
    static let chatMessageRemoved = NotificationKind("chat_message_removed", title: "A moderator removed one of your chat messages", for: "member")
    static let chatActivity = NotificationKind("chat_activity", title: "New messages in your cohort's chat", for: "member")
    static let moodFollowUp = NotificationKind("mood_follow_up", title: "Support after you share how you feel", for: "member")
    static let broadcast = NotificationKind("broadcast", title: "News from the program", for: "member")
    static let checkInReminder = NotificationKind("check_in_reminder", title: "A daily reminder to share how you feel", for: "member")
    static let calendarReminder = NotificationKind("calendar_reminder", title: "Reminders of the events in your calendar", for: "member")
}

extension NotificationSubject {
    static let threadType = "thread"
    static func thread(_ id: Int64) -> NotificationSubject { NotificationSubject(threadType, id: id) }
}

extension NotificationSubject {
    static let chatType = "chat"
    /// Her cohort's chat room.
    static func chat(_ cohortID: Int64) -> NotificationSubject { NotificationSubject(chatType, id: cohortID) }
    /// The helplines and resources for her (after a negative mood).
    static let resourcesType = "resources"
    /// The recommended reading (after a neutral mood).
    static let readingType = "reading"
}

extension AppAccountRef {
    static func member(_ id: Int64) -> AppAccountRef { AppAccountRef(role: AppAccountKind.member.role, accountID: id) }
}

extension NotificationAudience {
    static func members(_ ids: [Int64]) -> NotificationAudience { NotificationAudience(role: AppAccountKind.member.role, accountIDs: ids) }
    static let everyMember = NotificationAudience(role: AppAccountKind.member.role, accountIDs: nil)
}

/// Writing to members' feeds, one member or many at once, in the caller's transaction. Only active
/// members are written to when many are: a disabled account's feed is not read.
struct MemberNotifications: Sendable {
    let notifications: Notifications

    /// Writes `entry` to her feed if she wants its kind; true when written.
    @discardableResult
    func notify(_ memberID: Int64, _ entry: NewNotification, on db: any SQLDatabase) async throws -> Bool {
        try await notifications.write(entry, to: .member(memberID), on: db)
    }

    /// Writes `entry` to every active member of `cohortIDs` (every cohort when nil) but `exceptMemberID`;
    /// returns how many were written.
    @discardableResult
    func notifyMembers(
        of cohortIDs: [Int64]?,
        except exceptMemberID: Int64? = nil,
        _ entry: NewNotification,
        on db: any SQLDatabase
    ) async throws -> Int {
        var accounts: SQLQueryString = "SELECT m.id FROM members m WHERE m.status = \(bind: Member.Status.active.rawValue)"
        if let cohortIDs {
            guard !cohortIDs.isEmpty else { return 0 }
            accounts += " AND m.cohort_id IN (\(binds: cohortIDs))"
        }
        if let exceptMemberID { accounts += " AND m.id <> \(bind: exceptMemberID)" }
        return try await notifications.writeToMany(entry, accounts: accounts, on: db)
    }

    /// Writes `entry` to every active member whose check-in time (minutes after local midnight) is at most
    /// `minute` and less than `lateness` minutes before it, and who has not shared a mood since `moodsSince`.
    @discardableResult
    func notifyCheckInDue(minute: Int, lateness: Int, moodsSince: Date, _ entry: NewNotification, on db: any SQLDatabase) async throws -> Int {
        let accounts: SQLQueryString = """
            SELECT m.id FROM members m
            LEFT JOIN notification_settings s ON s.account_role = \(bind: AppAccountKind.member.role) AND s.account_id = m.id
            WHERE m.status = \(bind: Member.Status.active.rawValue)
            AND COALESCE(s.check_in_minute, \(literal: NotificationChoices.defaultCheckInMinute)) <= \(literal: minute)
            AND COALESCE(s.check_in_minute, \(literal: NotificationChoices.defaultCheckInMinute)) > \(literal: minute - lateness)
            AND NOT EXISTS (SELECT 1 FROM events e WHERE e.member_id = m.id AND e.kind = \(bind: MemberEvent.Kind.moodRecorded.rawValue)
                            AND e.occurred_at >= \(bind: moodsSince.millisecondsSince1970))
            """
        return try await notifications.writeToMany(entry, accounts: accounts, on: db)
    }

    /// How many active members of `cohortIDs` (every cohort when nil) want `kind`: whom a write would reach.
    func countMembers(of cohortIDs: [Int64]?, wanting kind: NotificationKind, on db: any SQLDatabase) async throws -> Int {
        var query: SQLQueryString = "SELECT COUNT(*) AS count FROM members m WHERE m.status = \(bind: Member.Status.active.rawValue)"
        if let cohortIDs {
            guard !cohortIDs.isEmpty else { return 0 }
            query += " AND m.cohort_id IN (\(binds: cohortIDs))"
        }
        let choice: SQLQueryString = """
            SELECT 1 FROM notification_choices c WHERE c.account_role = \(bind: kind.role) AND c.account_id = m.id
            AND c.kind = \(bind: kind.id) AND c.enabled = \(bind: !kind.onByDefault)
            """
        query += kind.onByDefault ? " AND NOT EXISTS (\(choice))" : " AND EXISTS (\(choice))"
        return try await db.raw(query).first()?.decode(column: "count", as: Int.self) ?? 0
    }

    /// The active members of `cohortIDs` but one, for the live nudge after such a write.
    func memberIDs(of cohortIDs: [Int64], except exceptMemberID: Int64?, on db: any SQLDatabase) async throws -> [Int64] {
        guard !cohortIDs.isEmpty else { return [] }
        return try await db.raw(
            """
            SELECT id FROM members WHERE status = \(bind: Member.Status.active.rawValue) AND cohort_id IN (\(binds: cohortIDs))
            AND id <> \(bind: exceptMemberID ?? -1) LIMIT 201
            """
        ).all().map { try $0.decode(column: "id", as: Int64.self) }
    }
}
