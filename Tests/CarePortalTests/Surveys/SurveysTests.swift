import Foundation
import HTTPTypes
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// A survey built through the administrators' pages, as they would.
struct SurveyFixture {
    var admin: Visitor
    let id: Int64
    let questionIDs: [Int64]

    /// Days are `YYYY-MM-DD`; `cohorts` nil means every member.
    static func make(
        _ portal: TestPortal,
        opensOn: CalendarDate,
        closesOn: CalendarDate,
        cohorts: [Int64]? = nil,
        publish: Bool = true
    ) async throws -> SurveyFixture {
        var (admin, _) = try await portal.signedIn(.administrator)
        try await admin.get(SiteURL.newSurvey.path)
        var form: [(String, String)] = [
            ("title", "How are the meetings going?"), ("introduction", "Four short questions."),
            ("opens_on_day", String(opensOn.day)), ("opens_on_month", String(opensOn.month)), ("opens_on_year", String(opensOn.year)),
            ("closes_on_day", String(closesOn.day)), ("closes_on_month", String(closesOn.month)), ("closes_on_year", String(closesOn.year)),
            ("audience", cohorts == nil ? "everyone" : "cohorts")
        ]
        form += (cohorts ?? []).map { ("cohorts[]", String($0)) }
        let created = try await admin.post(SiteURL.newSurvey.path, form: form)
        #expect(created.status == .seeOther, "\(created.text)")
        let id = try #require(created.location.flatMap { Int64($0.split(separator: "/").last ?? "") })
        for question in [
            [("kind", "single_choice"), ("prompt", "How often do you come?"), ("choices", "Every week\nMost weeks\nNot yet"), ("required", "yes")],
            [("kind", "multiple_choice"), ("prompt", "What helps?"), ("choices", "Talking\nSpeakers\nAdvice"), ("required", "yes")],
            [
                ("kind", "scale"), ("prompt", "How supported do you feel?"), ("scale_low_label", "Not at all"), ("scale_high_label", "Very"),
                ("required", "yes")
            ],
            [("kind", "text"), ("prompt", "Anything to change?"), ("maximum_length", "200")]
        ] {
            #expect(try await admin.post(SiteURL.newSurveyQuestion(id).path, form: question).status == .seeOther)
        }
        if publish { #expect(try await admin.post(SiteURL.surveyPublish(id).path).status == .seeOther) }
        let questions = try await portal.database.read { db in try await SurveyRepository().questions(surveyID: id, on: db) }
        return SurveyFixture(admin: admin, id: id, questionIDs: questions.map(\.id))
    }

    /// A complete, valid set of answers.
    func answers(text: String? = "Later in the day, please.", choice: Int = 2) -> [[String: Any]] {
        var answers: [[String: Any]] = [
            ["question_id": questionIDs[0], "choice": choice],
            ["question_id": questionIDs[1], "choices": [1, 3]],
            ["question_id": questionIDs[2], "scale": 4]
        ]
        if let text { answers.append(["question_id": questionIDs[3], "text": text]) }
        return answers
    }
}

/// Reads CSV back the way a spreadsheet user's tools would: with Python's csv module.
func readCSV(_ text: String) throws -> [[String]] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import csv, json, sys; print(json.dumps(list(csv.reader(sys.stdin, strict=True))))"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return try JSONSerialization.jsonObject(with: data) as? [[String]] ?? []
}

