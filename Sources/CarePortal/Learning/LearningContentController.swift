import Foundation
import Hummingbird
import PortalPlatform

/// Administrators write the learning center: modules (Markdown with a preview, links, a video, a quiz),
/// each for a stage of pregnancy, draft → published → archived. Its videos are the program's library
/// (`VideoLibraryController`).
struct LearningContentController {
    static let access = Access.administrators
    let portal: Portal
    let content = LearningContentRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.learningModules.pattern, access: Self.access, modules)
        routes.get(SiteURL.newLearningModule.pattern, access: Self.access, newModule)
        routes.post(SiteURL.newLearningModule.pattern, access: Self.access, createModule)
        routes.get(SiteURL.pattern(SiteURL.learningModule), access: Self.access, editModule)
        routes.post(SiteURL.pattern(SiteURL.learningModule), access: Self.access, updateModule)
        routes.get(SiteURL.pattern(SiteURL.newQuizQuestion), access: Self.access, newQuestion)
        routes.post(SiteURL.pattern(SiteURL.newQuizQuestion), access: Self.access, createQuestion)
        routes.get(SiteURL.pattern(SiteURL.quizQuestion), access: Self.access, editQuestion)
        routes.post(SiteURL.pattern(SiteURL.quizQuestion), access: Self.access, updateQuestion)
        routes.post(SiteURL.pattern(SiteURL.deleteQuizQuestion), access: Self.access, deleteQuestion)
    }

    private func audit(_ action: AuditAction, type: String, id: Int64, detail: String? = nil, request: Request, context: PortalContext) -> AuditEvent
    {
        AuditEvent(
            actor: context.auditActor,
            action: action,
            recordType: type,
            recordID: String(id),
            origin: portal.origin(of: request, context: context),
            detail: detail
        )
    }

    // MARK: Modules

    @Sendable func modules(request: Request, context: PortalContext) async throws -> Response {
        let pageRequest = try request.pageRequest()
        let (page, counts) = try await portal.database.read { db in
            let page = try await content.modules(page: pageRequest, on: db)
            return (page, try await content.questionCounts(moduleIDs: page.items.map(\.id), on: db))
        }
        let modules = LearningModuleRows.html(page.items, questionCounts: counts)
        return portal.pages.response(
            LearningModulesPage(
                layout: portal.layout("Learning modules", context: context, current: .learning),
                modules: modules.html,
                hasModules: !modules.isEmpty,
                pagination: portal.pages.html(
                    PaginationView(page, address: ListAddress(path: SiteURL.learningModules.path, parameters: []), noun: "modules")
                ),
                newPath: SiteURL.newLearningModule.path,
                videosPath: SiteURL.learningVideos.path,
                backPath: SiteURL.learning.path
            )
        )
    }

    @Sendable func newModule(request: Request, context: PortalContext) async throws -> Response {
        try await modulePage(nil, values: ["position": "0"], errors: FormErrors(), context: context)
    }

    @Sendable func editModule(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let module = try await portal.database.read({ db in try await content.module(id: id, on: db) }) else { throw HTTPError(.notFound) }
        return try await modulePage(module, values: Self.values(of: module), errors: FormErrors(), context: context)
    }

    static func values(of module: LearningModule) -> [String: String] {
        var values = [
            "title": module.title, "summary": module.summary, "body": module.bodySource, "category": module.category,
            "position": String(module.position), "stage": module.stage.code, "status": module.status.rawValue,
            "video_id": module.videoID.map(String.init) ?? "", "links": LearningRules.linksText(module.links)
        ]
        for group in module.moodGroups { values["after_\(group.rawValue)"] = "yes" }
        if case .weeks(let from, let to) = module.stage {
            values["week_from"] = String(from)
            values["week_to"] = String(to)
        }
        return values
    }

    private func modulePage(
        _ module: LearningModule?,
        values: [String: String],
        errors: FormErrors,
        preview: String? = nil,
        context: PortalContext
    ) async throws -> Response {
        let (videos, questions) = try await portal.database.read { db in
            (try await content.videos(on: db), try await module.asyncMap { try await content.questions(moduleIDs: [$0.id], on: db) })
        }
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
        let questionRows = questions.map { list in
            list.enumerated().map { index, question in
                LearningModulePage.QuestionRow(
                    number: index + 1,
                    prompt: question.prompt,
                    correctAnswers: question.choices.filter(\.isCorrect).map(\.text).joined(separator: "; "),
                    editPath: SiteURL.quizQuestion(question.id).path,
                    deletePath: SiteURL.deleteQuizQuestion(question.id).path
                )
            }
        }
        return portal.pages.response(
            LearningModulePage(
                layout: portal.layout(heading, context: context, current: .learning),
                errors: errors.items,
                heading: heading,
                action: (module.map { SiteURL.learningModule($0.id) } ?? .newLearningModule).path,
                fields: fields,
                summary: summary,
                body: body,
                linksField: links,
                target: LearningTargetFields(values: values, errors: errors),
                videoOptions: [LearningOption(value: "", title: "No video", isSelected: chosenVideo.isEmpty)]
                    + videos.map {
                        LearningOption(value: String($0.id), title: "\($0.title) (\($0.lengthText))", isSelected: String($0.id) == chosenVideo)
                    },
                previewHTML: preview.map(RenderedHTML.init(sanitizedHTML:)),
                questions: questionRows,
                hasQuestions: questionRows?.isEmpty == false,
                newQuestionPath: module.map { SiteURL.newQuizQuestion($0.id).path },
                backPath: SiteURL.learningModules.path,
                summaryMaximum: LearningRules.summaryMaximumLength,
                moodChoices: LearningModulePage.moodChoices.map { group in
                    LearningOption(
                        value: group.rawValue,
                        title: group == .neutral ? "An ordinary day (indifferent)" : "A hard day (sad, angry, sick or overwhelmed)",
                        isSelected: values["after_\(group.rawValue)"] == "yes"
                    )
                }
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    /// The stage and status typed into a module's or a video's form, or what to fix.
    static func target(_ values: [String: String], errors: inout FormErrors) -> (LearningStage, LearningStatus)? {
        let code = values["stage"] ?? ""
        var stage: LearningStage?
        if code == "weeks" {
            let weeks = LearningStage.memberWeeks
            let from = Int(values["week_from"] ?? ""), to = Int(values["week_to"] ?? "")
            if from.map(weeks.contains) != true {
                errors.add("week_from", "Enter the first week, a number from \(weeks.lowerBound) to \(weeks.upperBound)")
            }
            if to.map(weeks.contains) != true {
                errors.add("week_to", "Enter the last week, a number from \(weeks.lowerBound) to \(weeks.upperBound)")
            }
            if let from, let to, weeks.contains(from), weeks.contains(to) {
                if from > to { errors.add("week_to", "The last week must be the same as or after the first week") }
                stage = LearningStage(code: code, from: from, to: to)
            }
        } else {
            stage = LearningStage(code: code, from: nil, to: nil)
            if stage == nil { errors.add("stage", "Choose who it is for") }
        }
        let status = LearningStatus(rawValue: values["status"] ?? "")
        if status == nil { errors.add("status", "Choose a status") }
        guard let stage, let status else { return nil }
        return (stage, status)
    }

    @Sendable func createModule(request: Request, context: PortalContext) async throws -> Response {
        try await saveModule(nil, request: request, context: context)
    }

    @Sendable func updateModule(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let module = try await portal.database.read({ db in try await content.module(id: id, on: db) }) else { throw HTTPError(.notFound) }
        return try await saveModule(module, request: request, context: context)
    }

    private func saveModule(_ existing: LearningModule?, request: Request, context: PortalContext) async throws -> Response {
        var values = try await request.form([String: String].self, context: context)
        for key in ["title", "category", "position", "summary", "links", "week_from", "week_to", "video_id"] { values[key] = values[key]?.trimmed }
        var errors = FormErrors()
        let title = values["title"] ?? "", category = values["category"] ?? "", summary = values["summary"] ?? ""
        if let problem = LearningRules.lineProblem(title, name: "the module’s title", maximumLength: LearningRules.titleMaximumLength) {
            errors.add("title", problem)
        }
        if let problem = LearningRules.lineProblem(category, name: "a category", maximumLength: LearningRules.categoryMaximumLength) {
            errors.add("category", problem)
        }
        let position = Int(values["position"] ?? "")
        if position.map(LearningRules.positionRange.contains) != true {
            errors.add(
                "position",
                "Enter the order as a whole number from \(LearningRules.positionRange.lowerBound) to \(LearningRules.positionRange.upperBound)"
            )
        }
        if let problem = LearningRules.textProblem(summary, name: "a summary", maximumLength: LearningRules.summaryMaximumLength) {
            errors.add("summary", problem)
        }
        var body: (source: String, html: String)?
        switch LearningRules.body(values["body"] ?? "") {
        case .success(let rendered): body = (values["body"]!, rendered.html)
        case .failure(let problem): errors.add("body", problem.message)
        }
        let videos = try await portal.database.read { db in try await content.videos(on: db) }
        let videoID = (values["video_id"] ?? "").isEmpty ? nil : Int64(values["video_id"]!)
        if let videoID, !videos.contains(where: { $0.id == videoID }) { errors.add("video_id", "Choose a video from the list") }
        var links: [ModuleLink] = []
        switch LearningRules.links(values["links"] ?? "") {
        case .success(let parsed): links = parsed
        case .failure(let problem): errors.add("links", problem.message)
        }
        let target = Self.target(values, errors: &errors)
        guard errors.isEmpty, let body, let position, let (stage, status) = target else {
            return try await modulePage(existing, values: values, errors: errors, context: context)
        }
        if values["intent"] == "preview" {
            return try await modulePage(existing, values: values, errors: errors, preview: body.html, context: context)
        }
        let module = LearningModule(
            id: existing?.id ?? 0,
            title: title,
            summary: summary,
            bodySource: body.source,
            bodyHTML: body.html,
            category: category,
            stage: stage,
            position: position,
            status: status,
            videoID: videoID,
            links: links,
            publishedAt: existing?.publishedAt,
            updatedAt: portal.now,
            moodGroups: Set(LearningModulePage.moodChoices.filter { values["after_\($0.rawValue)"] == "yes" })
        )
        let now = portal.now
        let clock = portal.programSettings.current.clock
        let notices = LearningNotices(notifications: portal.notifications)
        let (id, told) = try await portal.database.transaction { db -> (Int64, Int) in
            let (id, firstPublished) = try await content.save(module, now: now, on: db)
            try await portal.audit.record(
                audit(
                    existing == nil ? .learningModuleAdded : .learningModuleChanged,
                    type: "learning_module",
                    id: id,
                    detail: "\(status.rawValue), \(stage.code) weeks \(stage.weeks.lowerBound)-\(stage.weeks.upperBound)",
                    request: request,
                    context: context
                ),
                on: db
            )
            let told = firstPublished ? try await notices.newModule(id: id, stage: stage, today: clock.date(of: now), on: db) : 0
            return (id, told)
        }
        let message = told > 0 ? "\(title) is saved and published. \(told) member\(told == 1 ? " was" : "s were") told." : "\(title) is saved."
        try await portal.flash(Flash(.success, message), context: context)
        return seeOther(existing == nil ? SiteURL.learningModule(id).path : SiteURL.learningModules.path)
    }

    // MARK: Questions

    @Sendable func newQuestion(request: Request, context: PortalContext) async throws -> Response {
        let moduleID = try context.parameters.recordID()
        guard let module = try await portal.database.read({ db in try await content.module(id: moduleID, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return questionPage(module: module, question: nil, values: [:], errors: FormErrors(), context: context)
    }

    @Sendable func editQuestion(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let (question, module) = try await questionAndModule(id)
        var values = ["prompt": question.prompt, "explanation": question.explanation]
        for (index, choice) in question.choices.enumerated() {
            values["choice_\(index + 1)"] = choice.text
            if choice.isCorrect { values["correct_\(index + 1)"] = "yes" }
        }
        return questionPage(module: module, question: question, values: values, errors: FormErrors(), context: context)
    }

    private func questionAndModule(_ id: Int64) async throws -> (QuizQuestion, LearningModule) {
        let found = try await portal.database.read { db -> (QuizQuestion, LearningModule)? in
            guard let question = try await content.question(id: id, on: db), let module = try await content.module(id: question.moduleID, on: db)
            else { return nil }
            return (question, module)
        }
        guard let found else { throw HTTPError(.notFound) }
        return found
    }

    private func questionPage(
        module: LearningModule,
        question: QuizQuestion?,
        values: [String: String],
        errors: FormErrors,
        context: PortalContext
    ) -> Response {
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
        let heading = question == nil ? "Add a question" : "Change the question"
        return portal.pages.response(
            QuizQuestionPage(
                layout: portal.layout(heading, context: context, current: .learning),
                errors: errors.items,
                heading: heading,
                moduleTitle: module.title,
                action: (question.map { SiteURL.quizQuestion($0.id) } ?? .newQuizQuestion(module.id)).path,
                prompt: prompt,
                choices: (1...LearningRules.maximumChoices).map {
                    QuizQuestionPage.ChoiceRow(number: $0, value: values["choice_\($0)"] ?? "", isCorrect: values["correct_\($0)"] == "yes")
                },
                choicesError: errors["choices"],
                explanation: explanation,
                deletePath: question.map { SiteURL.deleteQuizQuestion($0.id).path },
                backPath: SiteURL.learningModule(module.id).path + "#quiz"
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    @Sendable func createQuestion(request: Request, context: PortalContext) async throws -> Response {
        let moduleID = try context.parameters.recordID()
        guard let module = try await portal.database.read({ db in try await content.module(id: moduleID, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return try await saveQuestion(module: module, existing: nil, request: request, context: context)
    }

    @Sendable func updateQuestion(request: Request, context: PortalContext) async throws -> Response {
        let (question, module) = try await questionAndModule(try context.parameters.recordID())
        return try await saveQuestion(module: module, existing: question, request: request, context: context)
    }

    private func saveQuestion(module: LearningModule, existing: QuizQuestion?, request: Request, context: PortalContext) async throws -> Response {
        var values = try await request.form([String: String].self, context: context).mapValues(\.trimmed)
        var errors = FormErrors()
        let prompt = values["prompt"] ?? "", explanation = values["explanation"] ?? ""
        if let problem = LearningRules.textProblem(prompt, name: "the question", maximumLength: LearningRules.promptMaximumLength) {
            errors.add("prompt", problem)
        }
        var choices: [QuizQuestion.Choice] = []
        var markedEmpty = false
        for number in 1...LearningRules.maximumChoices {
            let text = values["choice_\(number)"] ?? ""
            let isCorrect = values["correct_\(number)"] == "yes"
            if text.isEmpty {
                if isCorrect { markedEmpty = true }
                values["correct_\(number)"] = nil
                continue
            }
            if text.count > LearningRules.choiceMaximumLength {
                errors.add("choices", "Each answer must be \(LearningRules.choiceMaximumLength) characters or fewer")
            }
            choices.append(QuizQuestion.Choice(id: 0, text: text, isCorrect: isCorrect))
        }
        if choices.count < 2 {
            errors.add("choices", "Enter at least two answers")
        } else if markedEmpty {
            errors.add("choices", "An answer ticked as correct has no text")
        } else if !choices.contains(where: \.isCorrect) {
            errors.add("choices", "Tick at least one correct answer")
        }
        if let problem = LearningRules.textProblem(explanation, name: "an explanation", maximumLength: LearningRules.explanationMaximumLength) {
            errors.add("explanation", problem)
        }
        guard errors.isEmpty else { return questionPage(module: module, question: existing, values: values, errors: errors, context: context) }
        let question = QuizQuestion(id: existing?.id ?? 0, moduleID: module.id, prompt: prompt, explanation: explanation, choices: choices)
        let now = portal.now
        try await portal.database.transaction { db in
            let id = try await content.save(question, now: now, on: db)
            try await portal.audit.record(
                audit(
                    .learningModuleChanged,
                    type: "learning_question",
                    id: id,
                    detail: "module \(module.id), \(choices.count) answers",
                    request: request,
                    context: context
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "The question is saved."), context: context)
        return seeOther(SiteURL.learningModule(module.id).path + "#quiz")
    }

    @Sendable func deleteQuestion(request: Request, context: PortalContext) async throws -> Response {
        let (question, module) = try await questionAndModule(try context.parameters.recordID())
        _ = try await request.form([String: String].self, context: context)
        let now = portal.now
        try await portal.database.transaction { db in
            try await content.deleteQuestion(question, now: now, on: db)
            try await portal.audit.record(
                audit(
                    .learningModuleChanged,
                    type: "learning_question",
                    id: question.id,
                    detail: "module \(module.id), question removed",
                    request: request,
                    context: context
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "The question is removed."), context: context)
        return seeOther(SiteURL.learningModule(module.id).path + "#quiz")
    }
}

extension LearningContentController {
    static let auditActions: [AuditAction] = [.learningModuleAdded, .learningModuleChanged, .learningVideoAdded, .learningVideoChanged]
    static let templates: [TemplateName] = [.learningModules, .learningModule, .quizQuestion, .learningVideos, .learningVideo]
}

extension TemplateName {
    static let learningModules = TemplateName("learning/modules")
    static let learningModule = TemplateName("learning/module")
    static let quizQuestion = TemplateName("learning/question")
    static let learningVideos = TemplateName("learning/videos")
    static let learningVideo = TemplateName("learning/video")
}

extension AuditAction {
    static let learningModuleAdded = AuditAction("learning_module_added", title: "Learning module added")
    static let learningModuleChanged = AuditAction("learning_module_changed", title: "Learning module changed")
    static let learningVideoAdded = AuditAction("learning_video_added", title: "Learning video added")
    static let learningVideoChanged = AuditAction("learning_video_changed", title: "Learning video changed")
}
