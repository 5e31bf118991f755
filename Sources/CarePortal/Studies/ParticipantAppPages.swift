import Foundation
import PortalPlatform

/// The participant's part of the people's web app: today's to-dos, her progress, feedback, the study's
/// contact page, and her own password (chosen first, in place of the one-time one).
extension TemplateName {
    static let appStudyToday = TemplateName("app/study/today")
    static let appStudyProgress = TemplateName("app/study/progress")
    static let appStudyContact = TemplateName("app/study/contact")
    static let appStudyPassword = TemplateName("app/study/password")
    static let appStudyClaim = TemplateName("app/study/claim")
}

extension AppNavigation {
    static let participant = AppNavigation(
        .participant,
        links: [
            ("Today", SiteURL.appStudyToday.path), ("Progress", SiteURL.appStudyProgress.path), ("Videos", SiteURL.appStudyVideos.path),
            ("Feedback", SiteURL.appStudyFeedback.path), ("Contact", SiteURL.appStudyContact.path), ("Locations", SiteURL.appStudyLocations.path)
        ]
    )
}

/// Today's to-dos, each with its Done button until it is done; the list closes at midnight.
struct ParticipantTodayPage: Page {
    static let template = TemplateName.appStudyToday

    struct Item: Encodable, Sendable {
        let anchor: String
        let title: String
        let done: Bool
        let action: String
    }

    let layout: Layout
    let dateText: String
    let closesText: String
    let summary: String?
    let items: [Item]
    let day: String
    let notice: String?

    init(layout: Layout, today: ParticipantDay, closesText: String, notice: String?) {
        self.layout = layout
        dateText = PatientDayPage.longDate(today.day)
        self.closesText = closesText
        items = today.items.map {
            Item(anchor: "item-\($0.item.id)", title: $0.item.title, done: $0.done, action: SiteURL.appStudyTodo($0.item.id).path)
        }
        summary = items.isEmpty ? nil : "\(items.filter(\.done).count) of \(items.count) done"
        day = today.day.iso
        self.notice = notice
    }
}

/// Her figures since enrolment, with each to-do's share of days done drawn and tabled.
struct ParticipantProgressPage: Page {
    static let template = TemplateName.appStudyProgress
    let layout: Layout
    let rows: [SummaryRow]
    let chart: RenderedHTML?
    let passwordPath = SiteURL.appStudyPassword.path

    struct SummaryRow: Encodable, Sendable {
        let key: String
        let value: String
    }

    init(layout: Layout, participant: StudyParticipant, figures: StudyStatistics, chartHTML: (ChartFigure) -> RenderedHTML) {
        self.layout = layout
        rows = [
            SummaryRow(key: "Your study number", value: participant.studyCode),
            SummaryRow(key: "In the study since", value: participant.enrolledOn.short),
            SummaryRow(key: "Days finished", value: "\(figures.closedDays)"),
            SummaryRow(key: "Days with everything done", value: "\(figures.allDoneDays)"),
            SummaryRow(key: "Days in a row with everything done", value: "\(figures.currentStreak)")
        ]
        let items = figures.items.filter { $0.offeredDays > 0 }
        chart =
            items.isEmpty
            ? nil
            : chartHTML(
                BarChart(
                    ChartDescription(
                        id: "study-progress",
                        title: "Days each to-do was done",
                        summary: "For each to-do, the days you marked it done out of the days it was on your list.",
                        valueTitle: "Days",
                        categoryTitle: "To-do"
                    ),
                    categories: items.map(\.item.title),
                    series: [ChartSeries("Days done", items.map { ChartValue(Double($0.doneDays), text: "\($0.doneDays) of \($0.offeredDays)") })]
                ).figure
            )
    }
}

/// The study's contact and appointments page, as the study team wrote it (made safe by SafeHTML).
struct ParticipantContactPage: Page {
    static let template = TemplateName.appStudyContact
    let layout: Layout
    let html: RenderedHTML?
    let recordOpeningsPath = SiteURL.appStudyRecordOpenings.path
}

/// Her own password: first in place of the one-time password, and whenever she wants a new one.
struct ParticipantPasswordPage: Page {
    static let template = TemplateName.appStudyPassword
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let isFirst: Bool
    let action = SiteURL.appStudyPassword.path

    init(layout: Layout, isFirst: Bool, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.isFirst = isFirst
        self.errors = errors.items
        var fields =
            [
                FormField(
                    "current_password",
                    label: isFirst ? "The one-time password you were given" : "Current password",
                    type: "password",
                    autocomplete: "current-password",
                    width: 20
                )
            ] + FormField.newPassword("new_password", label: "New password", confirmationLabel: "Confirm new password")
        errors.apply(to: &fields)
        self.fields = fields
    }
}

/// Claiming her account with the token from the study team's email: the token and the password she chooses.
struct ParticipantClaimPage: Page {
    static let template = TemplateName.appStudyClaim
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = SiteURL.appStudyClaim.path
    let signInPath = AppAccountKind.participant.signInPagePath

    init(layout: Layout, token: String = "", errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        var fields =
            [
                FormField(
                    "claim_token",
                    label: "Claim token",
                    value: token,
                    hint: "Five groups of four letters and numbers, from the study team’s email.",
                    autocomplete: "off",
                    width: 30
                )
            ] + FormField.newPassword(label: "Choose a password")
        errors.apply(to: &fields)
        self.fields = fields
    }
}
