import Foundation
import PortalPlatform

extension TemplateName {
    static let surveys = TemplateName("surveys/list")
    static let surveyForm = TemplateName("surveys/form")
    static let survey = TemplateName("surveys/survey")
    static let surveyQuestion = TemplateName("surveys/question")
    static let surveyResults = TemplateName("surveys/results")
    static let surveyTextAnswers = TemplateName("surveys/answers")
}

/// How a survey is described in lists and on its page.
struct SurveySummary: Sendable, Encodable {
    let path: String
    let title: String
    let statusTitle: String
    let statusTone: TableRows.TagTone
    let statusTag: String
    /// "1 Dec 2026 to 14 Dec 2026".
    let days: String
    let audience: String

    init(_ survey: Survey, cohorts: [Cohort], today: CalendarDate) {
        path = SiteURL.survey(survey.id).path
        title = survey.title
        let isLive = survey.isOpen(on: today)
        let ended = survey.status == .open && survey.closesOn.dayNumber < today.dayNumber
        statusTitle =
            switch survey.status {
            case .draft: "Draft"
            case .open: isLive ? "Open" : ended ? "Ended" : "Opens \(Self.day(survey.opensOn))"
            case .closed: "Closed"
            }
        statusTone =
            switch survey.status {
            case .draft: .grey
            case .open: isLive ? .green : ended ? .grey : .blue
            case .closed: .grey
            }
        statusTag = statusTone.tagClass
        days = "\(Self.day(survey.opensOn)) to \(Self.day(survey.closesOn))"
        audience = BroadcastRow.audience(survey.cohortIDs, cohorts: cohorts)
    }

    static func day(_ date: CalendarDate) -> String {
        "\(date.day) \(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][date.month - 1]) \(date.year)"
    }

    static func count(_ count: Int, _ noun: String) -> String { count == 1 ? "1 \(noun)" : "\(count) \(noun)s" }

    /// A list's length in words ("1 answer", "240 answers", "more than 1,000 answers").
    static func count<Item>(_ page: PageOf<Item>, _ noun: String) -> String {
        page.totalIsExact ? count(page.totalCount, noun) : "\(page.totalText) \(noun)s"
    }
}

/// The surveys list's rows (`TableRows`): the title linking to the survey, who it is for, its days, its status,
/// and how many questions and responses it has.
enum SurveyRows {
    static func html(_ surveys: [(summary: SurveySummary, questions: Int, responses: Int)]) -> TableRows {
        TableRows(surveys) { survey, cells in
            cells.link(survey.summary.title, to: survey.summary.path)
            cells.text(survey.summary.audience)
            cells.text(survey.summary.days)
            cells.tag(survey.summary.statusTitle, tone: survey.summary.statusTone)
            cells.number(String(survey.questions))
            cells.number(String(survey.responses))
        }
    }
}

struct SurveysPage: Page {
    static let template = TemplateName.surveys
    let layout: Layout
    /// The rendered rows (`SurveyRows`).
    let rows: RenderedHTML
    let hasRows: Bool
    let pagination: RenderedHTML
    let newPath = SiteURL.newSurvey.path
}

struct SurveyFormPage: Page {
    static let template = TemplateName.surveyForm
    let layout: Layout
    let heading: String
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let introduction: String
    let introductionError: String?
    let maximumIntroduction = Surveys.introductionMaximumLength
    let opensOn: DateInputField
    let closesOn: DateInputField
    let audienceError: String?
    let everyone: Bool
    let chosenCohorts: Bool
    let cohorts: [BroadcastFormPage.Choice]
    let cohortsError: String?
    let timeZone: String
    let action: String
    let backPath: String
    let backTitle: String

    init(
        _ form: SurveyForm,
        errors: FormErrors,
        cohorts: [Cohort],
        timeZone: TimeZone,
        heading: String,
        action: String,
        backPath: String,
        backTitle: String,
        layout: Layout
    ) {
        self.layout = layout
        self.heading = heading
        self.errors = errors.items
        var fields = [
            FormField(
                "title",
                label: "Title",
                value: form.title,
                hint: "Up to \(Surveys.titleMaximumLength) characters. Members see it on the app's home screen.",
                width: 30
            )
        ]
        errors.apply(to: &fields)
        self.fields = fields
        introduction = form.introduction
        introductionError = errors["introduction"]
        func problem(_ name: String) -> DateInputProblem? {
            errors.items.first { $0.field.hasPrefix("\(name)_") }.map { item in
                DateInputProblem(message: item.message, parts: [DateInputValue.Part(rawValue: String(item.field.dropFirst(name.count + 1))) ?? .day])
            }
        }
        opensOn = DateInputField(
            "opens_on",
            legend: "First day it is open",
            hint: "From the start of this day. For example, 1 12 2026",
            value: form.opensValue,
            problem: problem("opens_on")
        )
        closesOn = DateInputField(
            "closes_on",
            legend: "Last day it is open",
            hint: "To the end of this day. For example, 14 12 2026",
            value: form.closesValue,
            problem: problem("closes_on")
        )
        audienceError = errors["audience"]
        everyone = form.audience == "everyone"
        chosenCohorts = form.audience == "cohorts"
        self.cohorts = cohorts.map {
            BroadcastFormPage.Choice(value: String($0.id), title: $0.name, isSelected: form.cohorts.contains(String($0.id)))
        }
        cohortsError = errors["cohorts"]
        self.timeZone = ProgramTimeZone.title(of: timeZone.identifier)
        self.action = action
        self.backPath = backPath
        self.backTitle = backTitle
    }
}

