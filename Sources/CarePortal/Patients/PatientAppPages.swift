import Foundation
import PortalPlatform

/// The patient's part of the people's web app: her day with its doses and sessions to log, her
/// progress, her reminders and her doctor. Each page's model is made from the same domain values the
/// patient API answers with.
extension TemplateName {
    static let appPatientDay = TemplateName("app/patient/day")
    static let appPatientProgress = TemplateName("app/patient/progress")
    static let appPatientReminders = TemplateName("app/patient/reminders")
    static let appPatientDoctor = TemplateName("app/patient/doctor")
    static let appPatientClaim = TemplateName("app/patient/claim")
    static let appPatientClaimAccount = TemplateName("app/patient/claim-account")
}

extension AppNavigation {
    static let patient = AppNavigation(
        .patient,
        links: [
            ("Today", SiteURL.appPatientDay.path), ("Progress", SiteURL.appPatientProgress.path),
            ("Reminders", SiteURL.appPatientReminders.path), ("My doctor", SiteURL.appPatientDoctor.path)
        ]
    )
}

/// One day of her schedule, each dose or session with its Done and Missed buttons.
struct PatientDayPage: Page {
    static let template = TemplateName.appPatientDay

    struct Entry: Encodable, Sendable {
        let anchor: String
        let name: String
        let detail: String
        /// "Dose 2 of 3" when it is due more than once that day.
        let slotText: String?
        let note: String
        let statusText: String
        let statusTag: String
        let isDone: Bool
        let isMissed: Bool
        let action: String
    }

    struct Group: Encodable, Sendable {
        let heading: String
        let entries: [Entry]
    }

    let layout: Layout
    let heading: String
    let dateText: String
    let summary: String?
    let groups: [Group]
    let canLog: Bool
    let isToday: Bool
    let previousPath: String
    let previousTitle: String
    let nextPath: String?
    let nextTitle: String?
    let todayPath: String

    init(layout: Layout, schedule: PatientDay) {
        self.layout = layout
        let day = schedule.day
        isToday = day == schedule.today
        heading = isToday ? "Today" : (day == schedule.today.adding(days: -1) ? "Yesterday" : day.weekdayAndDay)
        dateText = Self.longDate(day)
        canLog = schedule.canLog
        func entry(_ entry: ScheduleEntry) -> Entry {
            let slots = entry.prescription.timesPerDay
            let word = entry.prescription.kind == .medication ? "Dose" : "Session"
            return Entry(
                anchor: "entry-\(entry.entryID)",
                name: entry.prescription.name,
                detail: entry.prescription.dose,
                slotText: slots > 1 ? "\(word) \(entry.slot) of \(slots)" : nil,
                note: entry.prescription.note,
                statusText: entry.status.map { $0 == .done ? "Done" : "Missed" } ?? "Not logged yet",
                statusTag: entry.status.map { $0 == .done ? "tag--green" : "tag--red" } ?? "tag--grey",
                isDone: entry.status == .done,
                isMissed: entry.status == .missed,
                action: SiteURL.appPatientEntry(day: day.iso, entry: entry.entryID).path
            )
        }
        let medications = schedule.entries.filter { $0.prescription.kind == .medication }.map(entry)
        let exercises = schedule.entries.filter { $0.prescription.kind == .exercise }.map(entry)
        groups = [Group(heading: "Medicines", entries: medications), Group(heading: "Exercises", entries: exercises)].filter { !$0.entries.isEmpty }
        let done = schedule.entries.filter { $0.status == .done }.count
        summary = schedule.entries.isEmpty ? nil : "\(done) of \(schedule.entries.count) done"
        previousPath = Self.path(schedule.previous, today: schedule.today)
        previousTitle = schedule.previous == schedule.today.adding(days: -1) ? "Yesterday" : schedule.previous.weekdayAndDay
        nextPath = schedule.next.map { Self.path($0, today: schedule.today) }
        nextTitle = schedule.next.map { $0 == schedule.today ? "Today" : $0.weekdayAndDay }
        todayPath = SiteURL.appPatientDay.path
    }