@Suite struct SurveyAuthoringTests {
    @Test(arguments: TestEngines.all)
    func administratorsWriteADraftWithEveryKindOfQuestionAndFixMistakesBesideEachField(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            try await admin.get(SiteURL.newSurvey.path)
            let wrong = try await admin.post(
                SiteURL.newSurvey.path,
                form: [
                    ("title", ""), ("introduction", "<b>Hello</b>"), ("opens_on_day", "31"), ("opens_on_month", "2"), ("opens_on_year", "2027"),
                    ("closes_on_day", String(today.day)), ("closes_on_month", String(today.month)), ("closes_on_year", String(today.year - 1))
                ]
            )
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains("There is a problem") && wrong.text.contains(##"<a href="#title">Enter a title</a>"##))
            #expect(wrong.text.contains("Choose who the survey is for") && wrong.text.contains("The last day must be today or later"))
            #expect(wrong.text.contains("&lt;b&gt;Hello&lt;/b&gt;") && !wrong.text.contains("<b>Hello</b>"), "the introduction is kept, escaped")
            #expect(wrong.text.contains(#"value="31""#), "the date is kept as typed")

            let fixture = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 7), publish: false)
            admin = fixture.admin
            let id = fixture.id
            var page = try await admin.get(SiteURL.survey(id).path).text
            #expect(page.contains("How often do you come?") && page.contains("Scale from 1 to 5") && page.contains("1: Not at all"))
            #expect(page.contains("Short free text, optional") && page.contains("Up to 200 characters"))

            // Each kind checks what it needs, beside the field.
            let noChoices = try await admin.post(
                SiteURL.newSurveyQuestion(id).path,
                form: [("kind", "single_choice"), ("prompt", "Pick"), ("choices", "Only one")]
            )
            #expect(noChoices.status == .unprocessableContent && noChoices.text.contains("Enter at least 2 answers to choose from"))
            #expect(noChoices.text.contains("Only one"), "the choices are kept")
            let noLabels = try await admin.post(SiteURL.newSurveyQuestion(id).path, form: [("kind", "scale"), ("prompt", "Rate it")])
            #expect(noLabels.text.contains("Enter what 1 means") && noLabels.text.contains("Enter what 5 means"))
            let badLength = try await admin.post(
                SiteURL.newSurveyQuestion(id).path,
                form: [("kind", "text"), ("prompt", "Say"), ("maximum_length", "5000")]
            )
            #expect(badLength.text.contains("Enter a whole number of characters from 1 to 1000"))

            // Reorder, change and remove while it is a draft.
            let ids = fixture.questionIDs
            #expect(try await admin.post(SiteURL.surveyQuestionMove(ids[3]).path, form: [("direction", "up")]).status == .seeOther)
            var order = try await portal.database.read { db in try await SurveyRepository().questions(surveyID: id, on: db).map(\.id) }
            #expect(order == [ids[0], ids[1], ids[3], ids[2]])
            #expect(
                try await admin.post(
                    SiteURL.surveyQuestion(ids[0]).path,
                    form: [
                        ("kind", "single_choice"), ("prompt", "How often do you come to meetings?"), ("choices", "Every week\nSometimes"),
                        ("required", "yes")
                    ]
                ).status == .seeOther
            )
            #expect(try await admin.post(SiteURL.surveyQuestionRemove(ids[1]).path).status == .seeOther)
            order = try await portal.database.read { db in try await SurveyRepository().questions(surveyID: id, on: db).map(\.id) }
            #expect(order == [ids[0], ids[3], ids[2]])
            let changed = try await portal.database.read { db in try await SurveyRepository().question(id: ids[0], on: db) }
            #expect(changed?.choices == ["Every week", "Sometimes"] && changed?.position == 1)
            #expect(try await portal.auditEntries(action: .surveyChanged).count >= 7)
            #expect(try await portal.auditEntries(action: .surveyCreated).count == 1)

            // Published, nobody answered yet: questions stay put, and it can go back to a draft.
            #expect(try await admin.post(SiteURL.surveyPublish(id).path).status == .seeOther)
            page = try await admin.get(SiteURL.survey(id).path).text
            #expect(page.contains("Questions can change only while the survey is a draft"))
            #expect(try await admin.post(SiteURL.surveyQuestionRemove(ids[0]).path).status == .seeOther)
            #expect(try await portal.database.read { db in try await SurveyRepository().questions(surveyID: id, on: db).count } == 3)
            #expect(try await admin.post(SiteURL.surveyBackToDraft(id).path).status == .seeOther)
            #expect(try await portal.database.read { db in try await SurveyRepository().find(id: id, on: db)?.status } == .draft)
        }
    }

    @Test(arguments: TestEngines.all)
    func onceAnyoneAnsweredItsQuestionsNeverChange(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            var fixture = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 3))
            #expect(
                try await wren.send(.post, SiteURL.apiSurveyResponses(fixture.id).path, json: ["client_id": "a1", "answers": fixture.answers()])
                    .status == .created
            )
            let page = try await fixture.admin.get(SiteURL.survey(fixture.id).path).text
            #expect(page.contains("1 member answered this survey, so its questions can no longer change."))
            #expect(!page.contains("Take back to a draft") && !page.contains("Move up"))
            #expect(try await fixture.admin.post(SiteURL.surveyBackToDraft(fixture.id).path).status == .seeOther)
            #expect(try await portal.database.read { db in try await SurveyRepository().find(id: fixture.id, on: db)?.status } == .open)
            #expect(try await fixture.admin.post(SiteURL.surveyClose(fixture.id).path).status == .seeOther)
            let survey = try await portal.database.read { db in try await SurveyRepository().find(id: fixture.id, on: db) }
            #expect(survey?.status == .closed && survey?.questionsLocked == true)
            #expect(try await wren.get(SiteURL.apiSurvey(fixture.id).path).status == .notFound, "closed surveys are not shown")
        }
    }
}

