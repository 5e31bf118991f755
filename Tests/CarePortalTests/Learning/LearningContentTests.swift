import Foundation
import HTTPTypes
import NIOCore
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The learning center's modules, quizzes and videos: what administrators write and what each member sees.
@Suite struct LearningContentTests {
    static let mp4: [UInt8] = [0, 0, 0, 0x18] + Array("ftypmp42".utf8) + Array(0..<200).map { UInt8($0) }

    /// Sets her due date so that today is the first (or last) day of `week` of her pregnancy.
    static func put(_ portal: TestPortal, memberID: Int64, inWeek week: Int, lastDay: Bool = false) async throws {
        let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
        let due = today.adding(days: lastDay ? 281 - 7 * week : 280 - 7 * (week - 1))
        try await portal.database.transaction { db in
            try await db.update("members").set("due_date", to: due.iso).where("id", .equal, memberID).run()
        }
    }

    static func module(
        _ title: String,
        _ stage: LearningStage,
        _ status: LearningStatus = .published,
        category: String = "Pregnancy"
    ) -> LearningModule {
        LearningModule(
            id: 0,
            title: title,
            summary: "About \(title).",
            bodySource: "Text.",
            bodyHTML: "<p>Text.</p>",
            category: category,
            stage: stage,
            position: 0,
            status: status,
            videoID: nil,
            links: [],
            publishedAt: nil,
            updatedAt: Date()
        )
    }

    static func titles(_ center: [String: Any]) -> Set<String> {
        Set(
            (center["categories"] as? [[String: Any]] ?? []).flatMap {
                ($0["modules"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            }
        )
    }

    @Test func weeksAndTrimestersFollowTheDueDate() {
        let today = CalendarDate(year: 2026, month: 11, day: 18)!
        #expect(LearningStage.memberWeek(dueDate: today.adding(days: 280), today: today) == 1)
        #expect(LearningStage.memberWeek(dueDate: today.adding(days: 281 - 7 * 13), today: today) == 13)
        #expect(LearningStage.memberWeek(dueDate: today.adding(days: 280 - 7 * 13), today: today) == 14)
        #expect(LearningStage.memberWeek(dueDate: today.adding(days: 400), today: today) == 1, "before week 1 counts as week 1")
        #expect(LearningStage.memberWeek(dueDate: today.adding(days: -60), today: today) == 42, "past her due date counts as week 42")
        #expect(
            LearningStage.trimester(1).weeks == 1...13 && LearningStage.trimester(2).weeks == 14...27 && LearningStage.trimester(3).weeks == 28...42
        )
        #expect(LearningStage(code: "weeks", from: 20, to: 24) == .weeks(20, 24))
        #expect(LearningStage(code: "weeks", from: 24, to: 20) == nil && LearningStage(code: "weeks", from: 0, to: 3) == nil)
    }

    @Test func theKeptListingIsValidJSONWithHerOwnFieldsAdded() throws {
        var quoted = Self.module(#"A "quoted" \ title, ünïcode</script>"#, .all, category: #"Care "at" home"#)
        quoted.id = 7
        var plain = Self.module("Plain", .all, category: "Another")
        plain.id = 8
        let video = LearningVideo(
            id: 3,
            title: "Sleep",
            description: "Line one\nline two",
            category: "Another",
            lengthSeconds: 75,
            source: .link("https://videos.example.org/a?b=c&d=e"),
            stage: .all,
            status: .published
        )
        let listing = try LearningCenterCache.Listing(modules: [quoted, plain], videos: [video], questionCounts: [7: 2])
        let bytes = listing.json(week: 20, completed: [7: (correct: 1, questions: 2)], watched: [3])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["week"] as? Int == 20 && object["trimester"] as? Int == 2)
        let categories = try #require(object["categories"] as? [[String: Any]])
        #expect(categories.map { $0["category"] as? String } == ["Another", #"Care "at" home"#])
        let first = try #require((categories[1]["modules"] as? [[String: Any]])?.first)
        #expect(first["title"] as? String == #"A "quoted" \ title, ünïcode</script>"# && first["completed"] as? Bool == true)
        #expect((first["best_score"] as? [String: Any])?["questions"] as? Int == 2 && first["question_count"] as? Int == 2)
        let other = try #require((categories[0]["modules"] as? [[String: Any]])?.first)
        #expect(other["completed"] as? Bool == false && other["best_score"] == nil && other["question_count"] as? Int == 0)
        let watched = try #require((categories[0]["videos"] as? [[String: Any]])?.first)
        #expect(
            watched["watched"] as? Bool == true && watched["url"] as? String == "https://videos.example.org/a?b=c&d=e"
                && watched["length"] as? String == "1:15"
        )
    }

