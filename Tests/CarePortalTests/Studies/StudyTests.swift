import CSV
import Foundation
import HTTPTypes
import Testing
import ZIPFoundation
@testable import CarePortal
@testable import PortalPlatform

/// Participants made straight in storage, with their own password already chosen, and signed in.
enum StudyFixtures {
    static let password = "correct horse battery staple"

    @discardableResult
    static func participant(_ portal: TestPortal, code: String, enrolledOn: CalendarDate? = nil) async throws -> (AppClient, Int64) {
        let hash = try await portal.portal.passwords.hash(password)
        let day = enrolledOn ?? portal.portal.programSettings.current.clock.date(of: portal.clock.now)
        let id = try await portal.database.transaction { db in
            let id = try await StudyRepository().enrol(
                studyCode: code,
                arm: "A",
                email: nil,
                enrolledOn: day,
                passwordHash: hash,
                now: portal.clock.now,
                on: db
            )
            try await StudyRepository().setPassword(id: id, hash: hash, now: portal.clock.now, on: db)
            return id
        }
        let response = try await AppClient(portal: portal).send(
            .post,
            SiteURL.apiStudySessions.path,
            json: ["username": code.lowercased(), "password": password]
        )
        guard response.status == .created, let token = response.object["token"] as? String else {
            throw AppClient.RegistrationFailed(body: response.text)
        }
        return (AppClient(portal: portal, token: token), id)
    }

    /// The instant the study's clock (America/New_York by default) shows `minute` past midnight on `day`, plus `seconds`.
    static func local(_ day: String, minute: Int, seconds: TimeInterval = 0) -> Date {
        ProgramClock(timeZone: TimeZone(identifier: "America/New_York")!)
            .instant(on: CalendarDate(iso: day)!, atMinute: minute).addingTimeInterval(seconds)
    }

    static func rows(_ csv: String) throws -> [[String]] {
        let reader = try CSVReader(string: csv)
        var rows: [[String]] = []
        while let row = reader.next() { rows.append(row) }
        return rows.filter { $0 != [""] }
    }
}

@Suite struct StudyTests {
    static let itemOne: Int64 = 1, itemTwo: Int64 = 2

