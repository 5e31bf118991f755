import Foundation
import PortalPlatform
import SQLKit

/// What a member does in the learning centre, for the member API and the web app's pages alike: open a
/// module published for her week (recorded as an event), answer its quiz (scored, stored, and worth its
/// points once a month), and watch a video (the same). Nothing that is not published for her week is
/// found.
struct LearningCenter: Sendable {
    let portal: Portal
    let content = LearningContentRepository()

    static let moduleCompletedReason = "module_completed"
    static let videoWatchedReason = "video_watched"

    var videoFiles: UploadStore { VideoLibrary.files(of: portal) }

    /// The member and her week of pregnancy today.
    func memberAndWeek(_ memberID: Int64, on db: any SQLDatabase) async throws -> (Member, Int)? {
        guard let member = try await MemberRepository().find(id: memberID, on: db) else { return nil }
        let today = portal.programSettings.current.clock.date(of: portal.now)
        return (member, LearningStage.memberWeek(dueDate: member.dueDate, today: today))
    }

    /// The module if it is published for her week, else nil.
    func visibleModule(_ id: Int64, week: Int, on db: any SQLDatabase) async throws -> LearningModule? {
        guard let module = try await content.module(id: id, on: db), module.status == .published, module.stage.weeks.contains(week) else {
            return nil
        }
        return module
    }

    /// The video if it is published for her week, else nil.
    func visibleVideo(_ id: Int64, week: Int, on db: any SQLDatabase) async throws -> LearningVideo? {
        guard let video = try await content.video(id: id, on: db), video.status == .published, video.stage.weeks.contains(week) else { return nil }
        return video
    }

    /// A module opened: it, its quiz without the answers, its video if that is published for her too, and
    /// her best score; the opening is recorded unless `recordingOpen` is false (the module shown again beside
    /// her score or her quiz's problems, which she did not open anew). Nil when it is not published for her week.
    func open(moduleID id: Int64, memberID: Int64, recordingOpen: Bool = true) async throws -> LearningCenterAPI.Module? {
        let now = portal.now
        return try await portal.database.transaction { db -> LearningCenterAPI.Module? in
            guard let (member, week) = try await memberAndWeek(memberID, on: db), let module = try await visibleModule(id, week: week, on: db) else {
                return nil
            }
            let questions = try await content.questions(moduleIDs: [id], on: db)
            // A video that is not published for her is left out rather than shown.
            var video: LearningVideo?
            if let videoID = module.videoID { video = try await visibleVideo(videoID, week: week, on: db) }
            let watched = video == nil ? false : try await content.watchedVideos(memberID: member.id, on: db).contains(video!.id)
            let best = try await content.completedModules(memberID: member.id, on: db)[id]
            if recordingOpen {
                try await MemberEvents().record(
                    MemberEvent(kind: .learningModuleOpened, memberID: member.id, cohortID: member.cohort.id, occurredAt: now, label: "module-\(id)"),
                    on: db
                )
            }
            return LearningCenterAPI.Module(
                id: module.id,
                title: module.title,
                summary: module.summary,
                category: module.category,
                bodyHtml: module.bodyHTML,
                links: module.links.map { LearningCenterAPI.Link(title: $0.title, url: $0.url) },
                video: video.map { LearningCenterAPI.Video($0, watched: watched) },
                questions: questions.map { question in
                    LearningCenterAPI.Question(
                        id: question.id,
                        prompt: question.prompt,
                        correctCount: question.correctChoiceIDs.count,
                        choices: question.choices.map { LearningCenterAPI.Choice(id: $0.id, text: $0.text) }
                    )
                },
                completed: best != nil,
                bestScore: best.map { LearningCenterAPI.Score(correct: $0.correct, questions: $0.questions) }
            )
        }
    }

    /// Her answers to a module's quiz, checked by `check` against its questions (it throws what is wrong),
    /// scored and stored; the module is completed, which earns its points once a month. Nil when the module
    /// is not published for her week.
    func attempt(
        moduleID id: Int64,
        memberID: Int64,
        check: @Sendable ([QuizQuestion]) throws -> [Int64: Set<Int64>]
    ) async throws -> (score: QuizScore, points: Int)? {
        let now = portal.now
        let clock = portal.programSettings.current.clock
        return try await portal.database.transaction { db -> (QuizScore, Int)? in
            guard let (member, week) = try await memberAndWeek(memberID, on: db), try await visibleModule(id, week: week, on: db) != nil else {
                return nil
            }
            let questions = try await content.questions(moduleIDs: [id], on: db)
            let score = QuizScore.score(questions, answers: try check(questions))
            try await content.recordAttempt(moduleID: id, memberID: member.id, score: score, at: now, on: db)
            try await MemberEvents().record(
                MemberEvent(
                    kind: .learningModuleCompleted,
                    memberID: member.id,
                    cohortID: member.cohort.id,
                    occurredAt: now,
                    number: Int64(score.percent),
                    label: "module-\(id)"
                ),
                on: db
            )
            let rules = try await PointsRulesRepository().rules(on: db)
            let awarded = try await PointsLedger().award(
                PointsAward(reason: Self.moduleCompletedReason, reference: String(id), amount: rules.moduleCompleted, period: .month),
                to: .member(member.id),
                at: now,
                clock: clock,
                on: db
            )
            return (score, awarded ? rules.moduleCompleted : 0)
        }
    }

    /// She watched a video published for her week: recorded, and worth its points once a month. Nil when
    /// it is not published for her.
    func watched(videoID id: Int64, memberID: Int64) async throws -> Int? {
        let now = portal.now
        let clock = portal.programSettings.current.clock
        return try await portal.database.transaction { db -> Int? in
            guard let (member, week) = try await memberAndWeek(memberID, on: db), try await visibleVideo(id, week: week, on: db) != nil else {
                return nil
            }
            try await content.recordView(videoID: id, memberID: member.id, at: now, on: db)
            try await MemberEvents().record(
                MemberEvent(
                    kind: .learningVideoWatched,
                    memberID: member.id,
                    cohortID: member.cohort.id,
                    occurredAt: now,
                    label: "video-\(id)"
                ),
                on: db
            )
            let rules = try await PointsRulesRepository().rules(on: db)
            let awarded = try await PointsLedger().award(
                PointsAward(reason: Self.videoWatchedReason, reference: String(id), amount: rules.videoWatched, period: .month),
                to: .member(member.id),
                at: now,
                clock: clock,
                on: db
            )
            return awarded ? rules.videoWatched : 0
        }
    }
}