    @Test(arguments: TestEngines.all)
    func membersSeeOnlyPublishedModulesForTheirStageAtEveryBoundary(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let content = LearningContentRepository()
            try await portal.database.transaction { db in
                for module in [
                    Self.module("Everyone", .all), Self.module("First", .trimester(1)), Self.module("Second", .trimester(2)),
                    Self.module("Third", .trimester(3)), Self.module("Weeks 20 to 24", .weeks(20, 24)),
                    Self.module("Draft", .all, .draft), Self.module("Archived", .all, .archived)
                ] { _ = try await content.save(module, now: portal.clock.now, on: db) }
            }
            let (wren, member) = try await AppClient.registered(portal, pseudonym: "Wren")
            let id = Int64(try #require(member["id"] as? Int))
            let expectations: [(Int, Bool, Set<String>)] = [
                (1, false, ["Everyone", "First"]),
                (13, true, ["Everyone", "First"]),
                (14, false, ["Everyone", "Second"]),
                (19, true, ["Everyone", "Second"]),
                (20, false, ["Everyone", "Second", "Weeks 20 to 24"]),
                (24, true, ["Everyone", "Second", "Weeks 20 to 24"]),
                (25, false, ["Everyone", "Second"]),
                (27, true, ["Everyone", "Second"]),
                (28, false, ["Everyone", "Third"]),
                (42, true, ["Everyone", "Third"])
            ]
            for (week, lastDay, expected) in expectations {
                try await Self.put(portal, memberID: id, inWeek: week, lastDay: lastDay)
                let center = try await wren.get(SiteURL.apiLearning.path).object
                #expect(center["week"] as? Int == week)
                #expect(Self.titles(center) == expected, "week \(week), \(lastDay ? "last" : "first") day")
            }
            // The listing kept in memory follows every change, whichever way it was made.
            var everyone = try #require(try await portal.database.read { db in try await content.modules(on: db) }.first { $0.title == "Everyone" })
            everyone.status = .archived
            try await portal.database.transaction { [everyone] db in _ = try await content.save(everyone, now: portal.clock.now, on: db) }
            #expect(Self.titles(try await wren.get(SiteURL.apiLearning.path).object) == ["Third"])
            // Drafts and archived modules cannot be opened by their address either.
            let all = try await portal.database.read { db in try await content.modules(on: db) }
            for module in all where module.status != .published {
                #expect(try await wren.get(SiteURL.apiLearningModule(module.id).path).status == .notFound)
            }
            let second = try #require(all.first { $0.title == "Second" })
            #expect(try await wren.get(SiteURL.apiLearningModule(second.id).path).status == .notFound, "another stage's module is not hers")
        }
    }

