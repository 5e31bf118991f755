import Foundation
import PortalPlatform

/// A key and its value in a summary list.
struct StudyDetail: Sendable, Encodable {
    let key: String
    let value: String
}

struct StudyDashboardPage: Page {
    struct CompletionRow: Sendable, Encodable {
        let day: String
        let cells: [String]
    }

    struct OpensRow: Sendable, Encodable {
        let day: String
        let opens: Int
        let participants: Int
    }

    static let template = TemplateName.studyDashboard
    /// The shared chart module's drawings (HTML), each above its table twin.
    let completionChart: RenderedHTML?
    let opensChart: RenderedHTML
    let layout: Layout
    let enrolled: Int
    let active: Int
    let withdrawn: Int
    let firstDay: String
    let lastDay: String
    let itemTitles: [String]
    let completionRows: [CompletionRow]
    let opensRows: [OpensRow]
    let timeZone: String
    let participantsPath: String
    let exportsPath: String
}

/// The participants list's rows (`TableRows`): her study id linking to her page, her arm or group, when she was
/// enrolled, her status and when she was last active in the app.
enum StudyParticipantRows {
    static func html(_ participants: [StudyParticipant], clock: ProgramClock) -> TableRows {
        TableRows(participants) { participant, cells in
            cells.link(participant.studyCode, to: SiteURL.studyParticipant(participant.id).path)
            cells.text(participant.arm ?? "—")
            cells.text(participant.enrolledOn.displayed)
            cells.tag(participant.status.title, tone: participant.status.tagTone)
            cells.text(participant.lastActiveAt.map(clock.dateTime) ?? "Not yet")
        }
    }
}

struct StudyParticipantsPage: Page {
    static let template = TemplateName.studyParticipants
    let layout: Layout
    /// The rendered rows (`StudyParticipantRows`).
    let rows: RenderedHTML
    let hasRows: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let enrolPath: String
}

struct StudyEnrolPage: Page {
    static let template = TemplateName.studyEnrol
    let layout: Layout
    let errors: [FormErrors.Item]
    let studyCode: FormField
    let arm: FormField
    let email: FormField
    /// How she gets her login: a one-time password, or a claim token emailed to her.
    let logins: [FilterOption]
    let loginError: String?
    let enrolledOn: DateInputField
    let action: String
    let backPath: String
}

struct StudyEnrolledPage: Page {
    static let template = TemplateName.studyEnrolled
    let layout: Layout
    let studyCode: String
    let username: String
    /// Her one-time password, shown once; nil when a claim token was emailed instead.
    let password: String?
    /// Where her claim token was emailed, and until when it works.
    let emailedTo: String?
    let claimExpires: String?
    /// Her claim token, shown once here when no mail server is set up to send it.
    let claimToken: String?
    let participantPath: String
    let enrolPath: String
}

struct StudyParticipantPage: Page {
    struct FeedbackRow: Sendable, Encodable {
        let when: String
        let body: String
        let handled: Bool
    }

    static let template = TemplateName.studyParticipant
    let layout: Layout
    let studyCode: String
    let statusTitle: String
    let statusTag: String
    let details: [StudyDetail]
    let summary: [StudyDetail]
    /// Her to-do calendar, one table per month, drawn in Swift (`StudyCalendar.html`) with every text
    /// escaped; nil before her first day.
    let calendarHTML: RenderedHTML?
    /// Her opens per day and her timeline, the tables' rows written in Swift like the calendar
    /// (`TableRows`), every text escaped; nil when there are none.
    let opensRowsHTML: RenderedHTML?
    let feedback: [FeedbackRow]
    let timelineRowsHTML: RenderedHTML?
    /// "newest first", or from which event on when she is paging back.
    let timelineCaption: String
    /// The next older page of her timeline, when there is one.
    let earlierTimelinePath: String?
    /// Back to her newest events, when showing older ones.
    let newestTimelinePath: String?
    let withdrawPath: String?
    /// Her claim token sent again, or stopped: while she has not yet claimed her account.
    let resendClaimPath: String?
    let revokeClaimPath: String?
    let deletePath: String
    let listPath: String
    let auditPath: String
    let showsAuditLink: Bool
}

struct StudyDeletePage: Page {
    static let template = TemplateName.studyDelete
    let layout: Layout
    let studyCode: String
    let action: String
    let participantPath: String
}

struct StudyTodosPage: Page {
    struct Row: Sendable, Encodable {
        let title: String
        let period: String
        let state: String
        let path: String
    }

    static let template = TemplateName.studyTodos
    let layout: Layout
    let current: [Row]
    let ended: [Row]
    let today: String
    let newPath: String
}

struct StudyTodoPage: Page {
    static let template = TemplateName.studyTodo
    let layout: Layout
    let errors: [FormErrors.Item]
    let heading: String
    let title: FormField
    let startsOn: DateInputField?
    let startedText: String?
    let endsOn: DateInputField
    let rewordNote: String?
    let action: String
    let backPath: String
}

struct StudyContactPage: Page {
    static let template = TemplateName.studyContact
    let layout: Layout
    let errors: [FormErrors.Item]
    let markdown: String
    let error: String?
    /// SafeHTML's output, shown as it is.
    let previewHTML: RenderedHTML?
    let maximum: Int
    let action: String
}

struct StudyExportsPage: Page {
    struct File: Sendable, Encodable {
        let title: String
        let summary: String
        let path: String
        let fileName: String
    }

    static let template = TemplateName.studyExports
    let layout: Layout
    let files: [File]
    let timeZone: String
}