@Suite struct SurveyMemberTests {
    @Test(arguments: TestEngines.all)
    func aSurveyForChosenCohortsReachesOnlyTheirMembers(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let (wren, wrenJSON) = try await AppClient.registered(portal, pseudonym: "Wren")
            let (lark, _) = try await AppClient.registered(portal, pseudonym: "Lark", ["due_date": today.adding(months: 6).iso])
            let wrenID = Int64(try #require(wrenJSON["id"] as? Int))
            let cohort = try #require(try await portal.database.read { db in try await MemberRepository().find(id: wrenID, on: db) }).cohort.id
            let chosen = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 3), cohorts: [cohort])
            let everyone = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 5))

            let wrens = try await wren.get(SiteURL.apiSurveys.path).object["surveys"] as? [[String: Any]] ?? []
            #expect(wrens.compactMap { $0["id"] as? Int }.map(Int64.init) == [chosen.id, everyone.id], "soonest closing first")
            #expect(wrens.first?["question_count"] as? Int == 4 && wrens.first?["closes_at"] as? String != nil)
            let larks = try await lark.get(SiteURL.apiSurveys.path).object["surveys"] as? [[String: Any]] ?? []
            #expect(larks.compactMap { $0["id"] as? Int }.map(Int64.init) == [everyone.id])
            #expect(try await lark.get(SiteURL.apiSurvey(chosen.id).path).status == .notFound)
            let refused = try await lark.send(
                .post,
                SiteURL.apiSurveyResponses(chosen.id).path,
                json: ["client_id": "x", "answers": chosen.answers()]
            )
            #expect(refused.status == .notFound)

            // Each member of the audience was told once, in her feed.
            let feeds = try await portal.database.read { db in
                try await db.raw("SELECT account_id, subject_id FROM notifications WHERE kind = 'survey_open' ORDER BY subject_id, account_id").all()
                    .map { (try $0.decode(column: "account_id", as: Int64.self), try $0.decode(column: "subject_id", as: Int64.self)) }
            }
            #expect(feeds.filter { $0.1 == chosen.id }.map(\.0) == [wrenID])
            #expect(feeds.filter { $0.1 == everyone.id }.count == 2)

            let detail = try await wren.get(SiteURL.apiSurvey(chosen.id).path).object
            let questions = detail["questions"] as? [[String: Any]] ?? []
            #expect(questions.map { $0["kind"] as? String } == ["single_choice", "multiple_choice", "scale", "text"])
            #expect((questions[0]["choices"] as? [[String: Any]])?.map { $0["value"] as? Int } == [1, 2, 3])
            #expect(questions[2]["scale_min_label"] as? String == "Not at all" && questions[3]["maximum_length"] as? Int == 200)
            #expect(questions[3]["required"] as? Bool == false)

            // The administrators' list: each survey's audience, questions and responses, newest first.
            #expect(
                try await wren.send(.post, SiteURL.apiSurveyResponses(chosen.id).path, json: ["client_id": "w1", "answers": chosen.answers()]).status
                    == .created
            )
            var admin = chosen.admin
            let cohortName = try await portal.database.read { db in try await MemberRepository().cohorts(on: db) }.first { $0.id == cohort }?.name
            let rows = try await admin.get(SiteURL.surveys.path).tableRows
            #expect(rows.map { $0.count == 6 ? [$0[1], $0[4], $0[5]] : $0 } == [["Every member", "4", "0"], [cohortName ?? "", "4", "1"]])
        }
    }

    /// 28 to 30 November 2026 on New York's clock: open from 28 Nov 00:00 to 30 Nov 23:59:59.999 local.
    static let firstMoment = Date(timeIntervalSince1970: 1_795_842_000)
    static let lastMoment = Date(timeIntervalSince1970: 1_796_101_200 - 0.001)

    @Test(arguments: TestEngines.all)
    func itIsOpenFromTheStartOfItsFirstDayToTheEndOfItsLastOnTheProgramsClock(engine: Database.Engine) async throws {
        // Noon on 25 November in New York.
        try await TestPortal.run(engine, clock: TestClock(Date(timeIntervalSince1970: 1_795_626_000))) { portal in
            let clock = portal.portal.programSettings.current.clock
            let first = clock.date(of: Self.firstMoment), last = clock.date(of: Self.lastMoment)
            #expect(first.iso == "2026-11-28" && last.iso == "2026-11-30")
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            let fixture = try await SurveyFixture.make(portal, opensOn: first, closesOn: last)
            let surveys = SurveysFeature(portal: portal.portal).surveys
            func listed() async throws -> [Int] {
                (try await wren.get(SiteURL.apiSurveys.path).object["surveys"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
            }
            func notified() async throws -> Int {
                try await portal.database.read { db in try await db.count(in: "notifications") { $0.where("kind", .equal, "survey_open") } }
            }
            #expect(try await notified() == 0, "not told before its first day")

            portal.clock.advance(by: Self.firstMoment.timeIntervalSince(portal.clock.now) - 0.001)
            #expect(try await listed().isEmpty, "23:59:59.999 the day before")
            #expect(try await surveys.announceDue() == 0)
            #expect(
                try await wren.send(.post, SiteURL.apiSurveyResponses(fixture.id).path, json: ["client_id": "early", "answers": fixture.answers()])
                    .status == .notFound
            )

            portal.clock.advance(by: 0.001)
            #expect(try await listed() == [Int(fixture.id)], "00:00 on its first day")
            // Two servers' jobs at once: members are told exactly once.
            let other = SurveysFeature(portal: portal.portal).surveys
            async let one = surveys.announceDue()
            async let two = other.announceDue()
            #expect(try await one + two == 1)
            #expect(try await surveys.announceDue() == 0)
            #expect(try await notified() == 1)
            #expect(try await portal.auditEntries(action: .surveyAnnounced).count == 1)

            portal.clock.advance(by: Self.lastMoment.timeIntervalSince(portal.clock.now))
            #expect(try await listed() == [Int(fixture.id)], "23:59:59.999 on its last day")
            portal.clock.advance(by: 0.001)
            #expect(try await listed().isEmpty, "00:00 the day after")
            let late = try await wren.send(
                .post,
                SiteURL.apiSurveyResponses(fixture.id).path,
                json: ["client_id": "late", "answers": fixture.answers()]
            )
            #expect(late.status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func herAnswersAreStoredOnceWithTheirPointsAndOneEventWithoutWhatSheWrote(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let (wren, wrenJSON) = try await AppClient.registered(portal, pseudonym: "Wren")
            let wrenID = Int64(try #require(wrenJSON["id"] as? Int))
            let fixture = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 3))
            let path = SiteURL.apiSurveyResponses(fixture.id).path
            let before = try await wren.get(SiteURL.apiPoints.path).object["balance"] as? Int ?? 0

            let first = try await wren.send(.post, path, json: ["client_id": "phone-1", "answers": fixture.answers(text: "Private words")])
            #expect(first.status == .created)
            #expect(first.object["points_awarded"] as? Int == PointsRules.defaults.surveyCompleted)
            let retry = try await wren.send(.post, path, json: ["client_id": "phone-1", "answers": fixture.answers(text: "Private words")])
            #expect(retry.status == .ok && retry.text == first.text, "a retry gets the same answer")
            let again = try await wren.send(.post, path, json: ["client_id": "phone-2", "answers": fixture.answers()])
            #expect(again.status == .conflict && again.errorCode == "already_answered")

            #expect(
                try await wren.get(SiteURL.apiPoints.path).object["balance"] as? Int == before + PointsRules.defaults.surveyCompleted,
                "points once, at once"
            )
            let events = try await portal.database.read { db in try await MemberEvents().events(memberID: wrenID, kind: .surveySubmitted, on: db) }
            #expect(events.count == 1 && events[0].number == fixture.id && events[0].label == nil)
            let stored = try await portal.database.read { db in
                (
                    try await db.count(in: "survey_responses"), try await db.count(in: "survey_answers"),
                    try await db.raw("SELECT COUNT(*) AS count FROM events WHERE label LIKE '%Private%' OR client_id LIKE '%Private%'").first()?
                        .decode(column: "count", as: Int.self)
                )
            }
            #expect(stored.0 == 1 && stored.1 == 5 && stored.2 == 0)
            #expect(
                (try await wren.get(SiteURL.apiSurveys.path).object["surveys"] as? [Any])?.isEmpty == true,
                "answered surveys leave her home screen"
            )
            #expect(try await wren.get(SiteURL.apiSurvey(fixture.id).path).object["submitted_at"] as? String != nil)

            // Closed since: the retry still gets its answer.
            var admin = fixture.admin
            #expect(try await admin.post(SiteURL.surveyClose(fixture.id).path).status == .seeOther)
            #expect(try await wren.send(.post, path, json: ["client_id": "phone-1", "answers": fixture.answers()]).status == .ok)

            // Her answers go with her account.
            #expect(try await admin.post(SiteURL.memberDelete(wrenID).path).status == .seeOther)
            #expect(try await portal.database.read { db in try await db.count(in: "survey_answers") } == 0)
        }
    }

    @Test(arguments: TestEngines.all)
    func eachKindOfQuestionChecksItsAnswerWithAMessagePerQuestion(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            let fixture = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 3))
            let ids = fixture.questionIDs
            let path = SiteURL.apiSurveyResponses(fixture.id).path
            let empty = try await wren.send(.post, path, json: ["answers": []])
            #expect(empty.status == .unprocessableContent)
            #expect(empty.fieldErrors["client_id"] != nil && empty.fieldErrors["answers.\(ids[0])"] == "Choose an answer")
            #expect(empty.fieldErrors["answers.\(ids[1])"] == "Choose at least one answer")
            #expect(empty.fieldErrors["answers.\(ids[2])"] == "Choose a point on the scale from 1 to 5")
            #expect(empty.fieldErrors["answers.\(ids[3])"] == nil, "the free-text question is optional")

            let wrong = try await wren.send(
                .post,
                path,
                json: [
                    "client_id": "c1",
                    "answers": [
                        ["question_id": ids[0], "choice": 4],
                        ["question_id": ids[1], "choices": [1, 1]],
                        ["question_id": ids[2], "scale": 6],
                        ["question_id": ids[3], "text": String(repeating: "a", count: 201)]
                    ]
                ]
            )
            #expect(wrong.fieldErrors["answers.\(ids[0])"] == "Choose one of the 3 answers")
            #expect(wrong.fieldErrors["answers.\(ids[1])"] == "Choose each answer once")
            #expect(wrong.fieldErrors["answers.\(ids[2])"] == "Choose a point on the scale from 1 to 5")
            #expect(wrong.fieldErrors["answers.\(ids[3])"] == "Write 200 characters or fewer")
            let shapes = try await wren.send(
                .post,
                path,
                json: [
                    "client_id": "c1",
                    "answers": [
                        ["question_id": ids[0], "choices": [1]], ["question_id": ids[1], "choice": 1], ["question_id": ids[2], "text": "4"],
                        ["question_id": ids[3], "scale": 3], ["question_id": 999_999, "choice": 1]
                    ]
                ]
            )
            #expect(shapes.fieldErrors["answers.\(ids[0])"] == "Choose one answer, as `choice`")
            #expect(shapes.fieldErrors["answers.\(ids[1])"] == "Choose answers as `choices`, a list")
            #expect(shapes.fieldErrors["answers.\(ids[3])"] == "Write the answer as `text`")
            #expect(shapes.fieldErrors["answers"] != nil)
            let typed = try await wren.send(.post, path, raw: #"{"client_id": "c1", "answers": [{"question_id": "one"}]}"#)
            #expect(typed.status == .badRequest)
            #expect(try await portal.database.read { db in try await db.count(in: "survey_responses") } == 0, "nothing half-stored")
            #expect(try await wren.send(.post, path, json: ["client_id": "c1", "answers": fixture.answers(text: nil)]).status == .created)
        }
    }
}

