import Foundation
import PortalPlatform
import SQLKit

/// The only place the learning center's modules, videos, quizzes, attempts and views are read and written.
struct LearningContentRepository: Sendable {
    // MARK: Modules

    private static let moduleColumns = [
        "id", "title", "summary", "body_source", "body_html", "category", "stage", "week_from", "week_to", "position", "status",
        "video_id", "published_at", "updated_at", "mood_groups"
    ]

    /// Every module, for administrators: by category, then order, then title.
    func modules(on db: any SQLDatabase) async throws -> [LearningModule] {
        let rows = try await db.select().columns(Self.moduleColumns).from("learning_modules")
            .orderBy("category").orderBy("position").orderBy("title").orderBy("id").all()
        return try await withLinks(rows.map(decodeModule), on: db)
    }

    /// One page of the modules, in the same order, for the administrators' list.
    func modules(page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<LearningModule> {
        let modules = try await db.seek(
            page,
            order: ListOrder("category", keys: [.text("category"), .integer("position"), .text("title"), .integer("id")], descending: false),
            columns: Self.moduleColumns.map { SQLColumn($0) },
            rows: { $0.from("learning_modules") },
            decode: decodeModule
        )
        return modules.replacingItems(try await withLinks(modules.items, on: db))
    }

    func module(id: Int64, on db: any SQLDatabase) async throws -> LearningModule? {
        guard let row = try await db.select().columns(Self.moduleColumns).from("learning_modules").where("id", .equal, id).first() else { return nil }
        return try await withLinks([try decodeModule(row)], on: db).first
    }

    /// Modules' titles for the notification feed; one no longer published is not named.
    static func moduleTitles(_ ids: [Int64], on db: any SQLDatabase) async throws -> [Int64: String] {
        guard !ids.isEmpty else { return [:] }
        var titles: [Int64: String] = [:]
        for row in try await db.select().columns("id", "title", "status").from("learning_modules").where("id", .in, ids).all() {
            let published = try row.decode(column: "status", as: String.self) == LearningStatus.published.rawValue
            titles[try row.decode(column: "id", as: Int64.self)] = published ? try row.decode(column: "title", as: String.self) : unavailableTitle
        }
        return titles
    }

    static let unavailableTitle = "A module that is no longer available"

    /// Published modules for a member in `week`, for a list: without their text or links.
    func publishedModules(week: Int, on db: any SQLDatabase) async throws -> [LearningModule] {
        try await db.select().columns(Self.moduleColumns.filter { !$0.hasPrefix("body_") }).from("learning_modules")
            .where("status", .equal, LearningStatus.published.rawValue)
            .where("week_from", .lessThanOrEqual, week).where("week_to", .greaterThanOrEqual, week)
            .orderBy("category").orderBy("position").orderBy("title").orderBy("id")
            .all().map(decodeModule)
    }

    private func withLinks(_ modules: [LearningModule], on db: any SQLDatabase) async throws -> [LearningModule] {
        guard !modules.isEmpty else { return [] }
        var links: [Int64: [ModuleLink]] = [:]
        for row in try await db.select().columns("module_id", "title", "url").from("learning_module_links")
            .where("module_id", .in, modules.map(\.id)).orderBy("module_id").orderBy("position").all()
        {
            links[try row.decode(column: "module_id", as: Int64.self), default: []].append(
                ModuleLink(title: try row.decode(column: "title", as: String.self), url: try row.decode(column: "url", as: String.self))
            )
        }
        return modules.map { module in
            var module = module
            module.links = links[module.id] ?? []
            return module
        }
    }

    private func decodeModule(_ row: any SQLRow) throws -> LearningModule {
        LearningModule(
            id: try row.decode(column: "id", as: Int64.self),
            title: try row.decode(column: "title", as: String.self),
            summary: try row.decode(column: "summary", as: String.self),
            bodySource: row.contains(column: "body_source") ? try row.decode(column: "body_source", as: String.self) : "",
            bodyHTML: row.contains(column: "body_html") ? try row.decode(column: "body_html", as: String.self) : "",
            category: try row.decode(column: "category", as: String.self),
            stage: try decodeStage(row),
            position: try row.decode(column: "position", as: Int.self),
            status: LearningStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .draft,
            videoID: try row.decode(column: "video_id", as: Int64?.self),
            links: [],
            publishedAt: try row.decode(column: "published_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            updatedAt: Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self)),
            moodGroups: Self.moodGroups(try row.decode(column: "mood_groups", as: String.self))
        )
    }

    static func moodGroups(_ stored: String) -> Set<Mood.Group> {
        Set(stored.split(separator: ",").compactMap { Mood.Group(rawValue: String($0)) })
    }

    static func stored(_ groups: Set<Mood.Group>) -> String {
        groups.map(\.rawValue).sorted().joined(separator: ",")
    }

    /// Published modules recommended after a mood of `group` for a member in `week`, in the list's order.
    func recommended(after group: Mood.Group, week: Int, limit: Int, on db: any SQLDatabase) async throws -> [LearningModule] {
        try await publishedModules(week: week, on: db).filter { $0.moodGroups.contains(group) }.prefix(limit).map { $0 }
    }

    private func decodeStage(_ row: any SQLRow) throws -> LearningStage {
        LearningStage(
            code: try row.decode(column: "stage", as: String.self),
            from: try row.decode(column: "week_from", as: Int.self),
            to: try row.decode(column: "week_to", as: Int.self)
        ) ?? .all
    }

    /// Saves a module (a new one when `module.id` is 0) and its links; returns its id. The first time it is
    /// published, `published_at` is set and `firstPublished` is true, so members are told once.
    func save(_ module: LearningModule, now: Date, on db: any SQLDatabase) async throws -> (id: Int64, firstPublished: Bool) {
        let time = now.millisecondsSince1970
        let id: Int64
        var firstPublished = false
        if module.id == 0 {
            firstPublished = module.status == .published
            id = try await db.insert(into: "learning_modules")
                .columns(
                    "title",
                    "summary",
                    "body_source",
                    "body_html",
                    "category",
                    "stage",
                    "week_from",
                    "week_to",
                    "position",
                    "status",
                    "video_id",
                    "published_at",
                    "created_at",
                    "updated_at",
                    "mood_groups"
                )
                .values(
                    SQLBind(module.title),
                    SQLBind(module.summary),
                    SQLBind(module.bodySource),
                    SQLBind(module.bodyHTML),
                    SQLBind(module.category),
                    SQLBind(module.stage.code),
                    SQLBind(module.stage.weeks.lowerBound),
                    SQLBind(module.stage.weeks.upperBound),
                    SQLBind(module.position),
                    SQLBind(module.status.rawValue),
                    SQLBind(module.videoID),
                    SQLBind(firstPublished ? time : nil as Int64?),
                    SQLBind(time),
                    SQLBind(time),
                    SQLBind(Self.stored(module.moodGroups))
                )
                .returning("id").first()!.decode(column: "id", as: Int64.self)
        } else {
            id = module.id
            try await db.update("learning_modules")
                .set("title", to: module.title).set("summary", to: module.summary).set("body_source", to: module.bodySource)
                .set("body_html", to: module.bodyHTML).set("category", to: module.category).set("stage", to: module.stage.code)
                .set("week_from", to: module.stage.weeks.lowerBound).set("week_to", to: module.stage.weeks.upperBound)
                .set("position", to: module.position).set("status", to: module.status.rawValue).set("video_id", to: module.videoID)
                .set("updated_at", to: time).set("mood_groups", to: Self.stored(module.moodGroups))
                .where("id", .equal, id).run()
            if module.status == .published {
                // Only the first publication claims the date, whichever server saves.
                firstPublished =
                    try await db.update("learning_modules").set("published_at", to: time)
                    .where("id", .equal, id).where("published_at", .is, SQLLiteral.null)
                    .returning("id").first() != nil
            }
            try await db.delete(from: "learning_module_links").where("module_id", .equal, id).run()
        }
        for (position, link) in module.links.enumerated() {
            try await db.insert(into: "learning_module_links").columns("module_id", "position", "title", "url")
                .values(SQLBind(id), SQLBind(position), SQLBind(link.title), SQLBind(link.url)).run()
        }
        try await raiseVersion(on: db)
        return (id, firstPublished)
    }

    // MARK: Quizzes

    func questions(moduleIDs: [Int64], on db: any SQLDatabase) async throws -> [QuizQuestion] {
        guard !moduleIDs.isEmpty else { return [] }
        let rows = try await db.select().columns("id", "module_id", "prompt", "explanation").from("learning_questions")
            .where("module_id", .in, moduleIDs).orderBy("id").all()
        var questions = try rows.map { row in
            QuizQuestion(
                id: try row.decode(column: "id", as: Int64.self),
                moduleID: try row.decode(column: "module_id", as: Int64.self),
                prompt: try row.decode(column: "prompt", as: String.self),
                explanation: try row.decode(column: "explanation", as: String.self),
                choices: []
            )
        }
        guard !questions.isEmpty else { return [] }
        var choices: [Int64: [QuizQuestion.Choice]] = [:]
        for row in try await db.select().columns("id", "question_id", "text", "is_correct").from("learning_choices")
            .where("question_id", .in, questions.map(\.id)).orderBy("question_id").orderBy("position").all()
        {
            choices[try row.decode(column: "question_id", as: Int64.self), default: []].append(
                QuizQuestion.Choice(
                    id: try row.decode(column: "id", as: Int64.self),
                    text: try row.decode(column: "text", as: String.self),
                    isCorrect: try row.decode(column: "is_correct", as: Bool.self)
                )
            )
        }
        for index in questions.indices { questions[index].choices = choices[questions[index].id] ?? [] }
        return questions
    }

    func question(id: Int64, on db: any SQLDatabase) async throws -> QuizQuestion? {
        guard
            let moduleID = try await db.select().column("module_id").from("learning_questions").where("id", .equal, id).first()?
                .decode(column: "module_id", as: Int64.self)
        else { return nil }
        return try await questions(moduleIDs: [moduleID], on: db).first { $0.id == id }
    }

    /// Saves a question (a new one when `question.id` is 0) with its choices, replacing the choices it had.
    func save(_ question: QuizQuestion, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        let id: Int64
        if question.id == 0 {
            id = try await db.insert(into: "learning_questions").columns("module_id", "prompt", "explanation", "created_at")
                .values(SQLBind(question.moduleID), SQLBind(question.prompt), SQLBind(question.explanation), SQLBind(now.millisecondsSince1970))
                .returning("id").first()!.decode(column: "id", as: Int64.self)
        } else {
            id = question.id
            try await db.update("learning_questions").set("prompt", to: question.prompt).set("explanation", to: question.explanation)
                .where("id", .equal, id).run()
            try await db.delete(from: "learning_choices").where("question_id", .equal, id).run()
        }
        for (position, choice) in question.choices.enumerated() {
            try await db.insert(into: "learning_choices").columns("question_id", "position", "text", "is_correct")
                .values(SQLBind(id), SQLBind(position), SQLBind(choice.text), SQLBind(choice.isCorrect)).run()
        }
        try await touch(moduleID: question.moduleID, now: now, on: db)
        return id
    }

    func deleteQuestion(_ question: QuizQuestion, now: Date, on db: any SQLDatabase) async throws {
        try await db.delete(from: "learning_choices").where("question_id", .equal, question.id).run()
        try await db.delete(from: "learning_questions").where("id", .equal, question.id).run()
        try await touch(moduleID: question.moduleID, now: now, on: db)
    }

    private func touch(moduleID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("learning_modules").set("updated_at", to: now.millisecondsSince1970).where("id", .equal, moduleID).run()
        try await raiseVersion(on: db)
    }

    // MARK: The listings' version

    /// The version every change to modules, questions or videos raises; read it before the listing.
    func version(on db: any SQLDatabase) async throws -> Int64 {
        try await db.select().column("version").from("list_versions").where("list", .equal, "learning").first()?.decode(
            column: "version",
            as: Int64.self
        ) ?? 0
    }

    private func raiseVersion(on db: any SQLDatabase) async throws {
        try await db.raw("UPDATE list_versions SET version = version + 1 WHERE list = 'learning'").run()
    }

    /// How many questions each of these modules' quizzes has.
    func questionCounts(moduleIDs: [Int64], on db: any SQLDatabase) async throws -> [Int64: Int] {
        try await db.counts(in: "learning_questions", by: "module_id", for: moduleIDs)
    }

    // MARK: Attempts and views

    func recordAttempt(moduleID: Int64, memberID: Int64, score: QuizScore, at now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "learning_attempts").columns("module_id", "member_id", "correct_count", "question_count", "submitted_at")
            .values(
                SQLBind(moduleID),
                SQLBind(memberID),
                SQLBind(score.correctCount),
                SQLBind(score.questionCount),
                SQLBind(now.millisecondsSince1970)
            )
            .run()
    }

    /// Her best score on each module she completed: module id → (correct, questions) of her best attempt.
    func completedModules(memberID: Int64, on db: any SQLDatabase) async throws -> [Int64: (correct: Int, questions: Int)] {
        var best: [Int64: (correct: Int, questions: Int)] = [:]
        for row in try await db.select().columns("module_id", "correct_count", "question_count").from("learning_attempts")
            .where("member_id", .equal, memberID).all()
        {
            let id = try row.decode(column: "module_id", as: Int64.self)
            let attempt = (
                correct: try row.decode(column: "correct_count", as: Int.self), questions: try row.decode(column: "question_count", as: Int.self)
            )
            if let known = best[id], known.correct * max(attempt.questions, 1) >= attempt.correct * max(known.questions, 1) { continue }
            best[id] = attempt
        }
        return best
    }

    func recordView(videoID: Int64, memberID: Int64, at now: Date, on db: any SQLDatabase) async throws {
        let time = now.millisecondsSince1970
        try await db.insert(into: "learning_video_views").columns("video_id", "member_id", "first_watched_at", "last_watched_at")
            .values(SQLBind(videoID), SQLBind(memberID), SQLBind(time), SQLBind(time))
            .onConflict(with: ["member_id", "video_id"]) { $0.set(excludedValueOf: "last_watched_at") }
            .run()
    }

    func watchedVideos(memberID: Int64, on db: any SQLDatabase) async throws -> Set<Int64> {
        Set(
            try await db.select().column("video_id").from("learning_video_views").where("member_id", .equal, memberID).all()
                .map { try $0.decode(column: "video_id", as: Int64.self) }
        )
    }

    // MARK: Videos

    private static let videoColumns = [
        "id", "title", "description", "category", "length_seconds", "url", "file_name", "file_type", "file_size", "stage", "week_from", "week_to",
        "status"
    ]

    /// Every video of `program`'s library (a `Program.id`), by category and title.
    func videos(program: String = Program.perinatalCommunity.id, on db: any SQLDatabase) async throws -> [LearningVideo] {
        try await db.select().columns(Self.videoColumns).from("learning_videos").where("program", .equal, program)
            .orderBy("category").orderBy("title").orderBy("id").all().map(decodeVideo)
    }

    /// A video of `program`'s library; another program's is not found.
    func video(id: Int64, program: String = Program.perinatalCommunity.id, on db: any SQLDatabase) async throws -> LearningVideo? {
        try await db.select().columns(Self.videoColumns).from("learning_videos").where("id", .equal, id).where("program", .equal, program)
            .first().map(decodeVideo)
    }

    /// The published videos of `program`'s library, by category and title.
    func publishedVideos(program: String, on db: any SQLDatabase) async throws -> [LearningVideo] {
        try await db.select().columns(Self.videoColumns).from("learning_videos")
            .where("program", .equal, program).where("status", .equal, LearningStatus.published.rawValue)
            .orderBy("category").orderBy("title").orderBy("id")
            .all().map(decodeVideo)
    }

    /// The perinatal program's published videos for a member in `week` of her pregnancy.
    func publishedVideos(week: Int, on db: any SQLDatabase) async throws -> [LearningVideo] {
        try await db.select().columns(Self.videoColumns).from("learning_videos")
            .where("program", .equal, Program.perinatalCommunity.id).where("status", .equal, LearningStatus.published.rawValue)
            .where("week_from", .lessThanOrEqual, week).where("week_to", .greaterThanOrEqual, week)
            .orderBy("category").orderBy("title").orderBy("id")
            .all().map(decodeVideo)
    }

    private func decodeVideo(_ row: any SQLRow) throws -> LearningVideo {
        let source: LearningVideo.Source
        if let name = try row.decode(column: "file_name", as: String?.self),
            let type = try row.decode(column: "file_type", as: String?.self).flatMap(UploadType.init(rawValue:))
        {
            source = .file(StoredUpload(fileName: name, type: type), size: try row.decode(column: "file_size", as: Int?.self) ?? 0)
        } else {
            source = .link(try row.decode(column: "url", as: String?.self) ?? "")
        }
        return LearningVideo(
            id: try row.decode(column: "id", as: Int64.self),
            title: try row.decode(column: "title", as: String.self),
            description: try row.decode(column: "description", as: String.self),
            category: try row.decode(column: "category", as: String.self),
            lengthSeconds: try row.decode(column: "length_seconds", as: Int.self),
            source: source,
            stage: try decodeStage(row),
            status: LearningStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .draft
        )
    }

    /// Saves a video of `program`'s library (a new one when `video.id` is 0); returns its id.
    func save(_ video: LearningVideo, program: String = Program.perinatalCommunity.id, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        let time = now.millisecondsSince1970
        var url: String?, fileName: String?, fileType: String?, fileSize: Int?
        switch video.source {
        case .link(let address): url = address
        case .file(let stored, let size): (fileName, fileType, fileSize) = (stored.fileName, stored.type.rawValue, size)
        }
        try await raiseVersion(on: db)
        if video.id == 0 {
            return try await db.insert(into: "learning_videos")
                .columns(
                    "program",
                    "title",
                    "description",
                    "category",
                    "length_seconds",
                    "url",
                    "file_name",
                    "file_type",
                    "file_size",
                    "stage",
                    "week_from",
                    "week_to",
                    "status",
                    "created_at",
                    "updated_at"
                )
                .values(
                    SQLBind(program),
                    SQLBind(video.title),
                    SQLBind(video.description),
                    SQLBind(video.category),
                    SQLBind(video.lengthSeconds),
                    SQLBind(url),
                    SQLBind(fileName),
                    SQLBind(fileType),
                    SQLBind(fileSize),
                    SQLBind(video.stage.code),
                    SQLBind(video.stage.weeks.lowerBound),
                    SQLBind(video.stage.weeks.upperBound),
                    SQLBind(video.status.rawValue),
                    SQLBind(time),
                    SQLBind(time)
                )
                .returning("id").first()!.decode(column: "id", as: Int64.self)
        }
        try await db.update("learning_videos")
            .set("title", to: video.title).set("description", to: video.description).set("category", to: video.category)
            .set("length_seconds", to: video.lengthSeconds).set("url", to: url).set("file_name", to: fileName).set("file_type", to: fileType)
            .set("file_size", to: fileSize).set("stage", to: video.stage.code).set("week_from", to: video.stage.weeks.lowerBound)
            .set("week_to", to: video.stage.weeks.upperBound).set("status", to: video.status.rawValue).set("updated_at", to: time)
            .where("id", .equal, video.id).where("program", .equal, program).run()
        return video.id
    }
}
