import Foundation
import Testing
import ZIPFoundation
@testable import CarePortal
@testable import PortalPlatform

/// What keeps the participant page, the dashboard and the export fast with a year of data: the calendar
/// drawn in one piece, the timeline paged, the dashboard's head counts taken in SQL, the ZIP sent from a
/// file that is gone once sent.
@Suite struct StudyPagesAtScaleTests {
    static let itemOne: Int64 = 1
    static let itemTwo: Int64 = 2

    static func hrefs(_ html: String, text: String) -> [String] {
        html.components(separatedBy: "<a class=\"link\" href=\"").dropFirst().compactMap { rest in
            guard let end = rest.firstIndex(of: "\""), rest[end...].hasPrefix("\">\(text)</a>") else { return nil }
            return String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    static func timelineRows(_ html: String) -> Int {
        guard let start = html.range(of: #"aria-label="Timeline""#), let end = html.range(of: "</table>", range: start.upperBound..<html.endIndex)
        else { return 0 }
        return html[start.upperBound..<end.lowerBound].components(separatedBy: "<tr>").count - 2
    }

    @Test(arguments: TestEngines.all)
    func theCalendarShowsEachDayAndTheTimelinePagesBackThroughEveryEvent(engine: Database.Engine) async throws {
        let clock = TestClock(StudyFixtures.local("2027-03-10", minute: 12 * 60))
        try await TestPortal.run(engine, clock: clock) { portal in
            let enrolled = try #require(CalendarDate(iso: "2027-01-20"))
            let (_, id) = try await StudyFixtures.participant(portal, code: "NU-900", enrolledOn: enrolled)
            // 75 events a day apart, newest on 9 March; two pairs share their instant (the id breaks the tie).
            let times = (0..<75).map { StudyFixtures.local(enrolled.adding(days: $0 * 48 / 75).iso, minute: 8 * 60 + $0 % 3) }
            try await portal.database.transaction { db in
                let events = MemberEvents()
                for (index, time) in times.enumerated() {
                    try await events.record(ParticipantEvent(kind: .studyAppOpened, participantID: id, occurredAt: time), on: db)
                    if index == 29 || index == 44 {
                        try await events.record(ParticipantEvent(kind: .studyFeedbackSent, participantID: id, occurredAt: time), on: db)
                    }
                }
                // The newest event: a to-do whose wording staff typed with markup, shown as text.
                try await StudyRepository().updateItem(
                    id: Self.itemOne,
                    title: #"Walked <b>&</b> "rested""#,
                    startsOn: CalendarDate(iso: "2020-01-01")!,
                    endsOn: nil,
                    now: portal.clock.now,
                    on: db
                )
                try await events.record(
                    ParticipantEvent(
                        kind: .studyTodoDone,
                        participantID: id,
                        occurredAt: StudyFixtures.local("2027-03-09", minute: 20 * 60),
                        number: Self.itemOne
                    ),
                    on: db
                )
                // Both to-dos on 1 February, one on 2 February, none on 3 February, both today.
                for (day, item) in [
                    ("2027-02-01", Self.itemOne), ("2027-02-01", Self.itemTwo), ("2027-02-02", Self.itemTwo),
                    ("2027-03-10", Self.itemOne), ("2027-03-10", Self.itemTwo)
                ] {
                    _ = try await StudyRepository().mark(participantID: id, itemID: item, day: CalendarDate(iso: day)!, now: portal.clock.now, on: db)
                }
            }
            var (admin, _) = try await portal.signedIn(.administrator)
            let page = try await admin.get(SiteURL.studyParticipant(id).path).text

            // One table per month, newest first, each day in its own cell with her count.
            let captions = page.components(separatedBy: #"<caption class="table__caption">"#).dropFirst().map { $0.prefix { $0 != "<" } }
            #expect(captions.prefix(3) == ["March 2027", "February 2027", "January 2027"])
            func cell(_ tone: String, _ day: Int, _ text: String) -> String {
                #"<td class="table__cell study-calendar__day study-calendar__day--\#(tone)"><span class="study-calendar__number">\#(day)</span><span class="study-calendar__value">\#(text)</span></td>"#
            }
            #expect(page.contains(cell("full", 1, "2 of 2")))
            #expect(page.contains(cell("partial", 2, "1 of 2")))
            #expect(page.contains(cell("none", 3, "0 of 2")))
            #expect(page.contains(cell("open", 10, "Today: 2 of 2")))
            // 19 January, before she was enrolled: a number and nothing else.
            #expect(
                page.contains(
                    #"<td class="table__cell study-calendar__day study-calendar__day--outside"><span class="study-calendar__number">19</span></td>"#
                )
            )
            // Every week has seven days: February 2027 starts on a Monday and has exactly four weeks.
            let february = try #require(
                page.components(separatedBy: "February 2027</caption>").dropFirst().first?.components(separatedBy: "</table>").first
            )
            #expect(february.components(separatedBy: "<tr>").count - 2 == 4)
            #expect(february.components(separatedBy: "<td ").count - 1 == 28)

            #expect(page.contains("Marked done: Walked &lt;b&gt;&amp;&lt;/b&gt; &quot;rested&quot;"))
            // The timeline: 30 at a time, newest first, each of the 78 events once.
            var seen = Self.timelineRows(page)
            #expect(seen == StudyTimeline.pageSize)
            #expect(Self.hrefs(page, text: "Back to her newest events").isEmpty)
            var next = Self.hrefs(page, text: "Show earlier events").first
            var pages = 1
            while let path = next {
                let older = try await admin.get(path)
                #expect(older.status == .ok)
                seen += Self.timelineRows(older.text)
                #expect(Self.hrefs(older.text, text: "Back to her newest events") == [SiteURL.studyParticipant(id).path + "#timeline"])
                next = Self.hrefs(older.text, text: "Show earlier events").first
                pages += 1
                #expect(pages <= 3)
            }
            #expect(pages == 3 && seen == 78)
            let (firstPage, secondKey) = try await portal.database.read { db in
                let first = try await MemberEvents().events(participantID: id, limit: StudyTimeline.pageSize, on: db)
                return (first, StudyTimeline.key(first.last.flatMap(StudyTimeline.key(after:))))
            }
            let second = try await portal.database.read { db in
                try await MemberEvents().events(participantID: id, limit: 100, before: secondKey, on: db)
            }
            #expect(Set((firstPage + second).compactMap(\.id)).count == 78, "no event twice and none left out")
            #expect(
                zip(firstPage + second, (firstPage + second).dropFirst()).allSatisfy { newer, older in
                    newer.occurredAt > older.occurredAt || (newer.occurredAt == older.occurredAt && newer.id! > older.id!)
                }
            )
            // A key that is not one shows her newest events.
            #expect(Self.timelineRows(try await admin.get(SiteURL.studyParticipant(id).path + "?timeline_before=x.1").text) == StudyTimeline.pageSize)
        }
    }

    @Test(arguments: TestEngines.all)
    func theDashboardsHeadCountsAgreeWithEachParticipantsDays(engine: Database.Engine) async throws {
        let clock = TestClock(StudyFixtures.local("2027-03-20", minute: 10 * 60))
        try await TestPortal.run(engine, clock: clock) { portal in
            let today = try #require(CalendarDate(iso: "2027-03-20"))
            // Enrolled before, inside and after the 14 days; withdrawn before, inside, on enrolment, and
            // (a mistake corrected) before her enrolment day.
            let cases: [(String, String, String?)] = [
                ("P-01", "2026-12-01", nil), ("P-02", "2027-01-15", "2027-02-01"), ("P-03", "2027-02-01", "2027-03-10"),
                ("P-04", "2027-03-08", nil), ("P-05", "2027-03-12", "2027-03-12"), ("P-06", "2027-03-15", "2027-03-11"),
                ("P-07", "2027-03-19", nil), ("P-08", "2027-03-20", nil), ("P-09", "2027-03-25", nil), ("P-10", "2027-03-06", "2027-03-19")
            ]
            let participants = try await portal.database.transaction { db in
                let studies = StudyRepository()
                for (code, enrolled, withdrawn) in cases {
                    let id = try await studies.enrol(
                        studyCode: code,
                        arm: nil,
                        email: nil,
                        enrolledOn: CalendarDate(iso: enrolled)!,
                        passwordHash: "x",
                        now: portal.clock.now,
                        on: db
                    )
                    if let withdrawn { _ = try await studies.withdraw(id: id, on: CalendarDate(iso: withdrawn)!, now: portal.clock.now, on: db) }
                }
                return try await studies.participants(on: db)
            }
            let first = today.adding(days: -StudyDashboardController.days)
            let counted = try await portal.database.read { db in
                try await StudyRepository().inStudyPerDay(from: first, through: today.adding(days: -1), on: db)
            }
            let ranges = participants.compactMap { $0.days(through: today.adding(days: -1)) }
            for day in first.dayNumber..<today.dayNumber {
                #expect(counted[day] == ranges.filter { $0.contains(day) }.count, "\(CalendarDate(dayNumber: day).iso)")
            }
            #expect(counted.count == StudyDashboardController.days)
            var (admin, _) = try await portal.signedIn(.administrator)
            let dashboard = try await admin.get(SiteURL.studies.path).text
            #expect(dashboard.contains(#"data-figure="enrolled">10<"#) && dashboard.contains(#"data-figure="withdrawn">5<"#))
        }
    }

    @Test(arguments: TestEngines.all)
    func theKeptDashboardFollowsEveryChange(engine: Database.Engine) async throws {
        let clock = TestClock(StudyFixtures.local("2027-03-20", minute: 10 * 60))
        try await TestPortal.run(engine, clock: clock) { portal in
            let (she, _) = try await StudyFixtures.participant(portal, code: "NU-960", enrolledOn: CalendarDate(iso: "2027-03-10")!)
            var (admin, _) = try await portal.signedIn(.administrator)
            func dashboard() async throws -> String { try await admin.get(SiteURL.studies.path).text }
            func opensRow(_ day: String, _ opens: Int, _ openers: Int) -> String {
                #"<th class="table__header" scope="row">\#(day)</th><td class="table__cell table__cell--numeric">\#(opens)</td><td class="table__cell table__cell--numeric">\#(openers)</td>"#
            }
            let first = try await dashboard()
            #expect(first.contains(#"data-figure="enrolled">1<"#) && first.contains("0% (0 of 1)"))
            #expect(try await dashboard() == first, "nothing changed, the same page")

            // Enrolled by another server, straight in the database: the next page counts her.
            let otherID = try await portal.database.transaction { db in
                try await StudyRepository().enrol(
                    studyCode: "NU-961",
                    arm: nil,
                    email: nil,
                    enrolledOn: CalendarDate(iso: "2027-03-12")!,
                    passwordHash: "x",
                    now: portal.clock.now,
                    on: db
                )
            }
            var page = try await dashboard()
            #expect(page.contains(#"data-figure="enrolled">2<"#) && page.contains("0% (0 of 2)"))

            // An app open today.
            #expect(!page.contains(opensRow("20 Mar 2027", 1, 1)))
            #expect(try await she.send(.post, SiteURL.apiStudyOpens.path, json: [:]).status == .created)
            page = try await dashboard()
            #expect(page.contains(opensRow("20 Mar 2027", 1, 1)))

            // Withdrawn, then deleted.
            #expect(try await admin.post(SiteURL.studyParticipantWithdraw(otherID).path).status == .seeOther)
            page = try await dashboard()
            #expect(page.contains(#"data-figure="withdrawn">1<"#) && page.contains(#"data-figure="active">1<"#))
            #expect(try await admin.post(SiteURL.studyParticipantDelete(otherID).path).status == .seeOther)
            page = try await dashboard()
            #expect(page.contains(#"data-figure="enrolled">1<"#) && page.contains(#"data-figure="withdrawn">0<"#) && !page.contains("of 2)"))

            // The next day: yesterday's open is a closed day's, and today has none yet.
            portal.clock.advance(by: 86_400)
            (admin, _) = try await portal.signedIn(.administrator)
            page = try await dashboard()
            #expect(page.contains(opensRow("20 Mar 2027", 1, 1)) && page.contains(opensRow("21 Mar 2027", 0, 0)))
            #expect(page.contains("to 20 March 2027"))
        }
    }

    @Test(arguments: TestEngines.all)
    func theZipIsSentFromAFileThatIsGoneOnceSent(engine: Database.Engine) async throws {
        let clock = TestClock(StudyFixtures.local("2027-02-01", minute: 9 * 60))
        try await TestPortal.run(engine, clock: clock) { portal in
            let (she, _) = try await StudyFixtures.participant(portal, code: "NU-950", enrolledOn: CalendarDate(iso: "2026-11-01")!)
            #expect(try await she.send(.post, SiteURL.apiStudyFeedback.path, json: ["message": "a, \"b\"\nc"]).status == .created)
            var (admin, _) = try await portal.signedIn(.administrator)
            let zip = try await admin.get(SiteURL.studyExport(.all).path)
            #expect(zip.status == .ok && zip.headers[.contentLength] == String(zip.body.readableBytes))
            let archive = try Archive(data: Data(buffer: zip.body), accessMode: .read)
            var files: [String: Data] = [:]
            for export in StudyExportTables.csvFiles {
                let entry = try #require(archive[export.fileName])
                var data = Data()
                _ = try archive.extract(entry) { data.append($0) }
                files[export.fileName] = data
                let single = try await admin.get(SiteURL.studyExport(export).path)
                #expect(data == Data(buffer: single.body), "\(export.fileName) in the ZIP is the file alone")
            }
            // 92 closed days, two to-dos each.
            let outcomes = try StudyFixtures.rows(String(decoding: try #require(files["todo-outcomes.csv"]), as: UTF8.self))
            #expect(outcomes.count == 1 + 92 * 2)
            let feedback = try StudyFixtures.rows(String(decoding: try #require(files["feedback.csv"]), as: UTF8.self))
            #expect(feedback.last?[3] == "a, \"b\"\nc")
            let folder = "\(portal.portal.settings.dataDirectory)/study-exports"
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty, "nothing of the export is left on disk")
        }
    }
}
