import Foundation
import PortalPlatform

/// A member's own calendar and its reminders. Only she reads or changes it; no staff page shows it.
struct MemberCalendar: Sendable {
    /// A reminder more than this late (the servers were down through it) is skipped, not sent late.
    static let lateness: TimeInterval = 15 * 60
    let portal: Portal
    let repository = CalendarRepository()
    private var clock: ProgramClock { portal.programSettings.current.clock }

    func add(_ draft: CalendarEventDraft, for memberID: Int64) async throws -> CalendarEvent {
        let now = portal.now
        return try await portal.database.transaction { db in
            guard try await repository.count(memberID: memberID, on: db) < CalendarRules.maximumEvents else {
                throw APIError(
                    status: .conflict,
                    code: "calendar_full",
                    message: "A calendar can hold up to \(CalendarRules.maximumEvents) events. Delete some you no longer need."
                )
            }
            let id = try await repository.insert(draft, memberID: memberID, next: next(of: draft, memberID: memberID, after: now), now: now, on: db)
            return try await repository.find(id: id, memberID: memberID, on: db)!
        }
    }

    func change(_ id: Int64, to draft: CalendarEventDraft, for memberID: Int64) async throws -> CalendarEvent {
        let now = portal.now
        return try await portal.database.transaction { db in
            guard try await repository.find(id: id, memberID: memberID, on: db) != nil else { throw APIError.notFound }
            try await repository.update(id: id, memberID: memberID, draft, next: next(of: draft, memberID: memberID, after: now), now: now, on: db)
            // A reminder of the event as it was, not yet read, would now mislead.
            try await portal.notifications.withdrawUnread(about: .calendarEvent(id), of: .member(memberID), on: db)
            return try await repository.find(id: id, memberID: memberID, on: db)!
        }
    }

    func delete(_ id: Int64, for memberID: Int64) async throws {
        try await portal.database.transaction { db in
            guard try await repository.delete(id: id, memberID: memberID, on: db) else { throw APIError.notFound }
            try await portal.notifications.withdrawUnread(about: .calendarEvent(id), of: .member(memberID), on: db)
        }
    }

    /// Every occurrence of `events` from `start` until `end`, in time order (an event's id breaks ties).
    static func occurrences(
        of events: [CalendarEvent],
        from start: Date,
        until end: Date,
        clock: ProgramClock,
        limit: Int = 500
    ) -> [(event: CalendarEvent, at: Date)] {
        events
            .flatMap { event in event.occurrences(from: start, until: end, clock: clock, limit: limit).map { (event: event, at: $0) } }
            .sorted { ($0.at, $0.event.id) < ($1.at, $1.event.id) }
    }

    private func next(of draft: CalendarEventDraft, memberID: Int64, after now: Date) -> Date? {
        CalendarEvent(
            id: 0,
            memberID: memberID,
            kind: draft.kind,
            title: draft.title,
            note: draft.note,
            startsOn: draft.startsOn,
            times: draft.times,
            repeats: draft.repeats,
            endsOn: draft.endsOn,
            createdAt: now,
            updatedAt: now,
            nextOccurrenceAt: nil
        ).occurrence(after: now, clock: clock)
    }

    /// Writes every reminder that is due, once whichever servers run this, and moves each event on to
    /// its next occurrence; returns how many reminders were written.
    @discardableResult
    func remindDue() async throws -> Int {
        let now = portal.now
        let clock = self.clock
        var written: [Int64] = []
        while true {
            let due = try await portal.database.read { db in try await repository.due(now: now, limit: 100, on: db) }
            var moved = 0
            for item in due {
                // (moved on, reminder written)
                let outcome = try await portal.database.transaction { db -> (Bool, Bool) in
                    let next = item.event.occurrence(after: item.occurrence, clock: clock)
                    guard try await repository.advance(id: item.event.id, from: item.occurrence, to: next, on: db) else { return (false, false) }
                    guard item.occurrence > now.addingTimeInterval(-Self.lateness) else { return (true, false) }
                    return (
                        true,
                        try await portal.notifications.write(
                            NewNotification(
                                kind: .calendarReminder,
                                message: "\(item.event.title) at \(TimeOfDay(minutes: clock.minuteOfDay(of: item.occurrence)).text)",
                                subject: .calendarEvent(item.event.id),
                                onceKey: "calendar:\(item.event.id):\(item.occurrence.millisecondsSince1970)"
                            ),
                            to: .member(item.event.memberID),
                            on: db
                        )
                    )
                }
                if outcome.0 { moved += 1 }
                if outcome.1 { written.append(item.event.memberID) }
            }
            if due.count < 100 || moved == 0 { break }
        }
        if !written.isEmpty { await portal.announceNotifications(to: .members(written)) }
        return written.count
    }
}

extension NotificationSubject {
    static let calendarEventType = "calendar_event"
    static func calendarEvent(_ id: Int64) -> NotificationSubject { NotificationSubject(calendarEventType, id: id) }
}
