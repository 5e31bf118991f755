import Foundation
import PortalPlatform
import SQLKit

/// One thing a member did, for the research analytics: written in the same transaction as the change
/// it records. It never holds anything she wrote: a kind, her id and cohort, when, and a number or a
/// short code from a fixed list. docs/events.md lists every kind.
struct MemberEvent: Sendable, Equatable {
    struct Kind: Sendable, Hashable, CustomStringConvertible {
        let rawValue: String
        var description: String { rawValue }

        init(_ rawValue: String) {
            self.rawValue = rawValue
        }
    }

    var kind: Kind
    var memberID: Int64
    var cohortID: Int64
    var occurredAt: Date
    var number: Int64?
    /// A code from a fixed list (a mood's name), never free text.
    var label: String?
    /// The app's id for the event, so one sent twice is counted once.
    var clientID: String?
}

/// The only place the events table's SQL lives.
struct MemberEvents: Sendable {
    /// Records `event` and counts it in the analytics' aggregates; one with a client id already recorded for
    /// her is left as it was. The program's clock is read on `db`.
    func record(_ event: MemberEvent, on db: any SQLDatabase) async throws {
        try await record([event], clock: try await ProgramSettingsRepository().clock(on: db), on: db)
    }

    /// Records `kind` for the member `memberID` in her cohort of now; nothing for a member who is gone.
    func record(_ kind: MemberEvent.Kind, by memberID: Int64, at time: Date, label: String? = nil, on db: any SQLDatabase) async throws {
        guard let member = try await MemberRepository().find(id: memberID, on: db) else { return }
        try await record(MemberEvent(kind: kind, memberID: memberID, cohortID: member.cohort.id, occurredAt: time, label: label), on: db)
    }

    /// Records `events` in order and counts the new ones (not sent before) on `clock`, in one set of statements
    /// for the batch; returns how many were new.
    ///
    /// The events go in with one statement per slice of the batch. Those left out as already recorded (her
    /// client id seen before, or twice in the batch: the first is kept) come back from none of them.
    @discardableResult
    func record(_ events: [MemberEvent], clock: ProgramClock, on db: any SQLDatabase) async throws -> Int {
        struct Sent: Hashable {
            let memberID: Int64
            let clientID: String
        }
        var inserted: Set<Sent> = []
        for chunk in events.chunked(AnalyticsAggregates.rowsPerStatement) {
            let values = chunk.map { event -> SQLQueryString in
                let binds: [any Encodable & Sendable] = [
                    event.kind.rawValue, event.memberID, event.cohortID, event.occurredAt.millisecondsSince1970, event.number, event.label,
                    event.clientID
                ]
                return "(\(binds: binds))"
            }
            for row in try await db.raw(
                """
                INSERT INTO events (kind, member_id, cohort_id, occurred_at, number, label, client_id) VALUES \(values.joined(separator: ", "))
                ON CONFLICT (member_id, client_id) DO NOTHING RETURNING member_id, client_id
                """
            ).all() {
                guard let clientID = try row.decode(column: "client_id", as: String?.self) else { continue }
                inserted.insert(Sent(memberID: try row.decode(column: "member_id", as: Int64.self), clientID: clientID))
            }
        }
        // An event without a client id is always new; of those with an id that came back, the first in the batch
        // is the one stored (the unique index lets one row in for each).
        let recorded = events.filter { event in
            guard let clientID = event.clientID else { return true }
            return inserted.remove(Sent(memberID: event.memberID, clientID: clientID)) != nil
        }
        try await AnalyticsAggregates().count(recorded, clock: clock, on: db)
        return recorded.count
    }

    /// Her events of `kind`, oldest first.
    func events(memberID: Int64, kind: MemberEvent.Kind, on db: any SQLDatabase) async throws -> [MemberEvent] {
        try await db.select().columns("kind", "member_id", "cohort_id", "occurred_at", "number", "label", "client_id")
            .from("events")
            .where("member_id", .equal, memberID).where("kind", .equal, kind.rawValue)
            .orderBy("occurred_at").orderBy("id")
            .all()
            .map { row in
                MemberEvent(
                    kind: MemberEvent.Kind(try row.decode(column: "kind", as: String.self)),
                    memberID: try row.decode(column: "member_id", as: Int64.self),
                    cohortID: try row.decode(column: "cohort_id", as: Int64.self),
                    occurredAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
                    number: try row.decode(column: "number", as: Int64?.self),
                    label: try row.decode(column: "label", as: String?.self),
                    clientID: try row.decode(column: "client_id", as: String?.self)
                )
            }
    }
}