    /// Her day's address: today's is the part's home.
    static func path(_ day: CalendarDate, today: CalendarDate) -> String {
        day == today ? SiteURL.appPatientDay.path : "\(SiteURL.appPatientDay.path)?date=\(day.iso)"
    }

    /// "Sunday 29 November 2026".
    static func longDate(_ day: CalendarDate) -> String {
        let weekday = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][day.weekdayFromMonday]
        return "\(weekday) \(day.day) \(CalendarDate.monthNames[day.month - 1]) \(day.year)"
    }
}

/// Her progress over the last days: how much she logged as done, for each medicine and exercise.
struct PatientProgressPage: Page {
    static let template = TemplateName.appPatientProgress

    struct Span: Encodable, Sendable {
        let title: String
        let path: String
        let isCurrent: Bool
    }

    /// One choice of what the page counts: everything, all medicines, all exercise, or one of hers.
    struct Activity: Encodable, Sendable {
        let value: String
        let title: String
        let isSelected: Bool
    }

    let layout: Layout
    let spans: [Span]
    let days: Int
    let activities: [Activity]
    let summary: String
    /// The chart with its table, or nil when nothing was due.
    let chart: RenderedHTML?
    let action = SiteURL.appPatientProgress.path

    static let spanDays = [7, 30, 90]

    /// `activity` is what she chose (`medication`, `exercise`, or one item as `medication:12`); nil counts everything.
    init(
        layout: Layout,
        summary adherence: AdherenceSummary,
        days: Int,
        prescriptions: [Prescription],
        activity: String?,
        chartHTML: (ChartFigure) -> RenderedHTML
    ) {
        self.layout = layout
        self.days = days
        let kept = activity.map { "&activity=\($0)" } ?? ""
        spans = Self.spanDays.map { Span(title: "\($0) days", path: "\(SiteURL.appPatientProgress.path)?days=\($0)\(kept)", isCurrent: $0 == days) }
        var seen: Set<String> = []
        let items = prescriptions.sorted {
            ($0.kind == .medication ? 0 : 1, $0.position, $0.id) < ($1.kind == .medication ? 0 : 1, $1.position, $1.id)
        }
        .filter { seen.insert("\($0.kind.rawValue):\($0.itemID)").inserted }
        activities =
            [Activity(value: "", title: "All medicines and exercise", isSelected: activity == nil)]
            + Prescription.Kind.allCases.map {
                Activity(value: $0.rawValue, title: $0 == .medication ? "All medicines" : "All exercise", isSelected: activity == $0.rawValue)
            }
            + items.map {
                Activity(value: "\($0.kind.rawValue):\($0.itemID)", title: $0.name, isSelected: activity == "\($0.kind.rawValue):\($0.itemID)")
            }
        let chosenName = activities.first { $0.isSelected && activity != nil }?.title
        let total = adherence.total
        if total.scheduled == 0 {
            summary = chosenName.map { "Nothing of “\($0)” was due in the last \(days) days." } ?? "Nothing was due in the last \(days) days."
            chart = nil
            return
        }
        let what = chosenName.map { "times of “\($0)”" } ?? "doses and sessions"
        summary = "In the last \(days) days you logged \(total.done) of \(total.scheduled) \(what) as done (\(total.percentText))."
        if let activity, activity.contains(":") {
            // One medicine or exercise: day by day, what was done and what was not.
            let shown = adherence.days.filter { $0.count.scheduled > 0 }
            chart = chartHTML(
                ColumnChart(
                    ChartDescription(
                        id: "progress",
                        title: "\(chosenName ?? "") each day",
                        summary: "How many of each day's doses or sessions you logged as done, and how many you did not, on the days it was due.",
                        valueTitle: "Times",
                        categoryTitle: "Day"
                    ),
                    categories: shown.map(\.day.short),
                    series: [
                        ChartSeries("Done", shown.map { ChartValue(Double($0.count.done), text: "\($0.count.done) of \($0.count.scheduled)") }),
                        ChartSeries(
                            "Not done",
                            shown.map { ChartValue(Double($0.count.scheduled - $0.count.done), text: "\($0.count.scheduled - $0.count.done)") }
                        )
                    ],
                    stacked: true
                ).figure
            )
            return
        }
        let counted = adherence.items.filter { $0.count.scheduled > 0 }
        chart = chartHTML(
            BarChart(
                ChartDescription(
                    id: "progress",
                    title: "Done, by medicine and exercise",
                    summary: "The share of each one's doses or sessions you logged as done in the last \(days) days.",
                    valueTitle: "Per cent done",
                    categoryTitle: "Medicine or exercise"
                ),
                categories: counted.map(\.name),
                series: [
                    ChartSeries(
                        "Done",
                        counted.map {
                            ChartValue(Double($0.count.percent ?? 0), text: "\($0.count.percentText) (\($0.count.done) of \($0.count.scheduled))")
                        }
                    )
                ]
            ).figure
        )
    }
}

