import Foundation
import Hummingbird
import PortalPlatform

extension TemplateName {
    static let appLearning = TemplateName("app/learning/center")
    static let appLearningModule = TemplateName("app/learning/module")
    static let appLearningScored = TemplateName("app/learning/scored")
    static let appLearningVideo = TemplateName("app/learning/video")

    static let appLearningTemplates: [TemplateName] = [.appLearning, .appLearningModule, .appLearningScored, .appLearningVideo]
}

/// The learning centre in the member's part of the web app (`/app/member/learning`): what is published for
/// her week by category, a module to read with its quiz, her score with each answer explained, and videos
/// to watch — through `LearningCenter`, as the member API does, with the same events and points.
struct LearningAppController {
    let portal: Portal
    let center: LearningCenter

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.appLearning.pattern, access: .memberPages, list)
        routes.get(SiteURL.pattern(SiteURL.appLearningModule), access: .memberPages, module)
        routes.post(SiteURL.pattern(SiteURL.appLearningModule), access: .memberPages, attempt)
        routes.get(SiteURL.pattern(SiteURL.appLearningVideo), access: .memberPages, video)
        routes.post(SiteURL.pattern(SiteURL.appLearningVideoWatched), access: .memberPages, watched)
        routes.get(SiteURL.pattern(SiteURL.appLearningVideoFile), access: .memberPages, videoFile)
    }

    private func memberID(_ context: PortalContext) throws -> Int64 {
        guard let holder = context.appAccount, holder.kind == .member else { throw HTTPError(.notFound) }
        return holder.accountID
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        portal.appLayout(title, context: context, navigation: .member, currentPath: SiteURL.appMemberHome.path)
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let content = center.content
        let found = try await portal.database.read { db -> LearningAppPage? in
            guard let (member, week) = try await center.memberAndWeek(memberID, on: db) else { return nil }
            let modules = try await content.publishedModules(week: week, on: db)
            return LearningAppPage(
                layout: layout("Learning", context),
                week: week,
                modules: modules,
                videos: try await content.publishedVideos(week: week, on: db),
                completed: try await content.completedModules(memberID: member.id, on: db),
                watched: try await content.watchedVideos(memberID: member.id, on: db)
            )
        }
        guard let found else { throw HTTPError(.notFound) }
        return portal.pages.response(found)
    }

    @Sendable func module(request: Request, context: PortalContext) async throws -> Response {
        guard let module = try await center.open(moduleID: try context.parameters.recordID(), memberID: try memberID(context)) else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(LearningAppModulePage(layout: layout(module.title, context), module: module))
    }

    private struct QuizProblem: Error {
        let fields: [String: String]
    }

    /// Every question answered with its own choices; what is missing is said beside its question.
    @Sendable func attempt(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let id = try context.parameters.recordID()
        let form = try await request.form([String: String].self, context: context)
        do {
            let outcome = try await center.attempt(moduleID: id, memberID: memberID) { questions in
                var answers: [Int64: Set<Int64>] = [:]
                var problems: [String: String] = [:]
                for question in questions {
                    let field = LearningAppModulePage.field(question.id)
                    let chosen = Set(
                        question.choices.map(\.id).filter { choice in
                            form[field] == "\(choice)" || form[LearningAppModulePage.field(question.id, choice: choice)] == "on"
                        }
                    )
                    if chosen.isEmpty { problems[field] = "Choose an answer" } else { answers[question.id] = chosen }
                }
                guard problems.isEmpty else { throw QuizProblem(fields: problems) }
                return answers
            }
            guard let (score, points) = outcome else { throw HTTPError(.notFound) }
            guard let module = try await center.open(moduleID: id, memberID: memberID, recordingOpen: false) else { throw HTTPError(.notFound) }
            return portal.pages.response(LearningAppScoredPage(layout: layout("Your score", context), module: module, score: score, points: points))
        } catch let problem as QuizProblem {
            guard let module = try await center.open(moduleID: id, memberID: memberID, recordingOpen: false) else { throw HTTPError(.notFound) }
            return portal.pages.response(
                LearningAppModulePage(layout: layout(module.title, context), module: module, typed: form, problems: problem.fields),
                status: .unprocessableContent
            )
        }
    }

    @Sendable func video(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let id = try context.parameters.recordID()
        let content = center.content
        let found = try await portal.database.read { db -> (LearningVideo, Bool)? in
            guard let (member, week) = try await center.memberAndWeek(memberID, on: db),
                let video = try await center.visibleVideo(id, week: week, on: db)
            else {
                return nil
            }
            return (video, try await content.watchedVideos(memberID: member.id, on: db).contains(id))
        }
        guard let (video, watched) = found else { throw HTTPError(.notFound) }
        let points = request.query("points").flatMap(Int.init)
        return portal.pages.response(
            LearningAppVideoPage(
                layout: layout(video.title, context),
                video: video,
                watched: watched,
                points: points,
                watchedAction: SiteURL.appLearningVideoWatched(video.id).path
            )
        )
    }

    @Sendable func watched(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let points = try await center.watched(videoID: id, memberID: try memberID(context)) else { throw HTTPError(.notFound) }
        return seeOther("\(SiteURL.appLearningVideo(id).path)?points=\(points)")
    }

    /// An uploaded video published for her, with byte ranges so the browser's player can seek.
    @Sendable func videoFile(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try memberID(context)
        let id = try context.parameters.recordID()
        let video = try await portal.database.read { db -> LearningVideo? in
            guard let (_, week) = try await center.memberAndWeek(memberID, on: db) else { return nil }
            return try await center.visibleVideo(id, week: week, on: db)
        }
        guard let video, case .file(let stored, _) = video.source,
            let response = try await center.videoFiles.response(for: stored, request: request, context: context, downloadName: "video-\(id)")
        else { throw HTTPError(.notFound) }
        return response
    }
}