@Suite struct SurveyResultsTests {
    @Test(arguments: TestEngines.all)
    func theResultsCountWhatWasSubmittedAndTheExportHoldsEveryAnswer(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            var fixture = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 3))
            let texts = ["<script>alert('x')</script> later please", "=HYPERLINK(\"http://evil.example\")", "Line one\nline \"two\", with a comma"]
            var memberIDs: [Int64] = []
            for (index, text) in texts.enumerated() {
                let (member, json) = try await AppClient.registered(portal)
                memberIDs.append(Int64(try #require(json["id"] as? Int)))
                let answers = fixture.answers(text: text, choice: index == 2 ? 3 : 1)
                #expect(
                    try await member.send(.post, SiteURL.apiSurveyResponses(fixture.id).path, json: ["client_id": "r\(index)", "answers": answers])
                        .status == .created
                )
            }
            let counts = try await portal.database.read { db in try await SurveyRepository().counts(surveyID: fixture.id, on: db) }
            #expect(counts[fixture.questionIDs[0]] == QuestionCounts(byChoice: [1: 2, 3: 1], answered: 3))
            #expect(counts[fixture.questionIDs[1]] == QuestionCounts(byChoice: [1: 3, 3: 3], answered: 3))
            #expect(counts[fixture.questionIDs[2]] == QuestionCounts(byChoice: [4: 3], answered: 3))

            let page = try await fixture.admin.get(SiteURL.surveyResults(fixture.id).path)
            #expect(page.status == .ok)
            let html = page.text
            #expect(html.contains("3 responses") && html.contains("<td class=\"table__cell table__cell--numeric\">2</td>"))
            #expect(html.contains("2 (67%)") && html.contains("1 (33%)") && html.contains("3 (100%)"))
            #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; later please") && !html.contains("<script>alert"))
            #expect(
                html.contains("<svg class=\"chart__svg\" role=\"img\"")
                    && html.contains("<title id=\"question-\(fixture.questionIDs[0])-chart-title\">")
            )
            #expect(!html.contains("question-\(fixture.questionIDs[3])-chart"), "written answers are listed, not charted")
            #expect(try await portal.auditEntries(action: .surveyResultsExported).isEmpty, "viewing results is not audited")

            let answers = try await fixture.admin.get(SiteURL.surveyTextAnswers(fixture.questionIDs[3]).path)
            #expect(answers.status == .ok && answers.text.contains("3 answers") && answers.text.contains("&lt;script&gt;"))
            #expect(!answers.text.contains("<script>alert"))
            #expect(try await fixture.admin.get(SiteURL.surveyTextAnswers(fixture.questionIDs[0]).path).status == .notFound)
            let secondPage = try await portal.database.read { db in
                try await SurveyRepository().textAnswers(questionID: fixture.questionIDs[3], page: PageRequest(number: 2, size: 2), on: db)
            }
            #expect(secondPage.items.map(\.text) == [texts[0]] && secondPage.totalCount == 3, "an old page number skips the newest answers")

            let csv = try await fixture.admin.get(SiteURL.surveyResultsCSV(fixture.id).path)
            #expect(csv.status == .ok && csv.headers[.contentType] == "text/csv; charset=utf-8")
            let rows = try readCSV(csv.text)
            #expect(rows.first == SurveysController.csvHeader)
            #expect(rows.count == 1 + 3 * 5, "one row per answer: a choice, two choices, a point, a text for each of three members")
            let textRows = rows.dropFirst().filter { $0[6] == "text" }.map { $0[8] }
            #expect(textRows == [texts[0], "'" + texts[1], texts[2]], "free text included, a formula made inert")
            let first = rows[1]
            #expect(
                first[0] == String(fixture.id) && first[4] == "1" && first[5] == "How often do you come?" && first[7] == "1"
                    && first[8] == "Every week"
            )
            #expect(rows.dropFirst().filter { $0[6] == "scale" }.allSatisfy { $0[8] == "4" })
            #expect(try await portal.auditEntries(action: .surveyResultsExported).count == 1, "the export is audited")

            // The counts are kept in memory only until the answers change: a deleted member's answers leave at once.
            #expect(try await fixture.admin.post(SiteURL.memberDelete(memberIDs[2]).path).status == .seeOther)
            let after = try await fixture.admin.get(SiteURL.surveyResults(fixture.id).path).text
            #expect(after.contains("2 responses") && after.contains("2 (100%)") && !after.contains("Line one"))
            let (late, _) = try await AppClient.registered(portal)
            #expect(
                try await late.send(
                    .post,
                    SiteURL.apiSurveyResponses(fixture.id).path,
                    json: ["client_id": "r9", "answers": fixture.answers(text: "Newest")]
                ).status == .created
            )
            let newest = try await fixture.admin.get(SiteURL.surveyResults(fixture.id).path).text
            #expect(newest.contains("3 responses") && newest.contains("Newest"))
        }
    }

    @Test func eachAnswersShareIsOfThoseWhoAnsweredTheQuestion() {
        let rows = SurveyResultsPage.rows(["Yes", "No", "Not sure"], counts: [1: 4, 2: 1], answered: 5)
        #expect(rows.map(\.count) == [4, 1, 0] && rows.map(\.percent) == ["80%", "20%", "0%"])
        #expect(
            SurveyResultsPage.rows(["Yes"], counts: [:], answered: 0).map(\.percent) == ["0%"],
            "no answers yet is no share, not a division by zero"
        )
    }
}

