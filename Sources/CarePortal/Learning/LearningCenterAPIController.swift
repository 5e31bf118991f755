import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// What is published for each week, kept under the learning version: the same for every member in that
/// week, so it is kept encoded, and a request adds only what is hers (what she completed and watched).
final class LearningCenterCache: Sendable {
    struct Key: Hashable, Sendable {
        let version: Int64
        let week: Int
    }

    /// Each category's modules and videos as JSON objects still open at their end, for her fields to close.
    struct Listing: Sendable {
        struct Category: Sendable {
            /// The category's name as a JSON string.
            let name: [UInt8]
            let modules: [(id: Int64, open: [UInt8])]
            let videos: [(id: Int64, open: [UInt8])]
        }

        let categories: [Category]

        init(modules: [LearningModule], videos: [LearningVideo], questionCounts: [Int64: Int]) throws {
            let encoder = APIJSON.encoder
            func open(_ value: some Encodable) throws -> [UInt8] { Array(try encoder.encode(value).dropLast()) }
            let names = Set(modules.map(\.category) + videos.map(\.category)).sorted()
            categories = try names.map { name in
                Category(
                    name: Array(try encoder.encode(name)),
                    modules: try modules.filter { $0.category == name }.map {
                        (
                            $0.id,
                            try open(
                                LearningCenterAPI.ModuleSummary(
                                    id: $0.id,
                                    title: $0.title,
                                    summary: $0.summary,
                                    category: $0.category,
                                    questionCount: questionCounts[$0.id] ?? 0,
                                    videoId: $0.videoID
                                )
                            )
                        )
                    },
                    videos: try videos.filter { $0.category == name }.map { ($0.id, try open(LearningCenterAPI.VideoListing($0))) }
                )
            }
        }

