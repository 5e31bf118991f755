import Foundation
import PortalPlatform
import SQLKit

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

    /// What the page shows besides the module and its form: the library's videos to choose from, and the
    /// module's quiz questions (none for a new one).
    struct Reads: Sendable {
        let videos: [LearningVideo]
        let questions: [QuizQuestion]?

        static func load(_ module: LearningModule?, content: LearningContentRepository, on db: any SQLDatabase) async throws -> Reads {
            Reads(
                videos: try await content.videos(on: db),
                questions: try await module.asyncMap { try await content.questions(moduleIDs: [$0.id], on: db) }
            )
        }
    }

    /// A new module's page (`module` nil) or a module's, with the form's values and what to fix; `preview` is
    /// the text as members will read it. `layout` makes the page's layout for its heading.
    init(
        module: LearningModule?,
        values: [String: String],
        errors: FormErrors,
        preview: String?,
        reads: Reads,
        layout: (String) -> Layout
    ) {
        var fields = [
            FormField("title", label: "Title", value: values["title"] ?? "", width: 30),
            FormField(
                "category",
                label: "Category",
                value: values["category"] ?? "",
                hint: "Modules and videos are grouped by it in the app, like Nutrition or Labour and birth",
                width: 20
            ),
            FormField("position", label: "Order", value: values["position"] ?? "", hint: "Lower numbers come first within a category", width: 10)
        ]
        errors.apply(to: &fields)
        // A textarea's rows travel in `type`, which a textarea has no other use for.
        var summary = FormField(
            "summary",
            label: "Summary",
            value: values["summary"] ?? "",
            hint: "One or two sentences shown in the list, up to \(LearningRules.summaryMaximumLength) characters.",
            type: "3"
        )
        summary.error = errors["summary"]
        var body = FormField(
            "body",
            label: "Text",
            value: values["body"] ?? "",
            hint: "Markdown: **bold**, *italic*, ## headings, lists starting with “-”, and links. Use Preview to check it.",
            type: "14"
        )
        body.error = errors["body"]
        var links = FormField(
            "links",
            label: "Links (optional)",
            value: values["links"] ?? "",
            hint: "One per line: a title, a bar and an address starting with https://, like NHS advice | https://www.nhs.uk",
            type: "4"
        )
        links.error = errors["links"]
        let chosenVideo = values["video_id"] ?? ""
        let heading = module.map { "Change \($0.title)" } ?? "Write a module"
        let questionRows = reads.questions.map { list in
            list.enumerated().map { index, question in
                QuestionRow(
                    number: index + 1,
                    prompt: question.prompt,
                    correctAnswers: question.choices.filter(\.isCorrect).map(\.text).joined(separator: "; "),
                    editPath: SiteURL.quizQuestion(question.id).path,
                    deletePath: SiteURL.deleteQuizQuestion(question.id).path
                )
            }
        }
        self.layout = layout(heading)
        self.errors = errors.items
        self.heading = heading
        action = (module.map { SiteURL.learningModule($0.id) } ?? .newLearningModule).path
        self.fields = fields
        self.summary = summary
        self.body = body
        linksField = links
        target = LearningTargetFields(values: values, errors: errors)
        videoOptions =
            [LearningOption(value: "", title: "No video", isSelected: chosenVideo.isEmpty)]
            + reads.videos.map {
                LearningOption(value: String($0.id), title: "\($0.title) (\($0.lengthText))", isSelected: String($0.id) == chosenVideo)
            }
        previewHTML = preview.map(RenderedHTML.init(sanitizedHTML:))
        questions = questionRows
        hasQuestions = questionRows?.isEmpty == false
        newQuestionPath = module.map { SiteURL.newQuizQuestion($0.id).path }
        backPath = SiteURL.learningModules.path
        summaryMaximum = LearningRules.summaryMaximumLength
        moodChoices = Self.moodChoices.map { group in
            LearningOption(
                value: group.rawValue,
                title: group == .neutral ? "An ordinary day (indifferent)" : "A hard day (sad, angry, sick or overwhelmed)",
                isSelected: values["after_\(group.rawValue)"] == "yes"
            )
        }
    }
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

    /// A new question's page (`question` nil) or a question's, in `module`, with the form's values and what to fix.
    init(module: LearningModule, question: QuizQuestion?, values: [String: String], errors: FormErrors, layout: (String) -> Layout) {
        var prompt = FormField(
            "prompt",
            label: "Question",
            value: values["prompt"] ?? "",
            hint: "Up to \(LearningRules.promptMaximumLength) characters.",
            type: "3"
        )
        prompt.error = errors["prompt"]
        var explanation = FormField(
            "explanation",
            label: "Explanation",
            value: values["explanation"] ?? "",
            hint: "Shown to the member after she answers, whether she was right or not. Up to \(LearningRules.explanationMaximumLength) characters.",
            type: "4"
        )
        explanation.error = errors["explanation"]
        heading = question == nil ? "Add a question" : "Change the question"
        self.layout = layout(heading)
        self.errors = errors.items
        moduleTitle = module.title
        action = (question.map { SiteURL.quizQuestion($0.id) } ?? .newQuizQuestion(module.id)).path
        self.prompt = prompt
        choices = (1...LearningRules.maximumChoices).map {
            ChoiceRow(number: $0, value: values["choice_\($0)"] ?? "", isCorrect: values["correct_\($0)"] == "yes")
        }
        choicesError = errors["choices"]
        self.explanation = explanation
        deletePath = question.map { SiteURL.deleteQuizQuestion($0.id).path }
        backPath = SiteURL.learningModule(module.id).path + "#quiz"
    }
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

    /// A new video's page (`video` nil) or a video's in `library`, with the form's values and what to fix.
    init(library: VideoLibrary, video: LearningVideo?, values: [String: String], errors: FormErrors, layout: (String) -> Layout) {
        var fields = [
            FormField("title", label: "Title", value: values["title"] ?? "", width: 30),
            FormField("category", label: "Category", value: values["category"] ?? "", hint: library.categoryHint, width: 20),
            FormField(
                "length",
                label: "Length",
                value: values["length"] ?? "",
                hint: "Minutes and seconds, like 4:30, or hours, minutes and seconds",
                width: 10
            )
        ]
        errors.apply(to: &fields)
        var description = FormField(
            "description",
            label: "Description",
            value: values["description"] ?? "",
            hint: "Plain text, up to \(LearningRules.descriptionMaximumLength) characters.",
            type: "4"
        )
        description.error = errors["description"]
        var url = FormField(
            "url",
            label: "Address of the video",
            value: values["url"] ?? "",
            hint: "Starting with https://. The app opens it there; it is never embedded.",
            type: "url",
            width: 30
        )
        url.error = errors["url"]
        var currentFile: LearningVideo?
        if let video, case .file = video.source { currentFile = video }
        var file = FormField(
            "file",
            label: currentFile != nil ? "Replace the file (optional)" : "Video file",
            hint: "An MP4 or WebM video smaller than \(LearningRules.videoRules.maximumSizeText). Choose it again if the form shows a problem.",
            type: "file"
        )
        file.error = errors["file"]
        heading = video.map { "Change \($0.title)" } ?? "Add a video"
        self.layout = layout(heading)
        self.errors = errors.items
        action = (video.map { library.videoURL($0.id) } ?? library.newURL).path
        self.fields = fields
        self.description = description
        sourceLink = values["source"] == "link"
        sourceFile = values["source"] == "file"
        sourceError = errors["source"]
        self.url = url
        self.file = file
        self.currentFile = currentFile.map { "\($0.title) (\($0.lengthText))" }
        currentFilePath = currentFile.map { library.fileURL($0.id).path }
        target = LearningTargetFields(values: values, errors: errors, asksStage: library.asksStage)
        maximumSize = LearningRules.videoRules.maximumSizeText
        backPath = library.listURL.path
    }
}
