import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The research analytics: the app's events, the aggregates kept beside them, the graphs' numbers against a
/// direct count, small counts withheld, and the de-identified export.
@Suite struct AnalyticsTests {
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// An instant written as New York's wall-clock time, the way a person on the program's clock would say it.
    static func newYork(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = newYork
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }

    /// Reads a CSV download back into rows with the project's CSV library's counterpart in Python's terms:
    /// quoted cells, CRLF rows.
    static func rows(_ csv: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var quoted = false
        var characters = Array(csv).makeIterator()
        while let character = characters.next() {
            if quoted {
                if character == "\"" { quoted = false } else { cell.append(character) }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                row.append(cell)
                cell = ""
            } else if character == "\r\n" || character == "\n" {
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
            } else {
                cell.append(character)
            }
        }
        return rows
    }

    static func member(_ portal: TestPortal, due: String) async throws -> (AppClient, Member) {
        let (client, body) = try await AppClient.registered(portal, ["due_date": due])
        let id = try #require(body["id"] as? Int)
        let member = try #require(try await portal.database.read { db in try await MemberRepository().find(id: Int64(id), on: db) })
        return (client, member)
    }

    @Test(arguments: TestEngines.all)
    func theAppsEventsAreCheckedAndABatchSentAgainIsCountedOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, member) = try await Self.member(portal, due: "2027-05-10")
            let now = portal.clock.now
            let batch: [String: Any] = [
                "events": [
                    ["client_id": "open-1", "kind": "app_opened", "occurred_at": Self.iso(now.addingTimeInterval(-3_600))],
                    [
                        "client_id": "view-1", "kind": "section_viewed", "section": "chat", "seconds": 95,
                        "occurred_at": Self.iso(now.addingTimeInterval(-3_500))
                    ]
                ]
            ]
            let first = try await app.send(.post, "/api/v1/events", json: batch)
            #expect(first.status == .ok)
            #expect(first.object["recorded"] as? Int == 2 && first.object["received"] as? Int == 2)
            let again = try await app.send(.post, "/api/v1/events", json: batch)
            #expect(again.object["recorded"] as? Int == 0, "a retried batch is counted once")
            let partly = try await app.send(
                .post,
                "/api/v1/events",
                json: [
                    "events": [
                        ["client_id": "open-2", "kind": "app_opened", "occurred_at": Self.iso(now.addingTimeInterval(-3_000))],
                        ["client_id": "open-1", "kind": "app_opened", "occurred_at": Self.iso(now.addingTimeInterval(-3_600))],
                        ["client_id": "open-2", "kind": "app_opened", "occurred_at": Self.iso(now.addingTimeInterval(-2_900))]
                    ]
                ]
            )
            #expect(
                partly.object["recorded"] as? Int == 1 && partly.object["received"] as? Int == 3,
                "of a batch partly sent before and holding one event twice, only the new event is recorded, once"
            )

            let wrong = try await app.send(
                .post,
                "/api/v1/events",
                json: [
                    "events": [
                        ["client_id": "ok", "kind": "app_opened", "occurred_at": Self.iso(now)],
                        ["client_id": "later", "kind": "app_opened", "occurred_at": Self.iso(now.addingTimeInterval(3_600))],
                        ["client_id": "old", "kind": "app_opened", "occurred_at": Self.iso(now.addingTimeInterval(-8 * 86_400))],
                        ["client_id": "where", "kind": "section_viewed", "section": "kitchen", "occurred_at": Self.iso(now)],
                        ["kind": "app_opened", "occurred_at": Self.iso(now)],
                        ["client_id": "what", "kind": "app_closed", "occurred_at": "yesterday"]
                    ]
                ]
            )
            #expect(wrong.status == .unprocessableContent)
            let fields = try #require((wrong.object["error"] as? [String: Any])?["fields"] as? [String: String])
            #expect(
                Set(fields.keys) == [
                    "events[1].occurred_at", "events[2].occurred_at", "events[3].section", "events[4].client_id",
                    "events[5].kind", "events[5].occurred_at"
                ]
            )
            #expect(fields["events[1].occurred_at"]?.contains("future") == true)
            #expect(fields["events[2].occurred_at"]?.contains("7 days") == true)
            let tooMany = try await app.send(
                .post,
                "/api/v1/events",
                json: [
                    "events": (0...100).map { index in
                        ["client_id": "e\(index)", "kind": "app_opened", "occurred_at": Self.iso(now)]
                    }
                ]
            )
            #expect(tooMany.status == .unprocessableContent)
            let empty = try await app.send(.post, "/api/v1/events", json: ["events": []])
            #expect(empty.status == .unprocessableContent)

            // Only the first good batch was recorded: nothing of a refused batch is kept.
            let recorded = try await portal.database.read { db in
                (
                    try await MemberEvents().events(memberID: member.id, kind: .appOpened, on: db),
                    try await MemberEvents().events(memberID: member.id, kind: .sectionViewed, on: db)
                )
            }
            #expect(recorded.0.map(\.clientID) == ["open-1", "open-2"] && recorded.1.count == 1)
            #expect(try #require(recorded.0.last).occurredAt < now.addingTimeInterval(-2_950), "the first of the two is kept")
            #expect(recorded.1.first?.label == "chat" && recorded.1.first?.number == 95 && recorded.1.first?.cohortID == member.cohort.id)
            let anonymous = try await AppClient(portal: portal).send(.post, "/api/v1/events", json: batch)
            #expect(anonymous.status == .unauthorized)
        }
    }

    /// Moods either side of midnight on the program's clock, across the end of October (a month boundary)
    /// and the end of daylight saving time in New York (1 November 2026).
    static let moods: [(String, Mood)] =
        (0..<6).map { _ in ("2026-10-31 23:30", .happy) }
        + (0..<7).map { _ in ("2026-11-01 00:30", .sad) }
        + [("2026-11-01 01:30", .sick), ("2026-11-02 09:00", .angry)]

    @Test(arguments: TestEngines.all)
    func eachGraphCountsWhatHappenedByDayWeekAndMonthOnTheProgramsClock(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var members: [Member] = []
            for _ in 0..<8 { members.append(try await Self.member(portal, due: "2027-05-10").1) }
            let clock = ProgramClock(timeZone: Self.newYork)
            try await portal.database.transaction { db in
                let events = Self.moods.enumerated().map { index, mood in
                    let member = members[index % members.count]
                    return MemberEvent(
                        kind: .moodRecorded,
                        memberID: member.id,
                        cohortID: member.cohort.id,
                        occurredAt: Self.newYork(mood.0),
                        label: mood.1.rawValue,
                        clientID: "m\(index)"
                    )
                }
                try await MemberEvents().record(events, clock: clock, on: db)
            }
            var (admin, _) = try await portal.signedIn(.administrator)
            let range = "range=custom&from=2026-10-25&to=2026-11-07&cohort=\(members[0].cohort.id)"

            // A direct count over the same events, on New York's calendar.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = Self.newYork
            calendar.firstWeekday = 2
            func direct(_ component: (Date) -> String) -> [String: Int] {
                Dictionary(Self.moods.map { (component(Self.newYork($0.0)), 1) }, uniquingKeysWith: +)
            }
            let byDay = direct {
                let parts = calendar.dateComponents([.day, .month], from: $0); return "\(parts.day!)/\(parts.month!)"
            }
            #expect(byDay == ["31/10": 6, "1/11": 8, "2/11": 1])

            let days = Self.rows(try await admin.get("/analytics/download?graph=moods&\(range)&by=day").text)
            #expect(days.first?.first == "Day")
            #expect(days.count == 1 + 14)
            func moodsOn(_ label: String, _ rows: [[String]]) -> [String] { rows.first { $0.first == label }.map { Array($0.dropFirst()) } ?? [] }
            // Columns: excited, happy, love, indifferent, sad, angry, sick, overwhelmed.
            // Every count rounded down to a multiple of 5, and those from 0 to 4 withheld (`Disclosure`).
            #expect(
                moodsOn("31 Oct 2026", days) == [
                    "fewer than 5", "5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5"
                ]
            )
            #expect(
                moodsOn("1 Nov 2026", days) == [
                    "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "5", "fewer than 5", "fewer than 5", "fewer than 5"
                ]
            )
            #expect(
                moodsOn("2 Nov 2026", days) == [
                    "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5"
                ]
            )

            let weeks = Self.rows(try await admin.get("/analytics/download?graph=moods&\(range)&by=week").text)
            // 26 October to 1 November is one week (Monday to Sunday), whatever the clocks did.
            #expect(
                moodsOn("Week of 26 Oct 2026", weeks) == [
                    "fewer than 5", "5", "fewer than 5", "fewer than 5", "5", "fewer than 5", "fewer than 5", "fewer than 5"
                ]
            )
            #expect(
                moodsOn("Week of 2 Nov 2026", weeks) == [
                    "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5"
                ]
            )

            let months = Self.rows(try await admin.get("/analytics/download?graph=moods&\(range)&by=month").text)
            #expect(
                moodsOn("Oct 2026", months) == [
                    "fewer than 5", "5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5"
                ]
            )
            #expect(
                moodsOn("Nov 2026", months) == [
                    "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "5", "fewer than 5", "fewer than 5", "fewer than 5"
                ]
            )
            let negative = Self.rows(try await admin.get("/analytics/download?graph=negative-moods&\(range)&by=month").text)
            #expect(moodsOn("Oct 2026", negative) == ["fewer than 5"], "no negative mood: fewer than 5 of them")
            #expect(moodsOn("Nov 2026", negative) == ["100%"], "9 of 9, each shown as 5")

            // The page shows the same words as the download, and withholds the small counts in its drawing too.
            let page = try await admin.get("/analytics/moods?\(range)&by=day").text
            #expect(page.contains("<title>1 Nov 2026, Sad (negative): 5</title>"))
            #expect(page.contains("<title>1 Nov 2026, Sick (negative): fewer than 5</title>") == false, "a withheld count draws no bar")
            #expect(page.contains("fewer than 5"))
        }
    }

    @Test(arguments: TestEngines.all)
    func activeMembersCountEachMemberOncePerDayWeekOrMonthWholeOrCutByTheRange(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var members: [Member] = []
            for _ in 0..<7 { members.append(try await Self.member(portal, due: "2027-05-10").1) }
            let clock = ProgramClock(timeZone: Self.newYork)
            // Who opened the app when (New York's time): all seven on both sides of 1 October and twice in mid-October's
            // week; six on 20 October and at 00:30 on Sunday 1 November (still the week of 26 October); five on 2 November.
            var opened: [(String, Range<Int>)] = [
                ("2026-09-30 10:00", 0..<7), ("2026-10-01 10:00", 0..<7), ("2026-10-15 10:00", 0..<7), ("2026-10-16 10:00", 0..<7)
            ]
            opened += [("2026-10-20 10:00", 0..<6), ("2026-11-01 00:30", 0..<6), ("2026-11-02 10:00", 0..<5)]
            // And the year before: three on 10 March 2025, two at 23:30 on New Year's Eve, one half an hour later, in 2026.
            opened += [("2025-03-10 10:00", 0..<3), ("2025-12-31 23:30", 1..<3), ("2026-01-01 00:30", 2..<3)]
            try await portal.database.transaction { db in
                // One batch per time, as the app sends them, so later batches find their weeks and months already counted.
                for (index, (time, who)) in opened.enumerated() {
                    try await MemberEvents().record(
                        who.map { members[$0] }.map { member in
                            MemberEvent(
                                kind: .appOpened,
                                memberID: member.id,
                                cohortID: member.cohort.id,
                                occurredAt: Self.newYork(time),
                                clientID: "open-\(index)"
                            )
                        },
                        clock: clock,
                        on: db
                    )
                }
            }
            var (admin, _) = try await portal.signedIn(.administrator)
            // From Monday 28 September to Wednesday 4 November: September and November cut, October whole.
            let range = "range=custom&from=2026-09-28&to=2026-11-04&cohort=\(members[0].cohort.id)"
            func active(_ granularity: String) async throws -> [String: String] {
                let rows = Self.rows(try await admin.get("/analytics/download?graph=active-members&\(range)&by=\(granularity)").text)
                return Dictionary(rows.dropFirst().map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
            }
            // A direct count: the distinct members of each bucket in the range, from the list above.
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = Self.newYork
            calendar.firstWeekday = 2
            func direct(_ bucket: (Date) -> String) -> [String: String] {
                var members: [String: Set<Int>] = [:]
                for (time, who) in opened where ("2026-09-28"..."2026-11-04").contains(String(time.prefix(10))) {
                    members[bucket(Self.newYork(time)), default: []].formUnion(who)
                }
                return members.mapValues { Disclosure.count(Int64($0.count)).text }
            }
            let months = try await active("month")
            #expect(months == ["Sep 2026": "5", "Oct 2026": "5", "Nov 2026": "5"])
            #expect(
                months
                    == direct {
                        let parts = calendar.dateComponents([.year, .month], from: $0);
                        return "\(CalendarDate.monthNames[parts.month! - 1].prefix(3)) \(parts.year!)"
                    }
            )
            let weeks = try await active("week").filter { $0.value != "fewer than 5" }
            #expect(
                weeks
                    == direct {
                        AnalyticsBuckets.short(
                            AnalyticsDay.firstDay(ofWeek: AnalyticsDay(ProgramClock(timeZone: Self.newYork).date(of: $0)).week).date
                        )
                    }.reduce(into: [:]) { $0["Week of " + $1.key] = $1.value }
            )
            #expect(
                weeks == [
                    "Week of 28 Sep 2026": "5", "Week of 12 Oct 2026": "5", "Week of 19 Oct 2026": "5", "Week of 26 Oct 2026": "5",
                    "Week of 2 Nov 2026": "5"
                ]
            )
            let days = try await active("day").filter { $0.value != "fewer than 5" }
            #expect(days.count == 7 && days["1 Nov 2026"] == "5" && days["30 Sep 2026"] == "5")

            // Opens per member over the period, summed over September's days, October and November's days: five opened
            // seven times, one six, one four.
            let opens = Self.rows(try await admin.get("/analytics/download?graph=opens-per-member&\(range)").text)
            #expect(opens.first { $0.first == "4 to 7 times" } == ["4 to 7 times", "5"])
            #expect(opens.first { $0.first == "8 to 14 times" } == ["8 to 14 times", "fewer than 5"])

            // Opens per member and members active over periods that cut months and years in different ways, against a
            // direct count: 28 Sep to 4 Nov (nothing recorded in September before the period); 1 Oct to 1 Nov (2 November
            // outside); 2 to 20 Oct (one month cut on both sides); 14 Oct to 15 Nov; 1 to 30 Nov (a whole month);
            // 1 to 17 Nov (the members' sign-ups, 18 November, outside); New Year's Eve and New Year's Day alone; the
            // whole of 2025 and 2026; from before anything was recorded to the last day recorded ("All time"), and to a
            // day after it; from 11 March 2025 (cutting 2025 inside what was recorded) to the end of 2026. Each both
            // with the days recorded known (reaching past them: whole years, months and weeks where the period
            // ends on or past them) and without.
            let recorded = try #require(try await portal.database.read { db in try await AnalyticsRepository().recordedDays(on: db) })
            #expect(recorded.lowerBound.date.iso == "2025-03-10" && recorded.upperBound.date.iso == "2026-11-18")
            let bands = AnalyticsReports.opensBands.map(\.range)
            let periods = [
                ("2026-09-28", "2026-11-04"), ("2026-10-01", "2026-11-01"), ("2026-10-02", "2026-10-20"),
                ("2026-10-14", "2026-11-15"), ("2026-11-01", "2026-11-30"), ("2026-11-01", "2026-11-17"),
                ("2025-12-31", "2025-12-31"), ("2026-01-01", "2026-01-01"), ("2025-01-01", "2026-12-31"),
                ("2025-03-10", "2026-11-18"), ("2024-06-01", "2026-11-20"), ("2025-03-11", "2026-12-31")
            ]
            for repository in [AnalyticsRepository(), AnalyticsRepository(recorded: recorded)] {
                for (from, to) in periods {
                    let period = AnalyticsDay(try #require(CalendarDate(iso: from)))...AnalyticsDay(try #require(CalendarDate(iso: to)))
                    var opensOf: [Int: Int64] = [:]
                    for (time, who) in opened where (from...to).contains(String(time.prefix(10))) {
                        for member in who { opensOf[member, default: 0] += 1 }
                    }
                    // Each member also signed up (through the API, on the test's clock): active that day, with no open.
                    if (from...to).contains(clock.date(of: portal.clock.now).iso) {
                        for member in members.indices where opensOf[member] == nil { opensOf[member] = 0 }
                    }
                    let expected = bands.map { band in Int64(opensOf.values.filter { band.contains($0) }.count) }
                    let (perBand, active) = try await portal.database.read { db in
                        (
                            try await repository.opensPerMember(in: period, bands: bands, cohortIDs: [members[0].cohort.id], on: db),
                            try await repository.activeMemberCount(in: period, on: db)
                        )
                    }
                    #expect(perBand == expected, "\(from) to \(to), recorded days known: \(repository.recorded != nil)")
                    #expect(active == opensOf.count, "\(from) to \(to), recorded days known: \(repository.recorded != nil)")
                }
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func thePeriodBeforeAndOtherCohortsAreDrawnOnTheSameAxes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // Five members in each cohort: a cohort of fewer would not be offered on its own.
            var mays: [Member] = [], junes: [Member] = []
            for _ in 0..<5 { mays.append(try await Self.member(portal, due: "2027-05-10").1) }
            for _ in 0..<5 { junes.append(try await Self.member(portal, due: "2027-06-10").1) }
            let may = mays[0], june = junes[0]
            let clock = ProgramClock(timeZone: Self.newYork)
            let today = clock.date(of: portal.clock.now)
            try await portal.database.transaction { db in
                var events: [MemberEvent] = []
                // Visits to chat on the last 7 days' first day (11) and the 7 days before's first day (13); June's to the desk before.
                for index in 0..<13 {
                    let member = mays[index % 5], other = junes[index % 5]
                    let now = clock.instant(on: today.adding(days: -6), atMinute: 600 + index)
                    let before = clock.instant(on: today.adding(days: -13), atMinute: 600 + index)
                    if index < 11 {
                        events.append(
                            MemberEvent(
                                kind: .sectionViewed,
                                memberID: member.id,
                                cohortID: may.cohort.id,
                                occurredAt: now,
                                number: 60,
                                label: "chat",
                                clientID: "n\(index)"
                            )
                        )
                    }
                    events.append(
                        MemberEvent(
                            kind: .sectionViewed,
                            memberID: member.id,
                            cohortID: may.cohort.id,
                            occurredAt: before,
                            number: 60,
                            label: "chat",
                            clientID: "b\(index)"
                        )
                    )
                    if index < 6 {
                        events.append(
                            MemberEvent(
                                kind: .sectionViewed,
                                memberID: other.id,
                                cohortID: june.cohort.id,
                                occurredAt: before,
                                number: 30,
                                label: "desk",
                                clientID: "j\(index)"
                            )
                        )
                    }
                }
                events.append(
                    MemberEvent(
                        kind: .sectionViewed,
                        memberID: may.id,
                        cohortID: may.cohort.id,
                        occurredAt: clock.instant(on: today, atMinute: 60),
                        number: 60,
                        label: "chat",
                        clientID: "x"
                    )
                )
                try await MemberEvents().record(events, clock: clock, on: db)
            }
            var (admin, _) = try await portal.signedIn(.administrator)
            let previous = Self.rows(
                try await admin.get("/analytics/download?graph=section-visits&range=7d&cohort=\(may.cohort.id)&compare=previous").text
            )
            #expect(previous.first == ["Section", "This period", "The period before"])
            // 12 and 13, each shown rounded down to a multiple of 5.
            #expect(previous.first { $0.first == "Chat" } == ["Chat", "10", "10"])
            #expect(
                previous.first { $0.first == "Information desk" } == ["Information desk", "fewer than 5", "fewer than 5"],
                "June's visits are not May's"
            )

            let cohorts = Self.rows(
                try await admin.get(
                    "/analytics/download?graph=section-visits&range=30d&cohort=\(may.cohort.id)&cohort=\(june.cohort.id)&compare=cohorts"
                ).text
            )
            #expect(cohorts.first == ["Section", may.cohort.name, june.cohort.name])
            #expect(cohorts.first { $0.first == "Chat" } == ["Chat", "25", "fewer than 5"])
            #expect(cohorts.first { $0.first == "Information desk" } == ["Information desk", "fewer than 5", "5"])
            let minutes = Self.rows(
                try await admin.get(
                    "/analytics/download?graph=section-time&range=30d&cohort=\(may.cohort.id)&cohort=\(june.cohort.id)&compare=cohorts"
                ).text
            )
            #expect(minutes.first { $0.first == "Information desk" } == ["Information desk", "fewer than 5", "3 min"])

            // Comparing cohorts with one chosen cannot be drawn: the page says so and draws the one.
            let one = try await admin.get("/analytics/sections?range=30d&cohort=\(may.cohort.id)&compare=cohorts").text
            #expect(one.contains("Choose two or more cohorts to compare them"))
            let nonsense = try await admin.get("/analytics/sections?range=custom&from=2026-13-01&to=yesterday&by=fortnight").text
            #expect(nonsense.contains("Enter the first day as a date") && nonsense.contains("Choose day, week or month"))
        }
    }

    /// Members' commenting activity: each question asked and reply written on the information desk is an
    /// event (its kind only, never the words), and the sections page counts them, rounded as every figure is.
    @Test(arguments: TestEngines.all)
    func questionsAndRepliesOnTheDeskAreCountedAndNotWhatTheySaid(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var members: [AppClient] = []
            for _ in 0..<6 { members.append(try await Self.member(portal, due: "2027-05-10").0) }
            var threadID = 0
            for (index, app) in members.enumerated() {
                let asked = try await app.send(
                    .post,
                    SiteURL.apiThreads.path,
                    json: ["title": "Sleepless in week \(30 + index)?", "body": "Private words \(index)"]
                )
                #expect(asked.status == .created, "\(asked.text)")
                threadID = asked.object["id"] as? Int ?? threadID
            }
            for app in members.prefix(5) {
                let replied = try await app.send(.post, SiteURL.apiThreadReplies(Int64(threadID)).path, json: ["body": "Private reply"])
                #expect(replied.status == .created, "\(replied.text)")
            }
            var (professional, _) = try await portal.signedIn(.medicalProfessional)
            _ = try await professional.get(SiteURL.deskThread(Int64(threadID)).path)
            #expect(
                try await professional.post(SiteURL.deskThreadReplies(Int64(threadID)).path, form: [("body", "A professional's answer")]).status
                    == .seeOther
            )

            let stored = try await portal.database.read { db in
                try await db.raw("SELECT label, number FROM events WHERE kind = \(bind: MemberEvent.Kind.deskPosted.rawValue)").all()
            }
            let labels = try stored.map { try $0.decode(column: "label", as: String.self) }
            #expect(
                labels.filter { $0 == "question" }.count == 6 && labels.filter { $0 == "reply" }.count == 5,
                "the professional's reply is not a member's"
            )

            var (admin, _) = try await portal.signedIn(.administrator)
            let rows = Self.rows(try await admin.get("/analytics/download?graph=desk-writing&range=7d").text)
            #expect(rows.first?.first == "What they wrote", "\(rows)")
            #expect(rows.first { $0.first == "Questions asked" }?.last == "5", "6, rounded down to a multiple of 5: \(rows)")
            #expect(rows.first { $0.first == "Replies written" }?.last == "5", "\(rows)")
            let page = try await admin.get("/analytics/sections?range=7d").text
            #expect(page.contains("Questions and replies members wrote on the information desk") && !page.contains("Private"))
        }
    }

    @Test(arguments: TestEngines.all)
    func surveyResultsCountTheResponsesOfThePeriodAndCohortsWithScalesAsDivergingBars(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let fixture = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 14))
            var may: [AppClient] = []
            for _ in 0..<7 { may.append(try await Self.member(portal, due: "2027-05-10").0) }
            let (june, juneMember) = try await Self.member(portal, due: "2027-06-10")
            // Four more in June's cohort, who do not answer: a cohort of fewer than 5 would be merged with May's.
            for _ in 0..<4 { _ = try await Self.member(portal, due: "2027-06-10") }
            let mayCohort = try #require(
                try await portal.database.read { db in try await MemberRepository().cohorts(on: db) }
                    .first { $0.id != juneMember.cohort.id }
            )
            // May: six answer 4 on the scale, one answers 1; choices 2, 2, 2, 2, 2, 1, 1. June: one response.
            for (index, app) in may.enumerated() {
                var answers = fixture.answers(text: "<b>private</b>", choice: index < 5 ? 2 : 1)
                answers[2]["scale"] = index == 6 ? 1 : 4
                let sent = try await app.send(
                    .post,
                    SiteURL.apiSurveyResponses(fixture.id).path,
                    json: ["client_id": "r\(index)", "answers": answers]
                )
                #expect(sent.status == .created, "\(sent.text)")
            }
            #expect(
                try await june.send(.post, SiteURL.apiSurveyResponses(fixture.id).path, json: ["client_id": "j", "answers": fixture.answers()]).status
                    == .created
            )

            // A direct count of the stored answers, May's cohort only.
            let direct = try await portal.database.read { db in
                try await db.raw(
                    """
                    SELECT a.choice, COUNT(*) AS count FROM survey_answers a JOIN survey_responses r ON r.id = a.response_id
                    WHERE a.question_id = \(bind: fixture.questionIDs[2]) AND r.cohort_id = \(bind: mayCohort.id) GROUP BY a.choice
                    """
                ).all().map { (try $0.decode(column: "choice", as: Int.self), try $0.decode(column: "count", as: Int.self)) }
            }
            #expect(Dictionary(uniqueKeysWithValues: direct) == [4: 6, 1: 1])

            var admin = fixture.admin
            let choices = "range=7d&cohort=\(mayCohort.id)&survey=\(fixture.id)"
            let scale = Self.rows(
                try await admin.get("/analytics/download?graph=survey-\(fixture.id)-question-\(fixture.questionIDs[2])&\(choices)").text
            )
            #expect(scale.first == ["Members", "1: Not at all", "2", "3", "4", "5: Very", "Answers"])
            // Rounded and withheld; a row with a count withheld shows no percentages (they would be of what is not shown).
            #expect(scale.dropFirst().first == [mayCohort.name, "fewer than 5", "fewer than 5", "fewer than 5", "5", "fewer than 5", "5"])
            let single = Self.rows(
                try await admin.get("/analytics/download?graph=survey-\(fixture.id)-question-\(fixture.questionIDs[0])&\(choices)").text
            )
            #expect(single.dropFirst().map { $0 } == [["Every week", "fewer than 5"], ["Most weeks", "5"], ["Not yet", "fewer than 5"]])

            // Against the other cohort: June's one response is withheld whole, in the table and the drawing.
            let both = "range=7d&cohort=\(mayCohort.id)&cohort=\(juneMember.cohort.id)&compare=cohorts&survey=\(fixture.id)"
            let compared = Self.rows(
                try await admin.get("/analytics/download?graph=survey-\(fixture.id)-question-\(fixture.questionIDs[2])&\(both)").text
            )
            #expect(
                compared.last == [
                    juneMember.cohort.name, "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5"
                ]
            )
            let page = try await admin.get("/analytics/surveys?\(both)")
            #expect(page.status == .ok)
            #expect(page.text.contains("fewer than 5 answers") && page.text.contains("How supported do you feel?"))
            #expect(!page.text.contains("private") && !page.text.contains("Anything to change?"), "free text is never drawn")
            #expect(page.text.contains("<option value=\"\(fixture.id)\" selected>"))

            // Responses from before the period are not counted.
            let later = "range=custom&from=\(today.adding(days: 1).iso)&to=\(today.adding(days: 3).iso)&cohort=\(mayCohort.id)&survey=\(fixture.id)"
            let none = Self.rows(
                try await admin.get("/analytics/download?graph=survey-\(fixture.id)-question-\(fixture.questionIDs[2])&\(later)").text
            )
            #expect(none.dropFirst().first?.last == "fewer than 5")
        }
    }

    @Test(arguments: TestEngines.all)
    func moduleScoresAndCompletionsEqualADirectCountOfTheEvents(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var members: [Member] = []
            for _ in 0..<6 { members.append(try await Self.member(portal, due: "2027-05-10").1) }
            let clock = ProgramClock(timeZone: Self.newYork)
            let (breastfeeding, sleep) = try await portal.database.transaction { db in
                let content = LearningContentRepository()
                return (
                    try await content.save(LearningContentTests.module("Breastfeeding basics", .all), now: portal.clock.now, on: db).id,
                    try await content.save(LearningContentTests.module("Safe sleep", .all), now: portal.clock.now, on: db).id
                )
            }
            // Breastfeeding: 8 quizzes on 31 October and 1 November (New York), scores across every band; safe sleep: 3.
            let scores: [(String, Int64, Int64)] = [
                ("2026-10-31 23:30", breastfeeding, 40), ("2026-10-31 23:40", breastfeeding, 60), ("2026-11-01 00:30", breastfeeding, 80),
                ("2026-11-01 00:40", breastfeeding, 80), ("2026-11-01 08:00", breastfeeding, 90), ("2026-11-01 09:00", breastfeeding, 100),
                ("2026-11-01 10:00", breastfeeding, 100), ("2026-11-01 11:00", breastfeeding, 98),
                ("2026-11-01 12:00", sleep, 50), ("2026-11-01 13:00", sleep, 70), ("2026-11-03 13:00", sleep, 100)
            ]
            try await portal.database.transaction { db in
                let events = scores.enumerated().map { index, score in
                    let member = members[index % members.count]
                    return MemberEvent(
                        kind: .learningModuleCompleted,
                        memberID: member.id,
                        cohortID: member.cohort.id,
                        occurredAt: Self.newYork(score.0),
                        number: score.2,
                        label: "module-\(score.1)",
                        clientID: "q\(index)"
                    )
                }
                try await MemberEvents().record(events, clock: clock, on: db)
            }
            var (admin, _) = try await portal.signedIn(.administrator)
            let range = "range=custom&from=2026-10-25&to=2026-11-07"

            // A direct count over the events.
            let direct = try await portal.database.read { db in
                try await db.raw(
                    """
                    SELECT label, COUNT(*) AS count, CAST(SUM(number) AS BIGINT) AS total FROM events
                    WHERE kind = \(bind: MemberEvent.Kind.learningModuleCompleted.rawValue) GROUP BY label
                    """
                ).all().map {
                    (
                        try $0.decode(column: "label", as: String.self), try $0.decode(column: "count", as: Int.self),
                        try $0.decode(column: "total", as: Int.self)
                    )
                }
            }
            let breastfeedingDirect = try #require(direct.first { $0.0 == "module-\(breastfeeding)" })
            #expect(breastfeedingDirect.1 == 8 && breastfeedingDirect.2 == 648)

            let completions = Self.rows(try await admin.get("/analytics/download?graph=module-completions&\(range)").text)
            #expect(completions == [["Module", "All members"], ["Breastfeeding basics", "5"], ["Safe sleep", "fewer than 5"]])
            let averages = Self.rows(try await admin.get("/analytics/download?graph=module-average-scores&\(range)").text)
            #expect(averages == [["Module", "All members"], ["Breastfeeding basics", "81.0 out of 100"], ["Safe sleep", "fewer than 5"]])
            let spread = Self.rows(try await admin.get("/analytics/download?graph=module-score-spread&\(range)").text)
            #expect(spread.first == ["Module", "Under 50", "50 to 69", "70 to 89", "90 to 100", "Answers"])
            #expect(spread.dropFirst().first == ["Breastfeeding basics", "fewer than 5", "fewer than 5", "fewer than 5", "fewer than 5", "5"])

            // The period before the quizzes counts none of them; a day's range counts only that day's.
            let day = Self.rows(try await admin.get("/analytics/download?graph=module-completions&range=custom&from=2026-11-01&to=2026-11-01").text)
            #expect(day == [["Module", "All members"], ["Breastfeeding basics", "5"], ["Safe sleep", "fewer than 5"]])
            let page = try await admin.get("/analytics/learning?range=custom&from=2026-10-01&to=2026-10-07").text
            #expect(page.contains("No learning module was completed by these members in this period."))
            let drawn = try await admin.get("/analytics/learning?\(range)").text
            #expect(drawn.contains("Breastfeeding basics") && drawn.contains("Spread of quiz scores"))
        }
    }

    /// The retention graph against a direct count from `events` and the members' registrations: of the members
    /// who joined in the period, those active N weeks after the week they joined, over those whose registration
    /// week has reached week N.
    @Test(arguments: TestEngines.all)
    func retentionEqualsADirectCountOfWhoWasActiveEachWeekAfterJoining(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let clock = portal.portal.programSettings.current.clock
            let day: TimeInterval = 86_400
            let first = portal.clock.now
            // Eight join now, six a week later (five in May's cohort, one in June's), then two weeks pass.
            var early: [Member] = [], late: [Member] = []
            for _ in 0..<8 { early.append(try await Self.member(portal, due: "2027-05-10").1) }
            portal.clock.advance(by: 7 * day)
            for index in 0..<6 { late.append(try await Self.member(portal, due: index < 5 ? "2027-05-10" : "2027-06-10").1) }
            portal.clock.advance(by: 14 * day)
            // Who opened the app when, as days after the first registrations.
            var opened: [(Member, TimeInterval)] = early.map { ($0, 0.1) } + early.prefix(7).map { ($0, 7.2) } + early.prefix(6).map { ($0, 14.5) }
            opened +=
                early.prefix(2).map { ($0, 20.5) } + late.map { ($0, 7.3) } + late.prefix(5).map { ($0, 15) } + late.suffix(1).map { ($0, 20.9) }
            let recorded = try await portal.database.transaction { db in
                try await MemberEvents().record(
                    opened.enumerated().map { index, open in
                        MemberEvent(
                            kind: .appOpened,
                            memberID: open.0.id,
                            cohortID: open.0.cohort.id,
                            occurredAt: first.addingTimeInterval(open.1 * day),
                            clientID: "r\(index)"
                        )
                    },
                    clock: clock,
                    on: db
                )
            }
            #expect(recorded == opened.count)
            var (admin, _) = try await portal.signedIn(.administrator)
            let from = clock.date(of: first), to = clock.date(of: portal.clock.now)
            let today = AnalyticsDay(to).week
            // The direct count: every event's week against her registration week, on the program's clock.
            let (events, joinedAt) = try await portal.database.read { db -> ([(Int64, Int64)], [Int64: Int64]) in
                let events = try await db.raw("SELECT member_id, occurred_at FROM events WHERE member_id IS NOT NULL").all()
                    .map { (try $0.decode(column: "member_id", as: Int64.self), try $0.decode(column: "occurred_at", as: Int64.self)) }
                let members = try await db.raw("SELECT id, created_at FROM members").all()
                    .map { (try $0.decode(column: "id", as: Int64.self), try $0.decode(column: "created_at", as: Int64.self)) }
                return (events, Dictionary(uniqueKeysWithValues: members))
            }
            func week(_ milliseconds: Int64) -> Int { AnalyticsDay(clock.date(of: Date(millisecondsSince1970: milliseconds))).week }
            func expected(_ members: [Member]) -> [String] {
                let ids = Set(members.map(\.id))
                var active: [Int: Set<Int64>] = [:]
                for (member, at) in events where ids.contains(member) {
                    let after = week(at) - week(joinedAt[member]!)
                    if (0...AnalyticsAggregates.retentionWeeks).contains(after) { active[after, default: []].insert(member) }
                }
                return (0...AnalyticsAggregates.retentionWeeks).map { after in
                    let joined = ids.filter { week(joinedAt[$0]!) + after <= today }.count
                    return joined == 0 ? "not yet" : Disclosure.share(Int64(active[after]?.count ?? 0), of: Int64(joined)).text
                }
            }
            func drawn(from: CalendarDate, _ choices: String = "") async throws -> [String] {
                let rows = Self.rows(
                    try await admin.get("/analytics/download?graph=retention&range=custom&from=\(from.iso)&to=\(to.iso)\(choices)").text
                )
                return rows.dropFirst().map { $0[1] }
            }
            let everyone = try await drawn(from: from)
            #expect(everyone == expected(early + late))
            // 14 joined, 12 came back the week after, 7 two weeks after; only the first 8 have reached week 3 (2 came back).
            #expect(
                everyone.count == 13 && everyone.prefix(3).allSatisfy { $0.hasSuffix("%") } && everyone[3] == Disclosure.fewerThanFive
                    && everyone[4] == "not yet"
            )
            // June's one member is too few to stand alone: her due month is merged with May's, and chosen with it.
            #expect(try await drawn(from: from, "&cohort=\(early[0].cohort.id)") == expected(early + late))
            // From the later six's day: the first eight did not join in the period and are not counted.
            #expect(try await drawn(from: from.adding(days: 7)) == expected(late))
        }
    }

    @Test(arguments: TestEngines.all)
    func theAggregatesEqualAFullRecountOfTheEvents(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (app, may) = try await Self.member(portal, due: "2027-05-10")
            let (_, june) = try await Self.member(portal, due: "2027-06-10")
            let clock = ProgramClock(timeZone: Self.newYork)
            try await portal.database.transaction { db in
                var events: [MemberEvent] = []
                for (index, time) in [
                    "2026-03-07 23:59", "2026-03-08 00:00", "2026-03-08 03:30", "2026-10-31 23:59", "2026-11-01 01:30", "2026-11-01 01:59"
                ].enumerated() {
                    for member in [may, june] {
                        events.append(
                            MemberEvent(
                                kind: .appOpened,
                                memberID: member.id,
                                cohortID: member.cohort.id,
                                occurredAt: Self.newYork(time),
                                clientID: "o\(index)"
                            )
                        )
                        events.append(
                            MemberEvent(
                                kind: .sectionViewed,
                                memberID: member.id,
                                cohortID: member.cohort.id,
                                occurredAt: Self.newYork(time),
                                number: Int64(10 * index),
                                label: "learning",
                                clientID: "s\(index)"
                            )
                        )
                    }
                }
                try await MemberEvents().record(events, clock: clock, on: db)
                try await MemberEvents().record(events, clock: clock, on: db)
                // A later batch: more in weeks and months already counted (more opens for known buckets), several in
                // one member-day, a new day in a known week, quiz scores in every band and one without a score.
                var later: [MemberEvent] = []
                for (index, (time, score)) in [
                    ("2026-11-01 09:00", 45), ("2026-11-01 09:05", 55), ("2026-11-02 10:00", 75), ("2026-11-03 10:00", 95), ("2026-11-30 23:59", 100),
                    ("2026-12-01 00:00", -1)
                ].enumerated() {
                    for member in [may, june] {
                        later.append(
                            MemberEvent(
                                kind: .appOpened,
                                memberID: member.id,
                                cohortID: member.cohort.id,
                                occurredAt: Self.newYork(time),
                                clientID: "later-o\(index)"
                            )
                        )
                        later.append(
                            MemberEvent(
                                kind: .learningModuleCompleted,
                                memberID: member.id,
                                cohortID: member.cohort.id,
                                occurredAt: Self.newYork(time),
                                number: score < 0 ? nil : Int64(score),
                                label: "module-1",
                                clientID: "later-q\(index)"
                            )
                        )
                    }
                }
                try await MemberEvents().record(Array(later.prefix(4)), clock: clock, on: db)
                try await MemberEvents().record(later, clock: clock, on: db)
            }
            _ = try await app.send(.post, "/api/v1/moods", json: ["mood": "happy", "client_id": "mood-1"])
            _ = try await app.send(
                .post,
                "/api/v1/events",
                json: ["events": [["client_id": "api-1", "kind": "app_opened", "occurred_at": Self.iso(portal.clock.now)]]]
            )
            let (stored, recount) = try await portal.database.read { db in
                (try await AnalyticsAggregates().stored(on: db), try await AnalyticsAggregates().recount(clock: clock, on: db))
            }
            #expect(stored == recount)
            for level in AnalyticsLevel.allCases {
                #expect(
                    stored.counts.keys.contains { $0.level == level } && stored.members.keys.contains { $0.level == level }
                        && stored.active.keys.contains { $0.level == level }
                )
                let opens = stored.members.filter { $0.key.level == level && $0.key.memberID == may.id }.values.map(\.opens).reduce(0, +)
                #expect(opens == 13, "six opens sent twice, six later and one through the API count thirteen at every level")
            }
            #expect(stored.memberDays.count >= 10)
            // Her weeks: 2 March, 7 March (Saturday) and 8 March (Sunday) in one week; 31 October to 1 November in one, then 2 and 3
            // November, 30 November and 1 December, and today's.
            let mayWeeks = stored.members.filter { $0.key.level == .week && $0.key.memberID == may.id }.count
            let mayMonths = stored.members.filter { $0.key.level == .month && $0.key.memberID == may.id }.map(\.key.number)
            #expect(Set(mayMonths).isSuperset(of: [2026 * 12 + 2, 2026 * 12 + 9, 2026 * 12 + 10, 2026 * 12 + 11]))
            #expect(mayWeeks == Set(stored.memberDays.filter { $0.key.memberID == may.id }.map { AnalyticsDay($0.key.number).week }).count)
            let november = stored.counts.filter {
                $0.key.level == .month && $0.key.number == 2026 * 12 + 10 && $0.key.kind == "learning.module_completed"
            }
            .values.reduce(into: AnalyticsAggregates.Tally()) { sum, tally in
                sum.events += tally.events; sum.scored += tally.scored; sum.total += tally.total
                sum.bands = zip(sum.bands, tally.bands).map(+)
            }
            #expect(
                november.events == 10 && november.scored == 10 && november.bands == [2, 2, 2, 4] && november.total == 2 * (45 + 55 + 75 + 95 + 100)
            )
            #expect(stored.active[AnalyticsAggregates.Active(level: .month, number: 2026 * 12 + 10, cohortID: may.cohort.id)] == 1)
            // A different clock counts the same events into other days; a rebuild on it equals its recount.
            let london = ProgramClock(timeZone: TimeZone(identifier: "Europe/London")!)
            try await portal.database.transaction { db in try await AnalyticsAggregates().rebuild(clock: london, on: db) }
            let (rebuilt, onLondon, onNewYork) = try await portal.database.read { db in
                (
                    try await AnalyticsAggregates().stored(on: db), try await AnalyticsAggregates().recount(clock: london, on: db),
                    try await AnalyticsAggregates().recount(clock: clock, on: db)
                )
            }
            #expect(rebuilt == onLondon)
            #expect(rebuilt != onNewYork)
        }
    }

    @Test(arguments: TestEngines.all)
    func theExportReplacesEveryMemberWithAnIdOfItsOwnAndIsAudited(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // Five in May's cohort and one in June's, which is too small to be a cohort of its own in the export.
            var apps: [AppClient] = []
            var mays: [Member] = []
            for _ in 0..<5 {
                let (app, member) = try await Self.member(portal, due: "2027-05-10")
                apps.append(app)
                mays.append(member)
            }
            let (june, _) = try await Self.member(portal, due: "2027-06-10")
            for (index, client) in (apps + [june]).enumerated() {
                _ = try await client.send(.post, "/api/v1/moods", json: ["mood": index == 0 ? "angry" : "sad", "client_id": "mood-1"])
                _ = try await client.send(
                    .post,
                    "/api/v1/events",
                    json: [
                        "events": [
                            ["client_id": "o1", "kind": "app_opened", "occurred_at": Self.iso(portal.clock.now)],
                            [
                                "client_id": "s1", "kind": "section_viewed", "section": "resources", "seconds": 40,
                                "occurred_at": Self.iso(portal.clock.now)
                            ]
                        ]
                    ]
                )
            }
            // One member alone did this kind of thing this week: her row could single her out.
            _ = try await apps[0].send(
                .post,
                "/api/v1/events",
                json: [
                    "events": [
                        ["client_id": "s2", "kind": "section_viewed", "section": "chat", "seconds": 95, "occurred_at": Self.iso(portal.clock.now)]
                    ]
                ]
            )
            var (admin, _) = try await portal.signedIn(.administrator)
            _ = try await admin.get("/analytics/export")
            let first = try await admin.post("/analytics/export", form: [("range", "7d")])
            #expect(first.status == .ok)
            #expect(first.headers[.contentType]?.hasPrefix("text/csv") == true)
            let rows = Self.rows(first.text)
            #expect(rows.first == AnalyticsExport.columns.map(\.name))
            #expect(rows.first == ["participant", "cohort", "kind", "week", "label", "number"], "no day, no time of day")
            let body = Array(rows.dropFirst())
            #expect(body.count >= 18)
            let participants = Set(body.map { $0[0] })
            #expect(participants.count == 6 && participants.allSatisfy { $0.hasPrefix("P") && $0.count == 13 })
            #expect(!first.text.contains(mays[0].pseudonym) && !first.text.contains("\"\(mays[0].id)\""))
            // June's one member is in the merged cohort, as everyone is here.
            #expect(Set(body.map { $0[1] }) == ["Due May 2027 to June 2027"])
            // Each row's week is its Monday.
            let monday = AnalyticsDay.firstDay(ofWeek: AnalyticsDay(portal.portal.programSettings.current.clock.date(of: portal.clock.now)).week).date
                .iso
            #expect(Set(body.map { $0[3] }) == [monday])
            #expect(body.filter { $0[2] == "mood.recorded" && $0[4] == "sad" }.count == 5)
            #expect(
                body.filter { $0[2] == "mood.recorded" }.count == 6 && body.contains { $0[2] == "mood.recorded" && $0[4] == "withheld" },
                "her one angry mood keeps its row but not its label"
            )
            #expect(body.contains { $0[2] == "app.section_viewed" && $0[4] == "resources" && $0[5] == "40" })
            #expect(!body.contains { $0[4] == "chat" }, "a section only one member visited that week is not named")

            let second = Self.rows(try await admin.post("/analytics/export", form: [("range", "7d")]).text)
            #expect(Set(second.dropFirst().map { $0[0] }).isDisjoint(with: participants), "two exports cannot be joined on their ids")
            let audited = try await portal.auditEntries(action: .analyticsExported)
            #expect(audited.count == 2)
        }
    }
}