        /// `{"categories": [...], "trimester": T, "week": W}` with her completions and views.
        func json(week: Int, completed: [Int64: (correct: Int, questions: Int)], watched: Set<Int64>) -> [UInt8] {
            var out = Array(#"{"categories":["#.utf8)
            for (index, category) in categories.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out += Array(#"{"category":"#.utf8) + category.name + Array(#","modules":["#.utf8)
                for (position, module) in category.modules.enumerated() {
                    if position > 0 { out.append(UInt8(ascii: ",")) }
                    out += module.open
                    if let best = completed[module.id] {
                        out += Array(#","best_score":{"correct":\#(best.correct),"questions":\#(best.questions)},"completed":true}"#.utf8)
                    } else {
                        out += Array(#","completed":false}"#.utf8)
                    }
                }
                out += Array(#"],"videos":["#.utf8)
                for (position, video) in category.videos.enumerated() {
                    if position > 0 { out.append(UInt8(ascii: ",")) }
                    out += video.open + Array((watched.contains(video.id) ? #","watched":true}"# : #","watched":false}"#).utf8)
                }
                out += Array("]}".utf8)
            }
            out += Array(#"],"trimester":\#(BabyWeek.trimester(of: week)),"week":\#(week)}"#.utf8)
            return out
        }
    }

    let listings = VersionedCache<Key, Listing>(budget: 200)

    /// The listing for `week`, from memory when nothing has changed since it was read.
    func listing(week: Int, content: LearningContentRepository, on db: any SQLDatabase) async throws -> Listing {
        let key = Key(version: try await content.version(on: db), week: week)
        if let kept = listings.value(for: key) { return kept }
        let modules = try await content.publishedModules(week: week, on: db)
        let listing = try Listing(
            modules: modules,
            videos: try await content.publishedVideos(week: week, on: db),
            questionCounts: try await content.questionCounts(moduleIDs: modules.map(\.id), on: db)
        )
        listings.remember(listing, for: key)
        return listing
    }
}

struct LearningCenterAPIController {
    let portal: Portal
    let cache: LearningCenterCache
    let learning: LearningCenter
    var content: LearningContentRepository { learning.content }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiLearning.pattern, access: .member, center)
        routes.get(SiteURL.pattern(SiteURL.apiLearningModule), access: .member, module)
        routes.post(SiteURL.pattern(SiteURL.apiLearningModuleAttempts), access: .member, attempt)
        routes.post(SiteURL.pattern(SiteURL.apiLearningVideoWatched), access: .member, watched)
        routes.get(SiteURL.pattern(SiteURL.apiLearningVideoFile), access: .member, videoFile)
    }

    /// Her, and her week of pregnancy today.
    private func me(_ context: PortalContext, on db: any SQLDatabase) async throws -> (Member, Int) {
        guard let found = try await learning.memberAndWeek(try context.requireMember().accountID, on: db) else { throw APIError.unauthorized }
        return found
    }

    /// `GET /api/v1/learning`: published modules and videos for her stage, by category, with what she completed.
    @Sendable func center(request: Request, context: PortalContext) async throws -> Response {
        let (week, listing, completed, watched) = try await portal.database.read { db in
            let (member, week) = try await me(context, on: db)
            return (
                week, try await cache.listing(week: week, content: content, on: db),
                try await content.completedModules(memberID: member.id, on: db), try await content.watchedVideos(memberID: member.id, on: db)
            )
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: listing.json(week: week, completed: completed, watched: watched)))
        )
    }

    /// `GET /api/v1/learning/modules/{id}`: the module to read and its quiz, without the answers; opening it is an event.
    @Sendable func module(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try context.requireMember().accountID
        guard let found = try await learning.open(moduleID: try context.parameters.apiRecordID(), memberID: memberID) else { throw APIError.notFound }
        return .json(found)
    }

    /// `POST /api/v1/learning/modules/{id}/attempts`: her answers to every question, scored and stored; the
    /// module is completed, which earns its points once a month.
    @Sendable func attempt(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.apiRecordID()
        let memberID = try context.requireMember().accountID
        let body = try await request.json(LearningCenterAPI.Attempt.self)
        guard let (score, points) = try await learning.attempt(moduleID: id, memberID: memberID, check: { try Self.answers(body, to: $0) }) else {
            throw APIError.notFound
        }
        return .json(
            LearningCenterAPI.Scored(
                correct: score.correctCount,
                questions: score.questionCount,
                percent: score.percent,
                results: score.results.map {
                    LearningCenterAPI.Result(
                        questionId: $0.questionID,
                        correct: $0.isCorrect,
                        correctChoiceIds: $0.correctChoiceIDs,
                        explanation: $0.explanation
                    )
                },
                pointsAwarded: points
            ),
            status: .created
        )
    }

    /// Her answers as question id → chosen choice ids: one answer with at least one choice for every
    /// question, each choice one of that question's.
    static func answers(_ body: LearningCenterAPI.Attempt, to questions: [QuizQuestion]) throws -> [Int64: Set<Int64>] {
        var answers: [Int64: Set<Int64>] = [:]
        var problems: [String: String] = [:]
        for (index, answer) in (body.answers ?? []).enumerated() {
            guard let questionID = answer.questionId, let question = questions.first(where: { $0.id == questionID }) else {
                problems["answers[\(index)].question_id"] = "Give the id of one of this module’s questions"
                continue
            }
            let chosen = Set(answer.choiceIds ?? [])
            if chosen.isEmpty || !chosen.isSubset(of: Set(question.choices.map(\.id))) {
                problems["answers[\(index)].choice_ids"] = "Choose one or more of the question’s answers"
            } else if answers[questionID] != nil {
                problems["answers[\(index)].question_id"] = "Answer each question once"
            }
            answers[questionID] = chosen
        }
        if problems.isEmpty, let missing = questions.first(where: { answers[$0.id] == nil }) {
            problems["answers"] = "Answer every question: question \(missing.id) has no answer"
        }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        return answers
    }

    /// `POST /api/v1/learning/videos/{id}/watched`: she watched it; earns its points once a month.
    @Sendable func watched(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try context.requireMember().accountID
        guard let points = try await learning.watched(videoID: try context.parameters.apiRecordID(), memberID: memberID) else {
            throw APIError.notFound
        }
        return .json(LearningCenterAPI.Watched(pointsAwarded: points))
    }

    /// `GET /api/v1/learning/videos/{id}/file`: an uploaded video published for her, with byte ranges so she can seek.
    @Sendable func videoFile(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.apiRecordID()
        let video = try await portal.database.read { db -> LearningVideo? in
            let (_, week) = try await me(context, on: db)
            return try await learning.visibleVideo(id, week: week, on: db)
        }
        guard let video, case .file(let stored, _) = video.source,
            let response = try await learning.videoFiles.response(for: stored, request: request, context: context, downloadName: "video-\(id)")
        else { throw APIError.notFound }
        return response
    }
}