    @Test(arguments: TestEngines.all)
    func publishingTellsTheMembersOfItsStageOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var ids: [Int64] = []
            var apps: [AppClient] = []
            for (week, lastDay) in [(19, true), (20, false), (24, true), (25, false)] {
                let (app, member) = try await AppClient.registered(portal)
                let id = Int64(try #require(member["id"] as? Int))
                try await Self.put(portal, memberID: id, inWeek: week, lastDay: lastDay)
                ids.append(id)
                apps.append(app)
            }
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get(SiteURL.newLearningModule.path)
            let form: [(String, String)] = [
                ("title", "Your baby's movements"), ("summary", "When to call."), ("body", "Call your midwife."), ("category", "Pregnancy"),
                ("position", "1"), ("video_id", ""), ("links", ""), ("stage", "weeks"), ("week_from", "20"), ("week_to", "24"), ("intent", "save")
            ]
            let draft = try await admin.post(SiteURL.newLearningModule.path, form: form + [("status", "draft")])
            #expect(draft.status == .seeOther)
            let moduleID = try #require(try await portal.database.read { db in try await LearningContentRepository().modules(on: db) }.first?.id)
            for app in apps { #expect(try await FeedSteps.feed(app).entries.isEmpty, "a draft tells no one") }

            let published = try await admin.post(SiteURL.learningModule(moduleID).path, form: form + [("status", "published")])
            #expect(published.location == SiteURL.learningModules.path)
            #expect(try await admin.get(SiteURL.learningModules.path).text.contains("2 members were told."))
            var kinds: [[String]] = []
            for app in apps { kinds.append(try await FeedSteps.feed(app).entries.compactMap { $0["kind"] as? String }) }
            #expect(kinds == [[], ["learning_new_module"], ["learning_new_module"], []], "weeks 20 and 24 only")
            let entry = try #require(try await FeedSteps.feed(apps[1]).entries.first)
            #expect((entry["subject"] as? [String: Any])?["title"] as? String == "Your baby's movements")
            #expect((entry["subject"] as? [String: Any])?["type"] as? String == "learning_module")
            // Saving it again, or archiving and publishing again, tells no one twice.
            _ = try await admin.post(SiteURL.learningModule(moduleID).path, form: form + [("status", "archived")])
            _ = try await admin.post(SiteURL.learningModule(moduleID).path, form: form + [("status", "published")])
            #expect(try await FeedSteps.feed(apps[1]).entries.count == 1)
            _ = try await admin.post(SiteURL.learningModule(moduleID).path, form: form + [("status", "archived")])
            let archived = try #require(try await FeedSteps.feed(apps[1]).entries.first)
            #expect((archived["subject"] as? [String: Any])?["title"] as? String == LearningContentRepository.unavailableTitle)
        }
    }

    @Test func aQuestionIsRightOnlyWithExactlyItsCorrectAnswers() {
        let single = QuizQuestion(
            id: 1,
            moduleID: 9,
            prompt: "Q1",
            explanation: "E1",
            choices: [
                .init(id: 11, text: "a", isCorrect: true), .init(id: 12, text: "b", isCorrect: false)
            ]
        )
        let multiple = QuizQuestion(
            id: 2,
            moduleID: 9,
            prompt: "Q2",
            explanation: "E2",
            choices: [
                .init(id: 21, text: "a", isCorrect: true), .init(id: 22, text: "b", isCorrect: true), .init(id: 23, text: "c", isCorrect: false)
            ]
        )
        let all = QuizScore.score([single, multiple], answers: [1: [11], 2: [21, 22]])
        #expect(all.correctCount == 2 && all.percent == 100)
        let partly = QuizScore.score([single, multiple], answers: [1: [12], 2: [21, 22]])
        #expect(partly.correctCount == 1 && partly.percent == 50 && partly.results.map(\.isCorrect) == [false, true])
        let oneOfTwo = QuizScore.score([single, multiple], answers: [1: [11], 2: [21]])
        #expect(oneOfTwo.results[1].isCorrect == false, "half of a multi-answer question is not right")
        let extra = QuizScore.score([single, multiple], answers: [1: [11], 2: [21, 22, 23]])
        #expect(extra.results[1].isCorrect == false, "a wrong answer ticked with the right ones is not right")
        #expect(partly.results[0].explanation == "E1" && partly.results[1].correctChoiceIDs == [21, 22])
        #expect(QuizScore.score([], answers: [:]).percent == 100)
    }