/// The learning centre's front page: by category, the modules (done, with her best score) and videos.
struct LearningAppPage: Page {
    static let template = TemplateName.appLearning

    struct Item: Encodable, Sendable {
        let title: String
        let summary: String
        let path: String
        let doneText: String?
    }

    struct Category: Encodable, Sendable {
        let name: String
        let modules: [Item]
        let videos: [Item]
    }

    let layout: Layout
    let weekText: String
    let categories: [Category]

    init(
        layout: Layout,
        week: Int,
        modules: [LearningModule],
        videos: [LearningVideo],
        completed: [Int64: (correct: Int, questions: Int)],
        watched: Set<Int64>
    ) {
        self.layout = layout
        weekText = "Chosen for week \(week) of your pregnancy."
        categories = Set(modules.map(\.category) + videos.map(\.category)).sorted().map { name in
            Category(
                name: name,
                modules: modules.filter { $0.category == name }.map { module in
                    Item(
                        title: module.title,
                        summary: module.summary,
                        path: SiteURL.appLearningModule(module.id).path,
                        doneText: completed[module.id].map { "Done: \($0.correct) of \($0.questions) right" }
                    )
                },
                videos: videos.filter { $0.category == name }.map { video in
                    Item(
                        title: video.title,
                        summary: "\(video.lengthText) · \(video.description)",
                        path: SiteURL.appLearningVideo(video.id).path,
                        doneText: watched.contains(video.id) ? "Watched" : nil
                    )
                }
            )
        }
    }
}

/// A module to read, and its quiz: a question with one right answer has radio buttons, one with several
/// has checkboxes ("choose all that are right").
struct LearningAppModulePage: Page {
    static let template = TemplateName.appLearningModule

    struct Option: Encodable, Sendable {
        let id: String
        let name: String
        let value: String
        let text: String
        let isChecked: Bool
    }

    struct Question: Encodable, Sendable {
        let field: String
        let number: Int
        let prompt: String
        let hint: String?
        let isCheckboxes: Bool
        let options: [Option]
        let error: String?
    }

    let layout: Layout
    let errors: [FormErrors.Item]
    let title: String
    let summary: String
    let bodyHTML: RenderedHTML
    let links: [LearningCenterAPI.Link]
    let videoPath: String?
    let videoTitle: String?
    let bestText: String?
    let questions: [Question]
    let action: String
    let learningPath = SiteURL.appLearning.path

    static func field(_ questionID: Int64) -> String { "q-\(questionID)" }
    static func field(_ questionID: Int64, choice: Int64) -> String { "q-\(questionID)-\(choice)" }

