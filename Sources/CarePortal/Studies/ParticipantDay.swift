import Foundation
import PortalPlatform
import SQLKit

/// What a study participant does in her app, whichever way she reaches it: today's to-dos and marking
/// one done, her figures, her feedback and replacing her password. The study API and the web app both
/// work through this.
struct ParticipantDay: Sendable {
    /// Today on the study's clock.
    let day: CalendarDate
    /// Midnight at the end of today on the study's clock: after it, an item not marked counts as not done.
    let closesAt: Date
    let items: [(item: StudyTodoItem, done: Bool)]

    static func load(_ participant: StudyParticipant, portal: Portal) async throws -> ParticipantDay {
        let clock = portal.programSettings.current.clock
        let today = clock.date(of: portal.now)
        let studies = StudyRepository()
        let (schedule, marks) = try await portal.database.read { db in
            (try await studies.schedule(on: db), try await studies.marks(participantID: participant.id, on: db))
        }
        let items = participant.days(through: today)?.contains(today.dayNumber) == true ? schedule.items(on: today) : []
        return ParticipantDay(
            day: today,
            closesAt: clock.instant(startOf: today.nextDay),
            items: items.map { ($0, marks[StudyMark(itemID: $0.id, dayNumber: today.dayNumber)] != nil) }
        )
    }

    /// Why an item could not be marked.
    enum MarkRefusal: Error {
        /// The list was for a day that closed at midnight.
        case dayClosed
        /// The list is for a day still to come.
        case dayNotStarted
        /// No such item on her list today.
        case noSuchItem
    }

    /// Marks `itemID` done on `day`, which must be today; marking it again changes nothing. True when it was recorded now.
    static func mark(_ participant: StudyParticipant, itemID: Int64, day: CalendarDate, portal: Portal) async throws -> Bool {
        let now = portal.now
        let today = portal.programSettings.current.clock.date(of: now)
        guard day == today else { throw day < today ? MarkRefusal.dayClosed : MarkRefusal.dayNotStarted }
        let studies = StudyRepository()
        return try await portal.database.transaction { db -> Bool in
            guard let item = try await studies.item(id: itemID, on: db), item.applies(on: today),
                participant.days(through: today)?.contains(today.dayNumber) == true
            else { throw MarkRefusal.noSuchItem }
            let recorded = try await studies.mark(participantID: participant.id, itemID: itemID, day: today, now: now, on: db)
            if recorded {
                try await MemberEvents().record(
                    ParticipantEvent(kind: .studyTodoDone, participantID: participant.id, occurredAt: now, number: itemID),
                    on: db
                )
            }
            return recorded
        }
    }

    /// Her figures since enrolment.
    static func statistics(_ participant: StudyParticipant, portal: Portal) async throws -> StudyStatistics {
        let today = portal.programSettings.current.clock.date(of: portal.now)
        let studies = StudyRepository()
        let (schedule, marks) = try await portal.database.read { db in
            (try await studies.schedule(on: db), try await studies.marks(participantID: participant.id, on: db))
        }
        return schedule.statistics(days: participant.days(through: today), today: today, marks: Set(marks.keys))
    }

    /// Keeps her feedback (checked with `FeedbackRules.problem`) as plain text in the study's inbox; returns its id.
    static func sendFeedback(_ message: String, participant: StudyParticipant, portal: Portal) async throws -> Int64 {
        let now = portal.now
        return try await portal.database.transaction { db in
            let id = try await FeedbackRepository(program: .researchStudy).add(
                .feedback,
                body: message,
                from: .participant(participant.id),
                now: now,
                on: db
            )
            try await MemberEvents().record(ParticipantEvent(kind: .studyFeedbackSent, participantID: participant.id, occurredAt: now), on: db)
            return id
        }
    }

    /// Replaces her password (the one-time one, or her own) after checking the current one; her other
    /// sign-ins end, the one `keeping` names stays. Returns the problems by field (`current_password`,
    /// `new_password`), empty when it was changed.
    static func changePassword(
        holder: AppAccountHolder,
        current: String,
        new: String,
        actor: AuditActor,
        origin: AuditOrigin,
        portal: Portal
    ) async throws -> [String: String] {
        let studies = StudyRepository()
        guard let participant = try await portal.database.read({ db in try await studies.participant(id: holder.accountID, on: db) }) else {
            throw APIError.unauthorized
        }
        var problems: [String: String] = [:]
        if current.isEmpty { problems["current_password"] = "Enter your current password" }
        if let problem = AppAccountKind.participant.passwordProblem(new, participant.username, portal.passwordPolicy) {
            problems["new_password"] = problem
        } else if new == current {
            problems["new_password"] = "Choose a password different from your current one"
        }
        guard problems.isEmpty else { return problems }
        let stored = try await portal.database.read { db in try await studies.passwordHash(id: holder.accountID, on: db) }
        guard try await portal.passwords.verify(current, againstStored: stored) else {
            return ["current_password": "Your current password is not right"]
        }
        let hash = try await portal.passwords.hash(new)
        let now = portal.now
        try await portal.database.transaction { db in
            try await studies.setPassword(id: holder.accountID, hash: hash, now: now, on: db)
            try await AppAccountKind.participant.bearerTokens.revokeAll(ownerID: holder.accountID, keeping: holder.tokenHash, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .passwordChanged,
                    recordType: "participant",
                    recordID: "\(holder.accountID)",
                    origin: origin
                ),
                on: db
            )
        }
        return [:]
    }
}