/// How often the app reminds her, and whether by email as well.
struct PatientRemindersPage: Page {
    static let template = TemplateName.appPatientReminders

    struct Choice: Encodable, Sendable {
        let value: String
        let title: String
        let isSelected: Bool
    }

    let layout: Layout
    let errors: [FormErrors.Item]
    let frequencyError: String?
    let choices: [Choice]
    let email: Bool
    let saved: Bool
    let action = SiteURL.appPatientReminders.path

    init(layout: Layout, settings: ReminderSettings, errors: FormErrors = FormErrors(), saved: Bool = false) {
        self.layout = layout
        self.errors = errors.items
        frequencyError = errors.items.first { $0.field == "frequency" }?.message
        choices = ReminderSettings.Frequency.allCases.map { Choice(value: $0.rawValue, title: $0.title, isSelected: $0 == settings.frequency) }
        email = settings.email
        self.saved = saved
    }
}

/// Her physician's name, where the practice is and its phone, a link to call.
struct PatientDoctorPage: Page {
    static let template = TemplateName.appPatientDoctor
    let layout: Layout
    let name: String
    let practiceAddress: String?
    let practicePhone: String?
    let practicePhoneLink: String?
    let recordOpeningsPath = SiteURL.appPatientRecordOpenings.path
}

/// The first step of claiming her account: the token from her physician's email.
struct PatientClaimPage: Page {
    static let template = TemplateName.appPatientClaim
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action = SiteURL.appPatientClaim.path
    let signInPath = AppAccountKind.patient.signInPagePath

    init(layout: Layout, token: String = "", errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        var fields = [
            FormField(
                "claim_token",
                label: "Claim token",
                value: token,
                hint: "Five groups of four letters and numbers, from the email your physician sent.",
                autocomplete: "off",
                width: 30
            )
        ]
        errors.apply(to: &fields)
        self.fields = fields
    }
}

/// The second step: her details as her physician recorded them to confirm, and the username and password she chooses.
struct PatientClaimAccountPage: Page {
    static let template = TemplateName.appPatientClaimAccount
    let layout: Layout
    let errors: [FormErrors.Item]
    let token: String
    let name: String
    let medicalNumber: String
    let physicianName: String
    let confirmError: String?
    let fields: [FormField]
    let action = SiteURL.appPatientClaimAccount.path

    init(layout: Layout, token: String, patient: Patient, physicianName: String, username: String = "", errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        self.token = token
        name = patient.fullName
        medicalNumber = patient.contact.medicalNumber
        self.physicianName = physicianName
        confirmError = errors.items.first { $0.field == "confirm" }?.message
        var fields =
            [
                FormField(
                    "username",
                    label: "Choose a username",
                    value: username,
                    hint: "Up to 21 letters, numbers, full stops, hyphens or underscores. You sign in with it.",
                    autocomplete: "username",
                    width: 20
                )
            ] + FormField.newPassword(label: "Choose a password")
        errors.apply(to: &fields)
        self.fields = fields
    }
}