    @Test(arguments: TestEngines.all)
    func aQuizIsScoredStoredAndEarnsItsPointsOnceAMonthOnTheProgramsClock(engine: Database.Engine) async throws {
        // 30 November 2026, 22:00 in New York: the month ends in two hours on the program's clock.
        try await TestPortal.run(engine, clock: TestClock(PointsLedgerTests.lastMoment.addingTimeInterval(-7_200))) { portal in
            let content = LearningContentRepository()
            let (moduleID, questions) = try await portal.database.transaction { db -> (Int64, [QuizQuestion]) in
                let (id, _) = try await content.save(Self.module("Eating well", .all), now: portal.clock.now, on: db)
                for (prompt, choices) in [
                    ("Folic acid until?", [("Week 12", true), ("Week 40", false)]), ("Protein?", [("Beans", true), ("Eggs", true), ("Cola", false)])
                ] {
                    _ = try await content.save(
                        QuizQuestion(
                            id: 0,
                            moduleID: id,
                            prompt: prompt,
                            explanation: "Because \(prompt)",
                            choices: choices.map { .init(id: 0, text: $0.0, isCorrect: $0.1) }
                        ),
                        now: portal.clock.now,
                        on: db
                    )
                }
                return (id, try await content.questions(moduleIDs: [id], on: db))
            }
            let (wren, member) = try await AppClient.registered(portal, pseudonym: "Wren")
            let memberID = Int64(try #require(member["id"] as? Int))
            let start = try await wren.get(SiteURL.apiPoints.path).object["balance"] as? Int ?? -1

            let opened = try await wren.get(SiteURL.apiLearningModule(moduleID).path)
            #expect(opened.status == .ok)
            let shown = try #require(opened.object["questions"] as? [[String: Any]])
            #expect(shown.count == 2 && shown[1]["correct_count"] as? Int == 2)
            #expect(!opened.text.contains("is_correct") && !opened.text.contains("explanation"), "the answers are not given away")

            let (q1, q2) = (questions[0], questions[1])
            func answers(_ first: [Int64], _ second: [Int64]) -> [String: Any] {
                ["answers": [["question_id": q1.id, "choice_ids": first], ["question_id": q2.id, "choice_ids": second]]]
            }
            // Every question must be answered, with its own choices.
            let missing = try await wren.send(
                .post,
                SiteURL.apiLearningModuleAttempts(moduleID).path,
                json: ["answers": [["question_id": q1.id, "choice_ids": [q1.choices[0].id]]]]
            )
            #expect(missing.status == .unprocessableContent && missing.fieldErrors["answers"] != nil)
            let foreign = try await wren.send(
                .post,
                SiteURL.apiLearningModuleAttempts(moduleID).path,
                json: answers([q2.choices[0].id], [q2.choices[0].id])
            )
            #expect(foreign.status == .unprocessableContent && foreign.fieldErrors["answers[0].choice_ids"] != nil)

            let partly = try await wren.send(
                .post,
                SiteURL.apiLearningModuleAttempts(moduleID).path,
                json: answers([q1.choices[0].id], [q2.choices[0].id])
            )
            #expect(partly.status == .created)
            #expect(partly.object["correct"] as? Int == 1 && partly.object["questions"] as? Int == 2 && partly.object["percent"] as? Int == 50)
            let results = try #require(partly.object["results"] as? [[String: Any]])
            #expect(results[1]["correct"] as? Bool == false && results[1]["explanation"] as? String == "Because Protein?")
            #expect((results[1]["correct_choice_ids"] as? [Int])?.map(Int64.init) == [q2.choices[0].id, q2.choices[1].id])
            #expect(partly.object["points_awarded"] as? Int == PointsRules.defaults.moduleCompleted)
            #expect(try await wren.get(SiteURL.apiPoints.path).object["balance"] as? Int == start + 10, "points show at once")

            let all = try await wren.send(
                .post,
                SiteURL.apiLearningModuleAttempts(moduleID).path,
                json: answers([q1.choices[0].id], [q2.choices[0].id, q2.choices[1].id])
            )
            #expect(all.object["percent"] as? Int == 100 && all.object["points_awarded"] as? Int == 0, "no second award in the month")
            #expect(try await wren.get(SiteURL.apiPoints.path).object["balance"] as? Int == start + 10)
            let center = try await wren.get(SiteURL.apiLearning.path).object
            let summary = try #require(((center["categories"] as? [[String: Any]])?.first?["modules"] as? [[String: Any]])?.first)
            #expect(summary["completed"] as? Bool == true && (summary["best_score"] as? [String: Any])?["correct"] as? Int == 2)

            // Past local midnight on the last day of the month it earns again.
            portal.clock.advance(by: PointsLedgerTests.firstMoment.timeIntervalSince(portal.clock.now))
            let next = try await wren.send(
                .post,
                SiteURL.apiLearningModuleAttempts(moduleID).path,
                json: answers([q1.choices[0].id], [q2.choices[0].id, q2.choices[1].id])
            )
            #expect(next.object["points_awarded"] as? Int == 10)
            let points = try await wren.get(SiteURL.apiPoints.path).object
            #expect(points["month"] as? String == "2026-12" && (points["balance"] as? Int ?? 0) >= 10)

            let (attempts, opens, completions) = try await portal.database.read { db in
                (
                    try await db.count(in: "learning_attempts") { $0.where("member_id", .equal, memberID) },
                    try await MemberEvents().events(memberID: memberID, kind: .learningModuleOpened, on: db),
                    try await MemberEvents().events(memberID: memberID, kind: .learningModuleCompleted, on: db)
                )
            }
            #expect(attempts == 3, "each attempt is stored with its score")
            #expect(opens.count == 1 && opens[0].label == "module-\(moduleID)")
            #expect(completions.map(\.number) == [50, 100, 100])

            // A module without questions is completed with no answers.
            let reading = try await portal.database.transaction { db in
                try await content.save(Self.module("Reading only", .all), now: portal.clock.now, on: db).id
            }
            let done = try await wren.send(.post, SiteURL.apiLearningModuleAttempts(reading).path, json: ["answers": [Any]()])
            #expect(done.status == .created && done.object["questions"] as? Int == 0 && done.object["points_awarded"] as? Int == 10)

            // Her attempts go with her account.
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.post(SiteURL.memberDelete(memberID).path).status == .seeOther)
            let left = try await portal.database.read { db in try await db.count(in: "learning_attempts") }
            #expect(left == 0)
        }
    }