@Suite struct SurveyDemoTests {
    @Test(arguments: TestEngines.all)
    func seedDemoAddsOneMarkedSurveyWithAnswers(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        _ = try await Commands.seedDemo(settings: CommandTests.settings(url))
        let database = try Database(url: url, logger: TestDatabase.logger)
        let (surveys, questions, counts, responses, texts) = try await database.whileRunning {
            try await database.read { db in
                let surveys = try await SurveyRepository().list(page: PageRequest(number: 1), on: db).items
                let id = surveys.first?.survey.id ?? 0
                let questions = try await SurveyRepository().questions(surveyID: id, on: db)
                return (
                    surveys, questions, try await SurveyRepository().counts(surveyID: id, on: db),
                    try await SurveyRepository().responseCount(surveyID: id, on: db),
                    try await SurveyRepository().textAnswers(questionID: questions.last?.id ?? 0, page: PageRequest(number: 1), on: db).items
                )
            }
        }
        try await TestDatabase.drop(url)
        #expect(surveys.count == 1 && surveys[0].survey.title.hasSuffix("(demo data)") && surveys[0].survey.status == .open)
        #expect(Set(questions.map(\.kind)) == Set(SurveyQuestion.Kind.allCases), "every kind of question")
        #expect(responses > 0 && counts[questions[0].id]?.answered == responses)
        #expect(!texts.isEmpty && texts.allSatisfy { $0.text.hasSuffix("(demo data)") })
    }
}