/// Every kind of event, in one place (docs/events.md describes each).
extension MemberEvent.Kind {
    /// A chat message posted (no text: only that she posted, in her cohort's room).
    static let chatMessagePosted = MemberEvent.Kind("chat.message_posted")
    /// A message reported to the moderators.
    static let chatMessageReported = MemberEvent.Kind("chat.message_reported")
    /// A mood check-in; `label` is the mood's name (`Mood.rawValue`).
    static let moodRecorded = MemberEvent.Kind("mood.recorded")
    static let dailySignIn = MemberEvent.Kind("learning.daily_sign_in")
    /// The app came to the front (sent by the app).
    static let appOpened = MemberEvent.Kind("app.opened")
    /// A section of the app viewed; `label` is the section (`AppSection`), `number` the seconds spent (sent by the app).
    static let sectionViewed = MemberEvent.Kind("app.section_viewed")
    /// She opened a learning module; `label` is `module-ID`.
    static let learningModuleOpened = MemberEvent.Kind("learning.module_opened")
    /// She submitted a module's quiz, which completes it; `label` is `module-ID`, `number` her score out of 100.
    static let learningModuleCompleted = MemberEvent.Kind("learning.module_completed")
    /// She watched a video; `label` is `video-ID`.
    static let learningVideoWatched = MemberEvent.Kind("learning.video_watched")
    /// She wrote on the information desk; `label` is `question` or `reply` (`DeskPostKind`), never what she wrote.
    static let deskPosted = MemberEvent.Kind("desk.posted")
}

/// A study participant's events share the one table: no member and no cohort, her participant id
/// instead (docs/events.md). Nothing she wrote: the kind, when, and a number (an item's id) at most.
struct ParticipantEvent: Sendable, Equatable {
    var kind: MemberEvent.Kind
    var participantID: Int64
    var occurredAt: Date
    var number: Int64?
    var clientID: String?
    /// The row's id, once read back (for paging a timeline).
    var id: Int64? = nil
}

extension MemberEvents {
    /// Records a participant's event; one with a client id already recorded for her is left as it was.
    func record(_ event: ParticipantEvent, on db: any SQLDatabase) async throws {
        try await db.insert(into: "events")
            .columns("kind", "participant_id", "occurred_at", "number", "client_id")
            .values(
                SQLBind(event.kind.rawValue),
                SQLBind(event.participantID),
                SQLBind(event.occurredAt.millisecondsSince1970),
                SQLBind(event.number),
                SQLBind(event.clientID)
            )
            .ignoringConflicts(with: ["participant_id", "client_id"])
            .run()
    }

    /// Her newest events first, at most `limit`; with `before`, only those older than that event
    /// (keyset paging on time, then id).
    func events(
        participantID: Int64,
        limit: Int,
        before: (occurredAt: Int64, id: Int64)? = nil,
        on db: any SQLDatabase
    ) async throws -> [ParticipantEvent] {
        let query = db.select().columns("id", "kind", "participant_id", "occurred_at", "number", "client_id")
            .from("events")
            .where("participant_id", .equal, participantID)
        if let before {
            query.where { group in
                group.where("occurred_at", .lessThan, before.occurredAt).orWhere { same in
                    same.where("occurred_at", .equal, before.occurredAt).where("id", .lessThan, before.id)
                }
            }
        }
        return
            try await query
            .orderBy("occurred_at", .descending).orderBy("id", .descending)
            .limit(limit)
            .all()
            .map { row in
                ParticipantEvent(
                    kind: MemberEvent.Kind(try row.decode(column: "kind", as: String.self)),
                    participantID: try row.decode(column: "participant_id", as: Int64.self),
                    occurredAt: Date(millisecondsSince1970: try row.decode(column: "occurred_at", as: Int64.self)),
                    number: try row.decode(column: "number", as: Int64?.self),
                    clientID: try row.decode(column: "client_id", as: String?.self),
                    id: try row.decode(column: "id", as: Int64.self)
                )
            }
    }
}

/// The study's kinds (docs/events.md).
extension MemberEvent.Kind {
    /// A participant marked a daily to-do done; `number` is the item's id.
    static let studyTodoDone = MemberEvent.Kind("study.todo_done")
    /// A participant opened the app (at most one a minute).
    static let studyAppOpened = MemberEvent.Kind("study.app_opened")
    /// A participant sent feedback (never its text).
    static let studyFeedbackSent = MemberEvent.Kind("study.feedback_sent")
}