    @Test(arguments: TestEngines.all)
    func aWatchedVideoEarnsOnceAMonthAndUploadedOnesAreServedWithRanges(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, member) = try await AppClient.registered(portal, pseudonym: "Wren")
            let memberID = Int64(try #require(member["id"] as? Int))
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get(SiteURL.newLearningVideo.path)
            let fields: [(String, String)] = [
                ("title", "Safe sleep"), ("category", "Baby"), ("length", "4:30"), ("description", "How to lay your baby down."),
                ("stage", "all"), ("status", "published"), ("source", "file"), ("url", "")
            ]
            let store = VideoLibrary.files(of: portal.portal)
            func stored() async throws -> [String] { try await UploadsTests.kept(store) }
            func rows() async throws -> Int { try await portal.database.read { db in try await db.count(in: "learning_videos") } }

            // A picture called .mp4 is refused for what it is; an empty file too; nothing is kept of either.
            let disguised = try await admin.postMultipart(
                SiteURL.newLearningVideo.path,
                fields: fields,
                file: ("file", "birth.mp4", "video/mp4", UploadsTests.png)
            )
            #expect(disguised.status == .unprocessableContent && disguised.errorSummary == ["The video must be an MP4 or WebM video"])
            #expect(disguised.text.contains(#"value="Safe sleep""#), "what was typed is kept")
            let empty = try await admin.postMultipart(SiteURL.newLearningVideo.path, fields: fields, file: ("file", "birth.mp4", "video/mp4", []))
            #expect(empty.errorSummary == ["The selected video file is empty"])
            let invalid = try await admin.postMultipart(
                SiteURL.newLearningVideo.path,
                fields: fields.filter { $0.0 != "title" },
                file: ("file", "a.mp4", "video/mp4", Self.mp4)
            )
            #expect(invalid.errorSummary == ["Enter the video’s title"])
            let rowCount = try await rows()
            #expect(try await stored().isEmpty && rowCount == 0, "a refused form leaves no file and no row")
            let link = try await admin.postMultipart(
                SiteURL.newLearningVideo.path,
                fields: fields.map { $0.0 == "source" ? ("source", "link") : $0.0 == "url" ? ("url", "http://videos.example.org/a") : $0 },
                file: nil
            )
            #expect(link.errorSummary == ["Enter the video’s address, starting with https://"])

            let saved = try await admin.postMultipart(
                SiteURL.newLearningVideo.path,
                fields: fields,
                file: ("file", "../sleep.webm", "video/webm", Self.mp4)
            )
            #expect(saved.location == SiteURL.learningVideos.path)
            let video = try #require(try await portal.database.read { db in try await LearningContentRepository().videos(on: db) }.first)
            guard case .file(let upload, let size) = video.source else { Issue.record("not a file"); return }
            let kept = try await stored()
            #expect(upload.type == .mp4 && size == Self.mp4.count && kept == [upload.fileName])

            let center = try await wren.get(SiteURL.apiLearning.path).object
            let listed = try #require(((center["categories"] as? [[String: Any]])?.first?["videos"] as? [[String: Any]])?.first)
            #expect(listed["kind"] as? String == "file" && listed["url"] as? String == SiteURL.apiLearningVideoFile(video.id).path)
            #expect(listed["content_type"] as? String == "video/mp4" && listed["length"] as? String == "4:30" && listed["watched"] as? Bool == false)

            let path = SiteURL.apiLearningVideoFile(video.id).path
            let first = try await wren.send(.get, path, headers: [.range: "bytes=0-11"])
            #expect(
                first.status == .partialContent && first.headers[.contentType] == "video/mp4"
                    && first.headers[.contentRange] == "bytes 0-11/\(Self.mp4.count)"
            )
            #expect(Array(first.response.body.readableBytesView) == Array(Self.mp4[0...11]))
            let middle = try await wren.send(.get, path, headers: [.range: "bytes=100-149"])
            #expect(Array(middle.response.body.readableBytesView) == Array(Self.mp4[100...149]))
            let suffix = try await wren.send(.get, path, headers: [.range: "bytes=-10"])
            #expect(Array(suffix.response.body.readableBytesView) == Array(Self.mp4.suffix(10)))
            let outside = try await wren.send(.get, path, headers: [.range: "bytes=5000-"])
            #expect(outside.status == .rangeNotSatisfiable && outside.headers[.contentRange] == "bytes */\(Self.mp4.count)")
            #expect(try await wren.get(path).headers[.acceptRanges] == "bytes")

