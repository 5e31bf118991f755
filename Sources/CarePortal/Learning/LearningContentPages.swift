import Foundation
import PortalPlatform

/// A choice in a group of radios or a select.
struct LearningOption: Sendable, Encodable {
    let value: String
    let title: String
    let isSelected: Bool
}

/// The stage and status inputs both module and video forms have.
struct LearningTargetFields: Sendable, Encodable {
    let stageOptions: [LearningOption]
    let stageError: String?
    let weekFrom: FormField
    let weekTo: FormField
    let statusOptions: [LearningOption]
    let statusError: String?
    /// Whether "Who it is for" (a stage of pregnancy) is asked; a study's videos are for every participant.
    let asksStage: Bool

    init(values: [String: String], errors: FormErrors, asksStage: Bool = true) {
        self.asksStage = asksStage
        let stage = values["stage"] ?? "all"
        stageOptions = LearningStage.choices.map { LearningOption(value: $0.code, title: $0.title, isSelected: $0.code == stage) }
        stageError = errors["stage"]
        var fields = [
            FormField("week_from", label: "From week", value: values["week_from"] ?? "", width: 10),
            FormField("week_to", label: "To week", value: values["week_to"] ?? "", width: 10)
        ]
        errors.apply(to: &fields)
        weekFrom = fields[0]
        weekTo = fields[1]
        let status = values["status"] ?? LearningStatus.draft.rawValue
        statusOptions = LearningStatus.allCases.map { LearningOption(value: $0.rawValue, title: $0.title, isSelected: $0.rawValue == status) }
        statusError = errors["status"]
    }
}

/// The learning modules list's rows (`TableRows`): the title linking to the module, its category, the stage it is
/// for, its place in the order, how many quiz questions it has and its status.
enum LearningModuleRows {
    static func html(_ modules: [LearningModule], questionCounts: [Int64: Int]) -> TableRows {
        TableRows(modules) { module, cells in
            cells.link(module.title, to: SiteURL.learningModule(module.id).path)
            cells.text(module.category)
            cells.text(module.stage.title)
            cells.text(String(module.position))
            cells.text(String(questionCounts[module.id] ?? 0))
            cells.tag(module.status.title, tone: module.status.tagTone)
        }
    }
}

struct LearningModulesPage: Page {
    static let template = TemplateName.learningModules
    let layout: Layout
    /// The rendered rows (`LearningModuleRows`).
    let modules: RenderedHTML
    let hasModules: Bool
    /// The rendered `PaginationView`.
    let pagination: RenderedHTML
    let newPath: String
    let videosPath: String
    let backPath: String
}

struct LearningModulePage: Page {
    struct QuestionRow: Sendable, Encodable {
        let number: Int
        let prompt: String
        let correctAnswers: String
        let editPath: String
        let deletePath: String
    }

    static let template = TemplateName.learningModule
    let layout: Layout
    let errors: [FormErrors.Item]
    let heading: String
    let action: String
    let fields: [FormField]
    let summary: FormField
    let body: FormField
    let linksField: FormField
    let target: LearningTargetFields
    let videoOptions: [LearningOption]
    let previewHTML: RenderedHTML?
    let questions: [QuestionRow]?
    let hasQuestions: Bool
    let newQuestionPath: String?
    let backPath: String
    let summaryMaximum: Int
    /// The moods after which the module is recommended, ticked or not.
    let moodChoices: [LearningOption]
    static let moodChoices: [Mood.Group] = [.neutral, .negative]
}

struct QuizQuestionPage: Page {
    struct ChoiceRow: Sendable, Encodable {
        let number: Int
        let value: String
        let isCorrect: Bool
    }

    static let template = TemplateName.quizQuestion
    let layout: Layout
    let errors: [FormErrors.Item]
    let heading: String
    let moduleTitle: String
    let action: String
    let prompt: FormField
    let choices: [ChoiceRow]
    let choicesError: String?
    let explanation: FormField
    let deletePath: String?
    let backPath: String
}

struct LearningVideosPage: Page {
    struct Row: Sendable, Encodable {
        let title: String
        let category: String
        let length: String
        let source: String
        let stage: String
        let status: String
        let statusClass: String
        let path: String
    }

    static let template = TemplateName.learningVideos
    let layout: Layout
    let title: String
    let introduction: String
    let asksStage: Bool
    let videos: [Row]
    let newPath: String
    let otherPath: String?
    let otherTitle: String?
    let backPath: String
    let backTitle: String

    init(layout: Layout, library: VideoLibrary, videos: [Row]) {
        self.layout = layout
        title = library.title
        introduction = library.introduction
        asksStage = library.asksStage
        self.videos = videos
        newPath = library.newURL.path
        otherPath = library.otherLink?.path
        otherTitle = library.otherLink?.title
        backPath = library.backPath
        backTitle = library.backTitle
    }
}

struct LearningVideoPage: Page {
    static let template = TemplateName.learningVideo
    let layout: Layout
    let errors: [FormErrors.Item]
    let heading: String
    let action: String
    let fields: [FormField]
    let description: FormField
    let sourceLink: Bool
    let sourceFile: Bool
    let sourceError: String?
    let url: FormField
    let file: FormField
    let currentFile: String?
    let currentFilePath: String?
    let target: LearningTargetFields
    let maximumSize: String
    let backPath: String
}
