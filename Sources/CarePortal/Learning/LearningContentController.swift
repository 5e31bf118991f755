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
        try await modulePage(nil, form: LearningModuleForm(), errors: FormErrors(), context: context)
    }

    @Sendable func editModule(request: Request, context: PortalContext) async throws -> Response {
        let module = try await module(try context.parameters.recordID())
        return try await modulePage(module, form: LearningModuleForm(module), errors: FormErrors(), context: context)
    }

    private func module(_ id: Int64) async throws -> LearningModule {
        guard let module = try await portal.database.read({ db in try await content.module(id: id, on: db) }) else { throw HTTPError(.notFound) }
        return module
    }

    private func modulePage(
        _ module: LearningModule?,
        form: LearningModuleForm,
        errors: FormErrors,
        preview: String? = nil,
        context: PortalContext
    ) async throws -> Response {
        let reads = try await portal.database.read { db in try await LearningModulePage.Reads.load(module, content: content, on: db) }
        let page = LearningModulePage(module: module, values: form.values, errors: errors, preview: preview, reads: reads) {
            portal.layout($0, context: context, current: .learning)
        }
        return portal.pages.response(page, status: errors.isEmpty ? .ok : .unprocessableContent)
    }

    @Sendable func createModule(request: Request, context: PortalContext) async throws -> Response {
        try await saveModule(nil, request: request, context: context)
    }

    @Sendable func updateModule(request: Request, context: PortalContext) async throws -> Response {
        try await saveModule(try await module(try context.parameters.recordID()), request: request, context: context)
    }

    private func saveModule(_ existing: LearningModule?, request: Request, context: PortalContext) async throws -> Response {
        let form = LearningModuleForm(sent: try await request.form([String: String].self, context: context))
        let videos = try await portal.database.read { db in try await content.videos(on: db) }
        let (made, errors) = form.module(existing: existing, videos: videos, now: portal.now)
        guard let module = made else { return try await modulePage(existing, form: form, errors: errors, context: context) }
        if form.asksForPreview { return try await modulePage(existing, form: form, errors: errors, preview: module.bodyHTML, context: context) }
        let now = portal.now
        let clock = portal.programSettings.current.clock
        let notices = LearningNotices(notifications: portal.notifications)
        let (id, told) = try await portal.database.transaction { db -> (Int64, Int) in
            let (id, firstPublished) = try await content.save(module, now: now, on: db)
            let stage = module.stage
            let detail = "\(module.status.rawValue), \(stage.code) weeks \(stage.weeks.lowerBound)-\(stage.weeks.upperBound)"
            let action: AuditAction = existing == nil ? .learningModuleAdded : .learningModuleChanged
            try await portal.audit.record(audit(action, type: "learning_module", id: id, detail: detail, request: request, context: context), on: db)
            let told = firstPublished ? try await notices.newModule(id: id, stage: stage, today: clock.date(of: now), on: db) : 0
            return (id, told)
        }
        let title = module.title
        let message = told > 0 ? "\(title) is saved and published. \(told) member\(told == 1 ? " was" : "s were") told." : "\(title) is saved."
        try await portal.flash(Flash(.success, message), context: context)
        return seeOther(existing == nil ? SiteURL.learningModule(id).path : SiteURL.learningModules.path)
    }

    // MARK: Questions

    @Sendable func newQuestion(request: Request, context: PortalContext) async throws -> Response {
        let module = try await module(try context.parameters.recordID())
        return questionPage(module: module, question: nil, form: QuizQuestionForm(), errors: FormErrors(), context: context)
    }

    @Sendable func editQuestion(request: Request, context: PortalContext) async throws -> Response {
        let (question, module) = try await questionAndModule(try context.parameters.recordID())
        return questionPage(module: module, question: question, form: QuizQuestionForm(question), errors: FormErrors(), context: context)
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
        form: QuizQuestionForm,
        errors: FormErrors,
        context: PortalContext
    )
        -> Response
    {
        let page = QuizQuestionPage(module: module, question: question, values: form.values, errors: errors) {
            portal.layout($0, context: context, current: .learning)
        }
        return portal.pages.response(page, status: errors.isEmpty ? .ok : .unprocessableContent)
    }

    @Sendable func createQuestion(request: Request, context: PortalContext) async throws -> Response {
        let module = try await module(try context.parameters.recordID())
        return try await saveQuestion(module: module, existing: nil, request: request, context: context)
    }

    @Sendable func updateQuestion(request: Request, context: PortalContext) async throws -> Response {
        let (question, module) = try await questionAndModule(try context.parameters.recordID())
        return try await saveQuestion(module: module, existing: question, request: request, context: context)
    }

    private func saveQuestion(module: LearningModule, existing: QuizQuestion?, request: Request, context: PortalContext) async throws -> Response {
        var form = QuizQuestionForm(sent: try await request.form([String: String].self, context: context))
        let (made, errors) = form.question(moduleID: module.id, existing: existing)
        guard let question = made else { return questionPage(module: module, question: existing, form: form, errors: errors, context: context) }
        let now = portal.now
        try await portal.database.transaction { db in
            let id = try await content.save(question, now: now, on: db)
            let detail = "module \(module.id), \(question.choices.count) answers"
            try await portal.audit.record(
                audit(.learningModuleChanged, type: "learning_question", id: id, detail: detail, request: request, context: context),
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