struct SurveyPage: Page {
    struct QuestionRow: Sendable, Encodable {
        let number: Int
        let kindTitle: String
        let prompt: String
        let required: Bool
        /// The choices, or the scale's ends, or the longest answer.
        let details: [String]
        let editPath: String?
        let movePath: String?
        let removePath: String?
        let canMoveUp: Bool
        let canMoveDown: Bool
    }

    struct AddLink: Sendable, Encodable {
        let title: String
        let path: String
    }

    static let template = TemplateName.survey
    let layout: Layout
    let summary: SurveySummary
    let introduction: String
    let createdBy: String
    let created: String
    let responses: String
    let questions: [QuestionRow]
    let isDraft: Bool
    /// Why the questions cannot change, when they cannot.
    let lockedNotice: String?
    let editPath: String?
    let addLinks: [AddLink]
    let publishPath: String?
    let closePath: String?
    let draftPath: String?
    let resultsPath: String
    let listPath = SiteURL.surveys.path
}

struct QuestionFormPage: Page {
    static let template = TemplateName.surveyQuestion
    let layout: Layout
    let heading: String
    let kind: String
    let kindTitle: String
    let errors: [FormErrors.Item]
    let prompt: FormField
    let required: Bool
    let hasChoices: Bool
    let choices: String
    let choicesError: String?
    let isScale: Bool
    let scaleFields: [FormField]
    let isText: Bool
    let lengthField: FormField?
    let action: String
    let backPath: String
    let choicesHint =
        "One answer on each line, \(Surveys.choicesRange.lowerBound) to \(Surveys.choicesRange.upperBound) answers of up to \(Surveys.choiceMaximumLength) characters."

    init(_ form: QuestionForm, kind: SurveyQuestion.Kind, errors: FormErrors, heading: String, action: String, backPath: String, layout: Layout) {
        self.layout = layout
        self.heading = heading
        self.kind = kind.rawValue
        kindTitle = kind.title
        self.errors = errors.items
        var prompt = FormField(
            "prompt",
            label: "Question",
            value: form.prompt,
            hint: "Plain words, up to \(Surveys.promptMaximumLength) characters.",
            width: 30
        )
        prompt.error = errors["prompt"]
        self.prompt = prompt
        required = form.required == "yes"
        hasChoices = kind.hasChoices
        choices = form.choices
        choicesError = errors["choices"]
        isScale = kind == .scale
        var scaleFields = [
            FormField("scale_low_label", label: "What 1 means", value: form.scaleLowLabel, hint: "For example, Not at all", width: 20),
            FormField("scale_high_label", label: "What 5 means", value: form.scaleHighLabel, hint: "For example, Very much", width: 20)
        ]
        errors.apply(to: &scaleFields)
        self.scaleFields = isScale ? scaleFields : []
        isText = kind == .text
        if kind == .text {
            var field = FormField(
                "maximum_length",
                label: "Longest answer, in characters",
                value: form.maximumLength,
                hint: "From \(Surveys.textAnswerLengths.lowerBound) to \(Surveys.textAnswerLengths.upperBound).",
                width: 10
            )
            field.error = errors["maximum_length"]
            lengthField = field
        } else {
            lengthField = nil
        }
        self.action = action
        self.backPath = backPath
    }
}

/// A survey's results: per question its counts as a bar chart (the shared chart module), with the same
/// numbers in a table beneath.
struct SurveyResultsPage: Page {
    struct Row: Sendable, Encodable {
        let label: String
        let count: Int
        let percent: String
    }

    struct Text: Sendable, Encodable {
        let text: String
        let submitted: String
    }

    struct QuestionResult: Sendable, Encodable {
        let number: Int
        let prompt: String
        let kindTitle: String
        let answered: String
        let headingID: String
        /// The chart's HTML, drawn by the shared chart module; empty for free text.
        let chart: RenderedHTML
        let rows: [Row]
        let isText: Bool
        let texts: [Text]
        let textCount: String
        let answersPath: String?
    }

    static let template = TemplateName.surveyResults
    static let textsShown = 5

    let layout: Layout
    let summary: SurveySummary
    let responses: String
    let questions: [QuestionResult]
    let exportPath: String
    let surveyPath: String

    /// Each answer's count and its share of those who answered the question.
    static func rows(_ labels: [String], counts: [Int: Int], answered: Int) -> [Row] {
        labels.enumerated().map { index, label in
            let count = counts[index + 1] ?? 0
            return Row(label: label, count: count, percent: ChartFormat.percent(answered == 0 ? 0 : Double(count) / Double(answered)))
        }
    }

    /// The question's answers as horizontal bars, each labelled with its count and share.
    static func chart(questionID: Int64, number: Int, rows: [Row], pages: PageRenderer) -> RenderedHTML {
        var figure = BarChart(
            ChartDescription(
                id: "question-\(questionID)-chart",
                title: "Answers to question \(number)",
                summary: "How many members chose each answer, and their share of those who answered the question.",
                valueTitle: "Members",
                categoryTitle: "Answer"
            ),
            categories: rows.map(\.label),
            series: [ChartSeries("Members", rows.map { ChartValue(Double($0.count), text: "\(ChartFormat.count($0.count)) (\($0.percent))") })]
        ).figure
        figure.tableBeneath = false
        return pages.html(figure)
    }
}

struct TextAnswersPage: Page {
    static let template = TemplateName.surveyTextAnswers
    let layout: Layout
    let surveyTitle: String
    let prompt: String
    let count: String
    let answers: [SurveyResultsPage.Text]
    let pagination: RenderedHTML
    let resultsPath: String
}