    @Test(arguments: TestEngines.all)
    func enrolmentGivesAWorkingLoginThatMustChangeItsPassword(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (researcher, _) = try await portal.signedIn(.researcher)
            #expect(try await researcher.get(SiteURL.newStudyParticipant.path).status == .ok)
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let enrolled = try await researcher.post(
                SiteURL.newStudyParticipant.path,
                form: [
                    ("study_code", "NU-017"), ("arm", "Group <b>A</b>"), ("email", ""),
                    ("enrolled_on_day", "\(today.day)"), ("enrolled_on_month", "\(today.month)"), ("enrolled_on_year", "\(today.year)")
                ]
            )
            #expect(enrolled.status == .ok)
            let password = try #require(enrolled.text.firstMatch(of: /id="study-password">([a-z0-9-]+)</)?.1).description
            #expect(password.count == 15)
            #expect(enrolled.text.contains(#"id="study-username">nu-017<"#))

            // The same study id again is refused beside its field, with what she typed kept.
            let again = try await researcher.post(
                SiteURL.newStudyParticipant.path,
                form: [
                    ("study_code", "nu-017"), ("enrolled_on_day", "\(today.day)"), ("enrolled_on_month", "\(today.month)"),
                    ("enrolled_on_year", "\(today.year)")
                ]
            )
            #expect(again.status == .unprocessableContent)
            #expect(again.text.contains("Study id nu-017 is already enrolled") && again.text.contains(##"href="#study_code""##))

            let app = AppClient(portal: portal)
            let signIn = try await app.send(.post, SiteURL.apiStudySessions.path, json: ["username": "NU-017", "password": password])
            #expect(signIn.status == .created)
            #expect(signIn.object["must_change_password"] as? Bool == true)
            #expect(signIn.object["study_id"] as? String == "NU-017")
            let she = AppClient(portal: portal, token: try #require(signIn.object["token"] as? String))
            for path in [SiteURL.apiStudyTodos.path, SiteURL.apiStudyStatistics.path, SiteURL.apiStudyContact.path] {
                let refused = try await she.get(path)
                #expect(refused.status == .forbidden && refused.errorCode == "password_change_required", "\(path)")
            }
            let weak = try await she.send(.post, SiteURL.apiStudyPassword.path, json: ["current_password": password, "new_password": "short"])
            #expect(weak.status == .unprocessableContent && weak.fieldErrors["new_password"] != nil)
            let changed = try await she.send(
                .post,
                SiteURL.apiStudyPassword.path,
                json: ["current_password": password, "new_password": "maple syrup on tuesdays"]
            )
            #expect(changed.status == .noContent)
            #expect(try await she.get(SiteURL.apiStudyTodos.path).status == .ok)
            #expect(
                try await app.send(.post, SiteURL.apiStudySessions.path, json: ["username": "nu-017", "password": password]).status == .unauthorized
            )
            let own = try await app.send(.post, SiteURL.apiStudySessions.path, json: ["username": "nu-017", "password": "maple syrup on tuesdays"])
            #expect(own.status == .created && own.object["must_change_password"] as? Bool == false)
            #expect(try await portal.auditEntries(action: .studyParticipantEnrolled).count == 1)
            // The list shows her; what staff typed is escaped.
            let list = try await researcher.get(SiteURL.studyParticipants.path)
            #expect(list.text.contains("NU-017") && list.text.contains("Group &lt;b&gt;A&lt;/b&gt;"))
        }
    }

    @Test(arguments: TestEngines.all)
    func withdrawalEndsHerTokensAtOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (she, id) = try await StudyFixtures.participant(portal, code: "NU-002")
            let (other, _) = try await StudyFixtures.participant(portal, code: "NU-003")
            #expect(try await she.get(SiteURL.apiStudyTodos.path).status == .ok)
            var (admin, _) = try await portal.signedIn(.administrator)
            _ = try await admin.get(SiteURL.studyParticipant(id).path)
            let withdrawn = try await admin.post(SiteURL.studyParticipantWithdraw(id).path)
            #expect(withdrawn.status == .seeOther)
            #expect(try await she.get(SiteURL.apiStudyTodos.path).status == .unauthorized)
            #expect(try await portal.database.read { db in try await AppAccountKind.participant.bearerTokens.count(ownerID: id, on: db) } == 0)
            let signIn = try await AppClient(portal: portal).send(
                .post,
                SiteURL.apiStudySessions.path,
                json: ["username": "nu-002", "password": StudyFixtures.password]
            )
            #expect(signIn.status == .forbidden && signIn.errorCode == "withdrawn")
            #expect(try await other.get(SiteURL.apiStudyTodos.path).status == .ok, "only her login stopped")
            // Her data stays, marked withdrawn.
            let page = try await admin.get(SiteURL.studyParticipant(id).path)
            #expect(page.text.contains("Withdrawn") && !page.text.contains(SiteURL.studyParticipantWithdraw(id).path))
            #expect(try await portal.auditEntries(action: .studyParticipantWithdrawn).count == 1)
            #expect(try await portal.auditEntries(action: .studyParticipantViewed).count == 2)
        }
    }

    /// The day closes at midnight on the study's clock: a normal day, the days either side of the spring
    /// change (2026-03-08 has 23 hours) and of the autumn change (2026-11-01 has 25).
    @Test(
        arguments: TestEngines.all.flatMap { engine in
            ["2026-11-18", "2026-03-07", "2026-03-08", "2026-10-31", "2026-11-01"].map { (engine, $0) }
        }
    )
    func aDayNotSubmittedByMidnightCountsAsNotDone(engine: Database.Engine, day: String) async throws {
        let clock = TestClock(StudyFixtures.local(day, minute: 23 * 60 + 59, seconds: 59))
        try await TestPortal.run(engine, clock: clock) { portal in
            let date = try #require(CalendarDate(iso: day))
            let (she, _) = try await StudyFixtures.participant(portal, code: "NU-100", enrolledOn: date)
            let midnight = StudyFixtures.local(date.nextDay.iso, minute: 0)
            #expect(midnight.timeIntervalSince(portal.clock.now) == 1)

            // 23:59:59: still her day.
            let list = try await she.get(SiteURL.apiStudyTodos.path)
            #expect(list.object["day"] as? String == day)
            #expect((list.object["closes_at"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } == midnight)
            #expect(try await she.send(.put, SiteURL.apiStudyTodo(Self.itemOne).path, json: ["day": day]).status == .created)
            #expect(
                try await she.send(.put, SiteURL.apiStudyTodo(Self.itemOne).path, json: ["day": day]).status == .ok,
                "marking again changes nothing"
            )

            // 23:59:59.999: still her day.
            portal.clock.advance(by: 0.999)
            #expect(try await she.get(SiteURL.apiStudyTodos.path).object["day"] as? String == day)

            // 00:00:00: the day has closed; item two was not done.
            portal.clock.advance(by: 0.001)
            let next = try await she.get(SiteURL.apiStudyTodos.path)
            #expect(next.object["day"] as? String == date.nextDay.iso)
            #expect((next.object["items"] as? [[String: Any]])?.allSatisfy { $0["done"] as? Bool == false } == true)
            let late = try await she.send(.put, SiteURL.apiStudyTodo(Self.itemTwo).path, json: ["day": day])
            #expect(late.status == .conflict && late.errorCode == "day_closed")
            let statistics = try await she.get(SiteURL.apiStudyStatistics.path).object
            #expect(statistics["days_in_study"] as? Int == 1)
            #expect(statistics["days_all_done"] as? Int == 0)
            #expect(statistics["current_streak"] as? Int == 0)
            let counts = try #require(statistics["items"] as? [[String: Any]])
            #expect(counts.map { $0["done_days"] as? Int } == [1, 0])

            var (admin, _) = try await portal.signedIn(.administrator)
            let csv = try await admin.get(SiteURL.studyExport(.todoOutcomes).path).text
            let rows = try StudyFixtures.rows(csv)
            #expect(rows.count == 3)
            #expect(rows[1][0] == "NU-100" && rows[1][1] == day && rows[1][4] == "done")
            #expect(rows[2][1] == day && rows[2][4] == "not_done" && rows[2][5] == "")
            let closedAt = rows[1][6]
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            #expect(formatter.date(from: closedAt) == midnight)
        }
    }

    @Test(arguments: TestEngines.all)
    func aToDoChangedMidStudyLeavesPastDaysAsTheyWere(engine: Database.Engine) async throws {
        let clock = TestClock(StudyFixtures.local("2027-01-10", minute: 12 * 60))
        try await TestPortal.run(engine, clock: clock) { portal in
            let (she, _) = try await StudyFixtures.participant(portal, code: "NU-200", enrolledOn: CalendarDate(iso: "2027-01-10")!)
            #expect(try await she.send(.put, SiteURL.apiStudyTodo(Self.itemOne).path, json: ["day": "2027-01-10"]).status == .created)
            portal.clock.advance(by: 86_400)
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get(SiteURL.studyTodo(Self.itemOne).path).status == .ok)
            let reworded = try await admin.post(SiteURL.studyTodo(Self.itemOne).path, form: [("title", "Walked for 20 minutes")])
            #expect(reworded.status == .seeOther)
            // A start today or an end in the past is refused: changes apply from tomorrow.
            let early = try await admin.post(
                SiteURL.newStudyTodo.path,
                form: [
                    ("title", "Drank water"), ("starts_on_day", "11"), ("starts_on_month", "1"), ("starts_on_year", "2027")
                ]
            )
            #expect(early.status == .unprocessableContent && early.text.contains("Start date must be tomorrow or later"))
            let ended = try await admin.post(
                SiteURL.studyTodo(Self.itemTwo).path,
                form: [
                    ("title", "Taken daily folate"), ("ends_on_day", "10"), ("ends_on_month", "1"), ("ends_on_year", "2027")
                ]
            )
            #expect(ended.status == .unprocessableContent && ended.text.contains("End date must be today or later"))

            // Today still asks what it asked this morning.
            let today = try #require(try await she.get(SiteURL.apiStudyTodos.path).object["items"] as? [[String: Any]])
            #expect(today.compactMap { $0["title"] as? String } == ["Completed daily exercise", "Taken daily folate"])
            portal.clock.advance(by: 86_400)
            let tomorrow = try #require(try await she.get(SiteURL.apiStudyTodos.path).object["items"] as? [[String: Any]])
            #expect(tomorrow.compactMap { $0["title"] as? String } == ["Walked for 20 minutes", "Taken daily folate"])
            let newID = try #require(tomorrow.first?["id"] as? Int)
            #expect(newID != Int(Self.itemOne))
            // Yesterday's item can no longer be marked; the new one can.
            #expect(try await she.send(.put, SiteURL.apiStudyTodo(Self.itemOne).path, json: ["day": "2027-01-12"]).status == .notFound)
            #expect(try await she.send(.put, "/api/v1/study/todos/\(newID)", json: ["day": "2027-01-12"]).status == .created)

            // A day later the session has lapsed: sign in again.
            (admin, _) = try await portal.signedIn(.administrator)
            let rows = try StudyFixtures.rows(try await admin.get(SiteURL.studyExport(.todoOutcomes).path).text).dropFirst()
            #expect(
                rows.map { [$0[1], $0[3], $0[4]] } == [
                    ["2027-01-10", "Completed daily exercise", "done"], ["2027-01-10", "Taken daily folate", "not_done"],
                    ["2027-01-11", "Completed daily exercise", "not_done"], ["2027-01-11", "Taken daily folate", "not_done"]
                ]
            )
            #expect(try await portal.auditEntries(action: .studyTodoChanged).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func exportsMatchTheirDataDictionaryAndReadBackWithTheRightRowCounts(engine: Database.Engine) async throws {
        let clock = TestClock(StudyFixtures.local("2027-02-01", minute: 9 * 60))
        try await TestPortal.run(engine, clock: clock) { portal in
            let (one, _) = try await StudyFixtures.participant(portal, code: "NU-301", enrolledOn: CalendarDate(iso: "2027-01-29")!)
            let (two, twoID) = try await StudyFixtures.participant(portal, code: "NU-302", enrolledOn: CalendarDate(iso: "2027-01-31")!)
            _ = try await StudyFixtures.participant(portal, code: "NU-303", enrolledOn: CalendarDate(iso: "2027-02-01")!)
            #expect(try await one.send(.post, SiteURL.apiStudyOpens.path, json: [:]).status == .created)
            #expect(
                try await one.send(.post, SiteURL.apiStudyFeedback.path, json: ["message": "=SUM(A1), \"quoted\"\nand a second line"]).status
                    == .created
            )
            #expect(try await two.send(.post, SiteURL.apiStudyOpens.path, json: [:]).status == .created)
            #expect(try await one.send(.put, SiteURL.apiStudyTodo(Self.itemOne).path, json: ["day": "2027-02-01"]).status == .created)
            portal.clock.advance(by: 86_400)
            var (admin, _) = try await portal.signedIn(.administrator)
            _ = try await admin.post(SiteURL.studyParticipantWithdraw(twoID).path)

            let zip = try await admin.get(SiteURL.studyExport(.all).path)
            #expect(zip.status == .ok && zip.headers[.contentType] == "application/zip")
            let archive = try Archive(data: Data(buffer: zip.body), accessMode: .read)
            var files: [String: [[String]]] = [:]
            for entry in archive {
                var data = Data()
                _ = try archive.extract(entry) { data.append($0) }
                files[entry.path] = try StudyFixtures.rows(String(decoding: data, as: UTF8.self))
            }
            #expect(Set(files.keys) == Set(StudyExportTables.csvFiles.map(\.fileName)))
            let dictionary = try #require(files["data-dictionary.csv"])
            #expect(dictionary[0] == ["file", "column", "type", "description"])
            for (name, rows) in files {
                let described = dictionary.dropFirst().filter { $0[0] == name }.map { $0[1] }
                #expect(rows.first == described, "\(name)'s columns differ from the data dictionary")
                #expect(rows.dropFirst().allSatisfy { $0.count == described.count }, "\(name) has a row of the wrong width")
            }
            #expect(files["participants.csv"]?.count == 1 + 3)
            // Closed days: NU-301 29 Jan to 1 Feb (4); NU-302 31 Jan and 1 Feb (withdrawn on 2 Feb); NU-303 1 Feb.
            let outcomeRows = (4 + 2 + 1) * 2
            #expect(files["todo-outcomes.csv"]?.count == 1 + outcomeRows)
            #expect(files["app-opens.csv"]?.count == 1 + 2)
            #expect(files["feedback.csv"]?.count == 1 + 1)
            #expect(files["feedback.csv"]?[1][3] == "'=SUM(A1), \"quoted\"\nand a second line", "a formula is made inert, the text kept")
            #expect(files["participants.csv"]?.first { $0[0] == "NU-302" }?[3] == "withdrawn")
            // Each file alone is the same as in the ZIP.
            for export in StudyExportTables.csvFiles {
                let single = try await admin.get(SiteURL.studyExport(export).path)
                #expect(single.headers[.contentDisposition]?.contains(export.rawValue) == true)
                #expect(try StudyFixtures.rows(single.text) == files[export.fileName])
            }
            #expect(try await portal.auditEntries(action: .studyExported).count == 1 + StudyExportTables.csvFiles.count)

            // The dashboard draws the same figures: 1 of the 3 in the study on 1 February did the first to-do.
            let dashboard = try await admin.get(SiteURL.studies.path).text
            #expect(dashboard.contains(#"data-chart="study-completion-chart""#) && dashboard.contains(#"data-chart="study-opens-chart""#))
            #expect(dashboard.contains("Daily to-dos done, per day") && dashboard.contains("33% (1 of 3)"))
            #expect(dashboard.contains(#"data-figure="withdrawn">1<"#))
            #expect(dashboard.contains("No one in the study"), "days before anyone was enrolled say so")
        }
    }

    @Test(arguments: TestEngines.all)
    func feedbackIsEscapedEverywhereAndCanBeMarkedHandled(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (she, id) = try await StudyFixtures.participant(portal, code: "NU-400")
            let message = #"<script>alert("x")</script> & <img src=x onerror=alert(1)>"#
            let sent = try await she.send(.post, SiteURL.apiStudyFeedback.path, json: ["message": message])
            #expect(sent.status == .created)
            #expect(try await she.send(.post, SiteURL.apiStudyFeedback.path, json: ["message": "  "]).status == .unprocessableContent)
            var (researcher, _) = try await portal.signedIn(.researcher)
            for path in [SiteURL.studyFeedback.path, SiteURL.studyParticipant(id).path] {
                let page = try await researcher.get(path).text
                #expect(!page.contains("<script>alert") && !page.contains("<img src=x"), "\(path)")
                #expect(page.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;"), "\(path)")
            }
            let feedbackID = try #require(
                try await portal.database.read { db in try await FeedbackRepository(program: .researchStudy).messages(on: db) }.first?.id
            )
            #expect(try await researcher.post(SiteURL.studyFeedbackHandled(feedbackID).path).status == .seeOther)
            #expect(!(try await researcher.get(SiteURL.studyFeedback.path).text.contains("&lt;script&gt;")), "handled messages leave the inbox")
            #expect(try await researcher.get(SiteURL.studyFeedback.path + "?show=all").text.contains("&lt;script&gt;"))
            #expect(try await portal.auditEntries(action: .studyFeedbackHandled).count == 1)
            let events = try await portal.database.read { db in try await MemberEvents().events(participantID: id, limit: 10, on: db) }
            #expect(events.map(\.kind) == [.studyFeedbackSent])
        }
    }

    @Test(arguments: TestEngines.all)
    func appOpensAreCountedOnceAMinuteAndWrittenAsEvents(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (she, id) = try await StudyFixtures.participant(portal, code: "NU-500")
            #expect(try await she.send(.post, SiteURL.apiStudyOpens.path, json: [:]).object["recorded"] as? Bool == true)
            portal.clock.advance(by: 59)
            let repeated = try await she.send(.post, SiteURL.apiStudyOpens.path, json: [:])
            #expect(repeated.status == .ok && repeated.object["recorded"] as? Bool == false)
            portal.clock.advance(by: 2)
            #expect(try await she.send(.post, SiteURL.apiStudyOpens.path, json: [:]).status == .created)
            #expect(try await she.send(.put, SiteURL.apiStudyTodo(Self.itemTwo).path, json: ["day": "not a day"]).status == .unprocessableContent)
            let events = try await portal.database.read { db in try await MemberEvents().events(participantID: id, limit: 10, on: db) }
            #expect(events.map(\.kind) == [.studyAppOpened, .studyAppOpened])
            #expect(events.allSatisfy { $0.participantID == id })
            // The members' analytics leave a study's events out: counting afresh gives what they kept.
            let clock = portal.portal.programSettings.current.clock
            let (stored, recount) = try await portal.database.read { db in
                (try await AnalyticsAggregates().stored(on: db), try await AnalyticsAggregates().recount(clock: clock, on: db))
            }
            #expect(stored == recount)
            var (admin, _) = try await portal.signedIn(.administrator)
            let dashboard = try await admin.get(SiteURL.studies.path)
            #expect(dashboard.text.contains(#"data-figure="enrolled">1<"#) && dashboard.text.contains(#"data-figure="active">1<"#))
            let page = try await admin.get(SiteURL.studyParticipant(id).path).text
            #expect(page.contains("Opened the app"))
        }
    }

    @Test(arguments: TestEngines.all)
    func theContactPageIsMadeSafeAndServedToTheApp(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (she, _) = try await StudyFixtures.participant(portal, code: "NU-600")
            #expect(try await she.get(SiteURL.apiStudyContact.path).object["html"] as? String == "")
            var (researcher, _) = try await portal.signedIn(.researcher)
            let empty = try await researcher.post(SiteURL.studyContact.path, form: [("markdown", " ")])
            #expect(empty.status == .unprocessableContent && empty.text.contains(##"href="#markdown""##))
            let markdown = "**Call** 555-0100 <script>alert(1)</script> [book](javascript:alert(1)) [site](https://example.org)"
            #expect(try await researcher.post(SiteURL.studyContact.path, form: [("markdown", markdown)]).status == .seeOther)
            let html = try #require(try await she.get(SiteURL.apiStudyContact.path).object["html"] as? String)
            #expect(html.contains("<strong>Call</strong>") && html.contains(#"href="https://example.org""#))
            #expect(!html.contains("<script") && !html.contains("javascript:"))
            let page = try await researcher.get(SiteURL.studyContact.path).text
            #expect(page.contains("<strong>Call</strong>") && !page.contains("<script>alert"))
            #expect(try await portal.auditEntries(action: .studyContactChanged).count == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func deletingAParticipantsDataKeepsHerEventsCountedButNotHers(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (she, id) = try await StudyFixtures.participant(portal, code: "NU-700")
            _ = try await she.send(.post, SiteURL.apiStudyOpens.path, json: [:])
            _ = try await she.send(.post, SiteURL.apiStudyFeedback.path, json: ["message": "Thanks"])
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get(SiteURL.studyParticipantDelete(id).path).status == .ok)
            #expect(try await admin.post(SiteURL.studyParticipantDelete(id).path).status == .seeOther)
            #expect(try await admin.get(SiteURL.studyParticipant(id).path).status == .notFound)
            #expect(try await she.get(SiteURL.apiStudyTodos.path).status == .unauthorized)
            let (feedback, events) = try await portal.database.read { db in
                (
                    try await FeedbackRepository(program: .researchStudy).messages(on: db),
                    try await db.select().column("participant_id").from("events").where("kind", .like, "study.%").all()
                )
            }
            #expect(feedback.isEmpty)
            #expect(events.count == 2)
            #expect(try events.allSatisfy { try $0.decode(column: "participant_id", as: Int64?.self) == nil })
            #expect(try await portal.auditEntries(action: .studyParticipantDeleted).first?.recordID == "\(id)")
        }
    }

    @Test(arguments: TestEngines.all)
    func aSwitchedOffStudyAnswersNotFound(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (she, _) = try await StudyFixtures.participant(portal, code: "NU-800")
            var (admin, _) = try await portal.signedIn(.administrator)
            let routes = FeaturesTests.routes(of: .researchStudy, in: portal)
            #expect(routes.count >= 20 && routes.contains { $0.path.hasPrefix("/api/v1/study/") })
            #expect(try await admin.get("/").text.contains(#"href="/studies">Study</a>"#))
            #expect(try await FeaturesTests.switchPrograms(&admin, on: [.perinatalCommunity, .physiciansPractice]).status == .seeOther)
            for route in routes where route.method == "GET" && AccessTests.isPortal(route) {
                #expect(try await admin.get(AccessTests.concretePath(route.path)).status == .notFound, "\(route)")
            }
            #expect(try await she.get(SiteURL.apiStudyTodos.path).status == .notFound)
            #expect(!(try await admin.get("/").text.contains(#"href="/studies""#)))
            #expect(
                try await FeaturesTests.switchPrograms(&admin, on: [.perinatalCommunity, .physiciansPractice, .researchStudy]).status == .seeOther
            )
            #expect(try await she.get(SiteURL.apiStudyTodos.path).status == .ok)
        }
    }

    @Test(arguments: TestEngines.all)
    func createUserMakesResearchersAndSeedDemoFillsADemoStudy(engine: Database.Engine) async throws {
        let url = try await TestDatabase.make(engine)
        let settings = CommandTests.settings(url)
        let id = try await Commands.createUser(
            settings: settings,
            role: .researcher,
            username: "dr.study",
            email: nil,
            password: "a long enough passphrase"
        )
        let database = try Database(url: url, logger: TestDatabase.logger)
        let account = try await database.whileRunning { try await database.read { db in try await StaffAccountRepository().find(id: id, on: db) } }
        try await TestDatabase.drop(url)
        #expect(account?.role == .researcher)

        let demoURL = try await TestDatabase.make(engine)
        _ = try await Commands.seedDemo(settings: CommandTests.settings(demoURL))
        let demo = try Database(url: demoURL, logger: TestDatabase.logger)
        let (participants, feedback, marks, locations, videos) = try await demo.whileRunning {
            try await demo.read { db in
                (
                    try await StudyRepository().participants(on: db), try await FeedbackRepository(program: .researchStudy).messages(on: db),
                    try await StudyRepository().allMarks(on: db),
                    try await HelpDirectoryRepository(program: DirectoryList.study.program.id).forMember(state: nil, on: db),
                    try await LearningContentRepository().publishedVideos(program: VideoLibrary.study.program.id, on: db)
                )
            }
        }
        try await TestDatabase.drop(demoURL)
        #expect(participants.count == StudiesDemo.participantCount)
        #expect(participants.allSatisfy { $0.studyCode.hasPrefix("DEMO-") && $0.arm?.hasPrefix("Demo") == true })
        #expect(participants.filter { $0.status == .withdrawn }.count == 1)
        #expect(participants.filter { $0.claim?.claimedAt == nil && $0.claim != nil }.map(\.studyCode) == ["DEMO-006"])
        #expect(feedback.count == 2 && feedback.allSatisfy { $0.body.hasPrefix("(Demo feedback)") })
        #expect(marks.values.map(\.count).reduce(0, +) > 20)
        #expect(Set(videos.map(\.category)) == ["Fitness", "Breastfeeding"] && videos.allSatisfy { $0.title.hasSuffix("(demo data)") })
        #expect(locations.count == 2 && locations.allSatisfy { $0.kind == .careLocation && $0.pin != nil && $0.name.hasSuffix("(demo data)") })
    }
}