    init(layout: Layout, module: LearningCenterAPI.Module, typed: [String: String] = [:], problems: [String: String] = [:]) {
        self.layout = layout
        title = module.title
        summary = module.summary
        bodyHTML = RenderedHTML(sanitizedHTML: module.bodyHtml)
        links = module.links
        videoPath = module.video.map { SiteURL.appLearningVideo($0.id).path }
        videoTitle = module.video?.title
        bestText = module.bestScore.map { "Your best so far: \($0.correct) of \($0.questions) right." }
        var errors = FormErrors()
        questions = module.questions.enumerated().map { index, question in
            let field = Self.field(question.id)
            let isCheckboxes = question.correctCount > 1
            if let problem = problems[field] { errors.add(field, problem) }
            return Question(
                field: field,
                number: index + 1,
                prompt: question.prompt,
                hint: isCheckboxes ? "Choose all the answers that are right." : nil,
                isCheckboxes: isCheckboxes,
                options: question.choices.enumerated().map { offset, choice in
                    let name = isCheckboxes ? Self.field(question.id, choice: choice.id) : field
                    return Option(
                        id: offset == 0 ? field : "\(field)-\(choice.id)",
                        name: name,
                        value: isCheckboxes ? "on" : "\(choice.id)",
                        text: choice.text,
                        isChecked: isCheckboxes ? typed[name] == "on" : typed[field] == "\(choice.id)"
                    )
                },
                error: problems[field]
            )
        }
        self.errors = errors.items
        action = SiteURL.appLearningModule(module.id).path
    }
}

/// Her score, each question with whether she was right, the right answers and why.
struct LearningAppScoredPage: Page {
    static let template = TemplateName.appLearningScored

    struct Result: Encodable, Sendable {
        let number: Int
        let prompt: String
        let isCorrect: Bool
        let rightAnswers: String
        let explanation: String?
    }

    let layout: Layout
    let title: String
    let scoreText: String
    let pointsText: String?
    let results: [Result]
    let modulePath: String
    let learningPath = SiteURL.appLearning.path

    init(layout: Layout, module: LearningCenterAPI.Module, score: QuizScore, points: Int) {
        self.layout = layout
        title = module.title
        scoreText = "You got \(score.correctCount) of \(score.questionCount) right."
        pointsText = points > 0 ? "You earned \(points) points." : nil
        let questions = Dictionary(uniqueKeysWithValues: module.questions.map { ($0.id, $0) })
        results = score.results.enumerated().map { index, result in
            let question = questions[result.questionID]
            let right = question?.choices.filter { result.correctChoiceIDs.contains($0.id) }.map(\.text) ?? []
            return Result(
                number: index + 1,
                prompt: question?.prompt ?? "",
                isCorrect: result.isCorrect,
                rightAnswers: (right.count == 1 ? "The right answer: " : "The right answers: ") + right.joined(separator: "; "),
                explanation: result.explanation.trimmed.isEmpty ? nil : result.explanation
            )
        }
        modulePath = SiteURL.appLearningModule(module.id).path
    }
}

/// A video: played here when it is an uploaded file (the browser's own player, captions as uploaded), or a
/// link out when it lives elsewhere; and "I watched it".
struct LearningAppVideoPage: Page {
    static let template = TemplateName.appLearningVideo
    let layout: Layout
    let title: String
    let description: String
    let length: String
    let filePath: String?
    let contentType: String?
    let linkURL: String?
    let watched: Bool
    let pointsText: String?
    /// Where "I watched it" is sent; nil where watching earns nothing (a study's videos).
    let watchedAction: String?
    let backPath: String
    let backTitle: String

    /// `fileURL` streams an uploaded file to this page's player: the member's learning centre's, or a participant's.
    init(
        layout: Layout,
        video: LearningVideo,
        watched: Bool,
        points: Int?,
        watchedAction: String?,
        fileURL: (Int64) -> SiteURL = SiteURL.appLearningVideoFile,
        backPath: String = SiteURL.appLearning.path,
        backTitle: String = "Back to learning"
    ) {
        self.layout = layout
        self.backPath = backPath
        self.backTitle = backTitle
        title = video.title
        description = video.description
        length = video.lengthText
        switch video.source {
        case .file(let stored, _):
            filePath = fileURL(video.id).path
            contentType = stored.type.rawValue
            linkURL = nil
        case .link(let address):
            filePath = nil
            contentType = nil
            linkURL = address
        }
        self.watched = watched
        pointsText = points.map { $0 > 0 ? "Thank you. You earned \($0) points." : "Thank you." }
        self.watchedAction = watchedAction
    }
}
