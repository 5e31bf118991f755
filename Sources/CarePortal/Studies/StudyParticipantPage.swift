import Foundation
import PortalPlatform
import SQLKit

/// What her page reads of her.
struct StudyParticipantRecord: Sendable {
    let participant: StudyParticipant
    let schedule: StudySchedule
    let marks: Set<StudyMark>
    let opens: [(day: CalendarDate, count: Int)]
    let feedback: [FeedbackMessage]
    let events: [ParticipantEvent]

    /// Her record with a page of her timeline (the events before `before`, or her newest); nil when she is not enrolled.
    static func load(
        id: Int64,
        timelineBefore before: (occurredAt: Int64, id: Int64)?,
        studies: StudyRepository,
        on db: any SQLDatabase
    ) async throws -> StudyParticipantRecord? {
        guard let participant = try await studies.participant(id: id, on: db) else { return nil }
        return StudyParticipantRecord(
            participant: participant,
            schedule: try await studies.schedule(on: db),
            marks: try await studies.markKeys(participantID: id, on: db),
            opens: try await studies.opensPerDay(participantID: id, on: db),
            feedback: try await FeedbackRepository(program: .researchStudy).messages(from: .participant(id), on: db),
            events: try await MemberEvents().events(participantID: id, limit: StudyTimeline.pageSize + 1, before: before, on: db)
        )
    }
}

extension StudyParticipantPage {
    /// Her page as read, on the program's clock at `now`; `pagedBack` when the timeline shows events older than her newest.
    init(_ record: StudyParticipantRecord, pagedBack: Bool, clock: ProgramClock, now: Date, layout: Layout, showsAuditLink: Bool) {
        let (participant, schedule, marks, opens, feedback, events) = (
            record.participant, record.schedule, record.marks, record.opens, record.feedback, record.events
        )
        let id = participant.id
        let today = clock.date(of: now)
        let days = participant.days(through: today)
        let statistics = schedule.statistics(days: days, today: today, marks: marks)
        let titles = Dictionary(schedule.items.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
        let shown = events.prefix(StudyTimeline.pageSize)
        let earlier = events.count > StudyTimeline.pageSize ? shown.last.flatMap(StudyTimeline.key(after:)) : nil
        var opensRows = TableRows(expectedRows: 60)
        for open in opens.prefix(60) {
            opensRows.row {
                $0.text(open.day.displayed); $0.number(String(open.count))
            }
        }
        var timelineRows = TableRows(expectedRows: shown.count)
        for event in shown {
            timelineRows.row {
                $0.text(clock.dateTime(event.occurredAt)); $0.text(StudyTimeline.describe(event, titles: titles))
            }
        }
        self.init(
            layout: layout,
            studyCode: participant.studyCode,
            statusTitle: participant.status.title,
            statusTag: participant.status.tagClass,
            details: [
                .init(key: "Arm or group", value: participant.arm ?? "None"),
                .init(key: "Enrolled", value: participant.enrolledOn.displayed),
                .init(key: "Withdrawn", value: participant.withdrawnOn?.displayed ?? "No"),
                .init(key: "App username", value: participant.username),
                .init(key: "Password", value: StudyParticipantsController.passwordState(participant, clock: clock, now: now)),
                .init(key: "Contact email", value: participant.email ?? "None"),
                .init(key: "Last active in the app", value: participant.lastActiveAt.map(clock.dateTime) ?? "Not yet")
            ],
            summary: [
                .init(key: "Days in the study (closed)", value: "\(statistics.closedDays)"),
                .init(key: "Days with every to-do done", value: "\(statistics.allDoneDays)"),
                .init(key: "Current streak", value: statistics.currentStreak == 1 ? "1 day" : "\(statistics.currentStreak) days")
            ] + statistics.items.map { .init(key: $0.item.title, value: "Done on \($0.doneDays) of \($0.offeredDays) days") },
            calendarHTML: StudyCalendar.html(days: days, today: today, schedule: schedule, marks: marks),
            opensRowsHTML: opensRows.htmlIfAny,
            feedback: feedback.map { .init(when: clock.dateTime($0.submittedAt), body: $0.body, handled: $0.handledAt != nil) },
            timelineRowsHTML: timelineRows.htmlIfAny,
            timelineCaption: !pagedBack
                ? "newest first (her last \(StudyTimeline.pageSize) events)"
                : "newest first, from \(shown.first.map { clock.dateTime($0.occurredAt) } ?? "the start") back",
            earlierTimelinePath: earlier.map {
                ListAddress(path: SiteURL.studyParticipant(id).path, parameters: [("timeline_before", $0)]).string + "#timeline"
            },
            newestTimelinePath: !pagedBack ? nil : SiteURL.studyParticipant(id).path + "#timeline",
            withdrawPath: participant.status == .active ? SiteURL.studyParticipantWithdraw(id).path : nil,
            resendClaimPath: StudyParticipantsController.maySendClaim(participant, now: now) ? SiteURL.studyParticipantClaimResend(id).path : nil,
            revokeClaimPath: participant.status == .active && participant.claim?.status(at: now) == .waiting
                ? SiteURL.studyParticipantClaimRevoke(id).path : nil,
            deletePath: SiteURL.studyParticipantDelete(id).path,
            listPath: SiteURL.studyParticipants.path,
            auditPath: ListAddress(path: SiteURL.auditLog.path, parameters: [("record", "study_participant:\(id)")]).string,
            showsAuditLink: showsAuditLink
        )
    }
}