            let watched = try await wren.send(.post, SiteURL.apiLearningVideoWatched(video.id).path)
            #expect(watched.object["points_awarded"] as? Int == PointsRules.defaults.videoWatched)
            #expect(try await wren.send(.post, SiteURL.apiLearningVideoWatched(video.id).path).object["points_awarded"] as? Int == 0)
            let events = try await portal.database.read { db in
                try await MemberEvents().events(memberID: memberID, kind: .learningVideoWatched, on: db)
            }
            #expect(events.count == 2 && events[0].label == "video-\(video.id)")
            #expect(try await portal.database.read { db in try await db.count(in: "learning_video_views") } == 1)

            // Archived, it is no longer hers to play or mark.
            let archived = try await admin.postMultipart(
                SiteURL.learningVideo(video.id).path,
                fields: fields.map { $0.0 == "status" ? ("status", "archived") : $0 },
                file: nil
            )
            #expect(archived.location == SiteURL.learningVideos.path)
            #expect(try await wren.get(path).status == .notFound)
            #expect(try await wren.send(.post, SiteURL.apiLearningVideoWatched(video.id).path).status == .notFound)
            #expect(try await stored() == [upload.fileName], "saving without a new file keeps the file")
            // Replaced by a link, the file goes.
            _ = try await admin.postMultipart(
                SiteURL.learningVideo(video.id).path,
                fields: fields.map {
                    $0.0 == "source" ? ("source", "link") : $0.0 == "url" ? ("url", "https://videos.example.org/sleep") : $0
                },
                file: nil
            )
            #expect(try await stored().isEmpty)
        }
    }

    @Test(arguments: TestEngines.all)
    func administratorsPreviewModulesAndEveryTextIsEscaped(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get(SiteURL.newLearningModule.path)
            let empty = try await admin.post(SiteURL.newLearningModule.path, form: [("intent", "save"), ("links", "NHS | http://nhs.uk")])
            #expect(empty.status == .unprocessableContent)
            #expect(
                empty.errorSummary == [
                    "Enter the module’s title", "Enter a category", "Enter the order as a whole number from 0 to 9999", "Enter a summary",
                    "Enter the module’s text", "Link 1 must be a web address that starts with https://", "Choose who it is for", "Choose a status"
                ]
            )
            let form: [(String, String)] = [
                ("title", "<b>Sleep</b> & you"), ("summary", "<i>Rest</i>"), ("body", "## Rest\n\n**Lie on your side.**<script>alert(1)</script>"),
                ("category", "<u>Wellbeing</u>"), ("position", "2"), ("video_id", ""), ("links", "NHS <advice> | https://www.nhs.uk/sleep"),
                ("stage", "trimester_2"), ("status", "draft")
            ]
            let preview = try await admin.post(SiteURL.newLearningModule.path, form: form + [("intent", "preview")])
            #expect(preview.status == .ok)
            #expect(preview.text.contains("<strong>Lie on your side.</strong>") && !preview.text.contains("<script>alert"))
            #expect(preview.text.contains("Preview: this is how members will read"))
            #expect(preview.text.contains(#"value="&lt;b&gt;Sleep&lt;/b&gt; &amp; you""#), "what was typed is kept, escaped")
            #expect(try await portal.database.read { db in try await db.count(in: "learning_modules") } == 0, "a preview saves nothing")

            let saved = try await admin.post(SiteURL.newLearningModule.path, form: form + [("intent", "save")])
            let moduleID = try #require(try await portal.database.read { db in try await LearningContentRepository().modules(on: db) }.first?.id)
            #expect(saved.location == SiteURL.learningModule(moduleID).path)
            let list = try await admin.get(SiteURL.learningModules.path).text
            #expect(list.contains("&lt;b&gt;Sleep&lt;/b&gt; &amp; you") && !list.contains("<b>Sleep</b>") && list.contains("&lt;u&gt;Wellbeing"))
            #expect(list.contains("Second trimester (weeks 14–27)") && list.contains("Draft"))

            // A question needs two answers, one ticked correct, and an explanation.
            try await admin.get(SiteURL.newQuizQuestion(moduleID).path)
            let bad = try await admin.post(SiteURL.newQuizQuestion(moduleID).path, form: [("prompt", ""), ("choice_1", "Yes"), ("correct_2", "yes")])
            #expect(bad.errorSummary == ["Enter the question", "Enter at least two answers", "Enter an explanation"])
            let none = try await admin.post(
                SiteURL.newQuizQuestion(moduleID).path,
                form: [("prompt", "Side?"), ("choice_1", "Left"), ("choice_2", "Back"), ("explanation", "x")]
            )
            #expect(none.errorSummary == ["Tick at least one correct answer"])
            let good = try await admin.post(
                SiteURL.newQuizQuestion(moduleID).path,
                form: [
                    ("prompt", "Which <side>?"), ("choice_1", "Left <side>"), ("correct_1", "yes"), ("choice_2", "Back"),
                    ("explanation", "Blood flow.")
                ]
            )
            #expect(good.location == SiteURL.learningModule(moduleID).path + "#quiz")
            let page = try await admin.get(SiteURL.learningModule(moduleID).path).text
            #expect(page.contains("Which &lt;side&gt;?") && page.contains("Correct: Left &lt;side&gt;"))
            // With two questions the quiz is one heading over one numbered list of both.
            _ = try await admin.post(
                SiteURL.newQuizQuestion(moduleID).path,
                form: [
                    ("prompt", "When?"), ("choice_1", "Now"), ("correct_1", "yes"), ("choice_2", "Later"), ("explanation", "Soon.")
                ]
            )
            let twoQuestions = try await admin.get(SiteURL.learningModule(moduleID).path).text
            #expect(twoQuestions.components(separatedBy: #"id="quiz""#).count - 1 == 1, "one quiz heading")
            #expect(twoQuestions.components(separatedBy: #"<ol class="list">"#).count - 1 == 1, "one list of questions")
            #expect(twoQuestions.contains("Which &lt;side&gt;?") && twoQuestions.contains("When?"))
            // The list counts the questions of the modules on its page.
            let counted = try await admin.get(SiteURL.learningModules.path).text
            #expect(counted.contains(#"<td class="table__cell">2</td><td class="table__cell">2</td>"#), "order 2, two questions")

            // Members get the text through SafeHTML only.
            let (wren, member) = try await AppClient.registered(portal)
            try await Self.put(portal, memberID: Int64(try #require(member["id"] as? Int)), inWeek: 20)
            _ = try await admin.post(
                SiteURL.learningModule(moduleID).path,
                form: form.map { $0.0 == "status" ? ("status", "published") : $0 } + [("intent", "save")]
            )
            let opened = try await wren.get(SiteURL.apiLearningModule(moduleID).path).object
            #expect((opened["body_html"] as? String)?.contains("<script") == false)
            #expect((opened["links"] as? [[String: Any]])?.first?["url"] as? String == "https://www.nhs.uk/sleep")
            let audit = try await portal.database.read { db in
                try await db.count(in: "audit_log") { $0.where("action", .equal, "learning_module_added") }
            }
            #expect(audit == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func seedDemoWritesMarkedDemoModulesWithAQuizAndAVideoLink(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        _ = try await Commands.seedDemo(settings: CommandTests.settings(url))
        let database = try Database(url: url, logger: TestDatabase.logger)
        let (modules, videos, questions) = try await database.whileRunning {
            try await database.read { db in
                let content = LearningContentRepository()
                let modules = try await content.modules(on: db)
                return (modules, try await content.videos(on: db), try await content.questions(moduleIDs: modules.map(\.id), on: db))
            }
        }
        try await TestDatabase.drop(url)
        #expect(modules.count == 4 && modules.allSatisfy { $0.summary.hasPrefix("Demo module") })
        #expect(modules.filter { $0.status == .published }.count == 3)
        #expect(questions.count == 2 && questions.allSatisfy { $0.choices.contains(where: \.isCorrect) })
        #expect(videos.count == 1 && videos[0].description.hasPrefix("Demo entry"))
        if case .link(let address) = videos[0].source { #expect(address.hasPrefix("https://")) } else { Issue.record("the demo video is a link") }
        #expect(modules.contains { $0.videoID == videos[0].id })
    }

    @Test func aStreamedFormKeepsItsFieldsAndWritesItsFileAsItArrives() async throws {
        let (store, data) = UploadsTests.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let boundary = "----streamed"
        func body(file: [UInt8], trailer: Bool = true) -> [UInt8] {
            var bytes = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\nabc\r\n".utf8)
            bytes += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nSafe\r\nsleep\r\n".utf8)
            bytes += Array(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.mp4\"\r\nContent-Type: video/mp4\r\n\r\n".utf8
            )
            bytes += file + Array("\r\n".utf8)
            if trailer { bytes += Array("--\(boundary)--\r\n".utf8) }
            return bytes
        }
        func chunks(_ bytes: [UInt8], size: Int) -> [ByteBuffer] {
            stride(from: 0, to: bytes.count, by: size).map { ByteBuffer(bytes: bytes[$0..<min($0 + size, bytes.count)]) }
        }
        let rules = UploadRules(types: UploadType.videos, maximumSize: 300, noun: "video")
        // Chunks of 7 bytes split every delimiter somewhere; the file holds bytes that look like a boundary's start.
        let file = Self.mp4 + Array("\r\n--not-the-boundary".utf8)
        let form = try await StreamedUploadForm.read(
            chunks(body(file: file), size: 7).arriving,
            boundary: boundary,
            fileField: "file",
            store: store,
            rules: rules
        )
        #expect(form.fields == ["csrf_token": "abc", "title": "Safe\r\nsleep"])
        let stored = try #require(try form.upload?.get())
        #expect(try await store.read(stored) == file)
        #expect(MultipartForm.leadingFields(in: Array(body(file: file).prefix(120)), boundary: boundary) == ["csrf_token": "abc"])

        // Too large: refused while arriving, nothing kept.
        try await store.remove(stored)
        let large = try await StreamedUploadForm.read(
            chunks(body(file: Self.mp4 + Array(repeating: 1, count: 200)), size: 64).arriving,
            boundary: boundary,
            fileField: "file",
            store: store,
            rules: rules
        )
        #expect(large.upload == .failure(rules.tooLarge))
        // Cut off before its end: unreadable, nothing kept.
        await #expect(throws: MultipartForm.Unreadable.self) {
            _ = try await StreamedUploadForm.read(
                chunks(body(file: Self.mp4, trailer: false), size: 50).arriving,
                boundary: boundary,
                fileField: "file",
                store: store,
                rules: rules
            )
        }
        #expect(try await UploadsTests.kept(store).isEmpty)
    }
}

extension Array where Element == ByteBuffer {
    /// The pieces as an async sequence, as a request body arrives.
    var arriving: AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
