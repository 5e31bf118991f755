import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Small-number disclosure control (`Disclosure`): what each count is shown as, the tables it protects, and an
/// attacker (`DisclosureAttacker`) walking every graph of the demo data over many choices without working out a
/// single hidden count.
@Suite struct DisclosureTests {
    @Test func countsFromZeroToFourAreFewerThanFiveAndOthersAreRoundedDownToAMultipleOfFive() {
        #expect((0...4).allSatisfy { Disclosure.figure($0) == .small })
        #expect((5...9).allSatisfy { Disclosure.figure($0) == .rounded(5) })
        #expect((10...14).allSatisfy { Disclosure.figure($0) == .rounded(10) })
        #expect(Disclosure.figure(1_234) == .rounded(1_230))
        #expect(Disclosure.count(3).text == "fewer than 5" && Disclosure.count(3).number == nil)
        #expect(Disclosure.count(1_234).text == "1,230")
        // Shares are of the figures shown: 8 of 14 is shown as 5 of 10.
        #expect(Disclosure.share(8, of: 14).text == "50%")
        #expect(Disclosure.share(3, of: 14).text == "fewer than 5" && Disclosure.share(0, of: 0).text == "fewer than 5")
    }

    /// The issue's row: "Eating well in pregnancy,fewer than 5,8 (53%),0 (0%),6 (40%),15" gave its hidden count
    /// back as 15 − 8 − 0 − 6 = 1.
    @Test func theIssuesRowNoLongerGivesItsHiddenCountBack() {
        // Before, every number shown was exact.
        var before = DisclosureAttacker(rounded: false)
        for (index, text) in ["fewer than 5", "8 (53%)", "0 (0%)", "6 (40%)"].enumerated() { before.saw("cell \(index)", text) }
        before.saw("total", "15")
        before.adds((0..<4).map { "cell \($0)" }, to: "total")
        #expect(before.solve().pinned == ["cell 0": 1], "the attacker finds what the issue found")

        let protected = Disclosure.protect(.summedByRow([[1, 8, 0, 6]]))
        let figure = DivergingBarChart(
            ChartDescription(
                id: "spread",
                title: "Spread",
                summary: "Spread.",
                valueTitle: DivergingBarChart.shareOfAnswers,
                categoryTitle: "Module"
            ),
            levels: ["Under 50", "50 to 69", "70 to 89", "90 to 100"],
            rows: [.init(label: "Eating well in pregnancy", levels: protected.cells[0].map(\.value), total: protected.rowTotals![0].value)],
            withheld: (5, "fewer than 5")
        ).figure
        let row = figure.table.rows[0].cells.map(\.text)
        #expect(row == ["Eating well in pregnancy", "fewer than 5", "5", "fewer than 5", "5", "15"])
        var after = DisclosureAttacker()
        for (index, text) in row.dropFirst().dropLast().enumerated() { after.saw("cell \(index)", text) }
        after.saw("total", row.last!)
        after.adds((0..<4).map { "cell \($0)" }, to: "total")
        #expect(after.solve().pinned.isEmpty)
        // A row with a count withheld draws no bar: neither a gap nor the others' lengths can show it.
        let bars = figure.boxes.filter { $0.tooltip?.hasPrefix("Eating well") == true }
        #expect(bars.isEmpty)
        #expect(figure.labels.contains { $0.text.hasPrefix("Counts withheld") })
    }

    @Test func whereRoundingAloneWouldPinASmallCountAFigureBesideItIsWithheld() {
        // Five 4s make 20, shown as 20: read as 20 to 24, the five could only be 4 each.
        let small = Array(repeating: Disclosure.Figure.small, count: 5)
        #expect(!Disclosure.exposed(Disclosure.Protected(cells: [small], rowTotals: [.rounded(20)], columnTotals: nil)).isEmpty)
        let fives = Disclosure.protect(.summedByRow([[4, 4, 4, 4, 4]]))
        #expect(fives.rowTotals == [.withheld] && Disclosure.exposed(fives).isEmpty, "no other figure to withhold: the total is")
        // Rounded down, 4 and 4 (8, shown as 5: 5 to 9) pin nothing, where to the nearest (10: 8 to 12) they would.
        #expect(Disclosure.exposed(Disclosure.protect(.summedByRow([[4, 4]]))).isEmpty && Disclosure.figure(8) == .rounded(5))
        // Beside a figure shown, that figure is withheld first, never a total another graph shows.
        var column = Disclosure.Table(cells: [[4], [4], [0], [5]], columnTotals: [13])
        column.totalsShownElsewhere = true
        let kept = Disclosure.protect(column)
        #expect(kept.columnTotals == [.rounded(10)] && Disclosure.exposed(kept).isEmpty)
        // 0 shown as 0 would pin its neighbours: seven 1s make 7, shown as 5 (5 to 7), so each would be 1.
        let ones = Disclosure.protect(.summedByRow([[1, 1, 1, 1, 1, 1, 1, 0, 0]]))
        #expect(Disclosure.exposed(ones).isEmpty && ones.rowTotals == [.rounded(5)])
    }

    /// Every small table of counts from 0 to 13, with its row totals, its column totals or both: once protected, no
    /// hidden count can be pinned, by the module's own check or by the attacker's exhaustive one.
    @Test func noProtectedTableLetsAHiddenCountBeWorkedOut() {
        var generator = SeededNumbers(seed: 52)
        for round in 0..<400 {
            let rows = 1 + Int(generator.next() % 3), columns = 2 + Int(generator.next() % 3)
            let cells = (0..<rows).map { _ in (0..<columns).map { _ in Int64([0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 12, 13][Int(generator.next() % 13)]) }
            }
            var table = Disclosure.Table(cells: cells)
            if round % 3 != 1 { table.rowTotals = cells.map { $0.reduce(0, +) } }
            if round % 3 != 0 { table.columnTotals = (0..<columns).map { column in cells.reduce(0) { $0 + $1[column] } } }
            let protected = Disclosure.protect(table)
            #expect(Disclosure.exposed(protected).isEmpty, "\(cells)")
            var attacker = DisclosureAttacker()
            for row in 0..<rows {
                for column in 0..<columns { attacker.saw("\(row),\(column)", protected.cells[row][column].text) }
                if let total = protected.rowTotals?[row] {
                    attacker.saw("row \(row)", total.text)
                    attacker.adds((0..<columns).map { "\(row),\($0)" }, to: "row \(row)")
                }
            }
            for column in 0..<columns {
                if let total = protected.columnTotals?[column] {
                    attacker.saw("column \(column)", total.text)
                    attacker.adds((0..<rows).map { "\($0),\(column)" }, to: "column \(column)")
                }
            }
            let (pinned, contradictions) = attacker.solve()
            #expect(pinned.isEmpty && contradictions.isEmpty, "\(cells)")
            // The figures shown are what the counts round to; only what was withheld is not.
            for row in 0..<rows {
                for column in 0..<columns where protected.cells[row][column] != .withheld {
                    #expect(protected.cells[row][column] == Disclosure.figure(cells[row][column]))
                }
            }
        }
    }

    @Test func dueMonthsWithFewerThanFiveMembersAreMergedWithTheirNeighbours() {
        let cohorts = (1...6).map { Cohort(id: Int64($0), dueMonth: "2027-0\($0)") }
        let groups = AnalyticsCohort.grouped(cohorts, members: [1: 2, 2: 3, 3: 7, 4: 1, 5: 0, 6: 2])
        // 2 + 3, then 7, then 1 + 0 + 2 too few to stand alone, so joined to the 7.
        #expect(groups.map(\.cohortIDs) == [[1, 2], [3, 4, 5, 6]])
        #expect(groups.allSatisfy { $0.members >= 5 })
        #expect(groups.first?.name == "Due January 2027 to February 2027")
        // A group is chosen by any of its due months, as an old address may name one.
        let choices = AnalyticsChoices(query: [("cohort", "2"), ("cohort", "1")], cohorts: groups)
        #expect(choices.cohortIDs == [1])
    }

    // MARK: The demo data, walked

    /// The demo data (`seed-demo`), every graph downloaded over many choices — periods and their halves, by day, week
    /// and month, all members and each cohort, the period before — and every sum those choices let someone form, the
    /// way the issue's outside check does: no hidden count can be worked out, and no drawing shows a small count.
    @Test(arguments: TestEngines.all)
    func noHiddenCountOfTheDemoDataCanBeWorkedOutFromTheGraphs(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await DemoSeeder(
                database: portal.portal.database,
                dependencies: portal.portal.dependencies,
                sealer: portal.portal.sealer,
                settings: portal.portal.settings
            ).seed()
            var (researcher, _) = try await portal.signedIn(.researcher)
            let today = AnalyticsDay(portal.portal.programSettings.current.clock.date(of: portal.clock.now))
            let groups = try await portal.database.read { db in
                AnalyticsCohort.grouped(try await MemberRepository().cohorts(on: db), members: try await AnalyticsRepository().memberCounts(on: db))
            }
            #expect(groups.count >= 2 && groups.allSatisfy { $0.members >= 5 })
            func days(_ from: Int, _ to: Int) -> ClosedRange<AnalyticsDay> { AnalyticsDay(today.number - from)...AnalyticsDay(today.number - to) }
            let whole = days(27, 0)
            let periods = [whole, days(27, 14), days(13, 0), days(6, 0), days(89, 0)]
            // Who: all members ("all") or one cohort group (its id).
            let selections: [String?] = [nil] + groups.map { String($0.id) }
            var attacker = DisclosureAttacker()
            var hiddenSeen = 0
            var downloads = 0

            func query(_ period: ClosedRange<AnalyticsDay>, _ selection: String?, by: String = "day", compare: String = "none") -> String {
                "range=custom&from=\(period.lowerBound.date.iso)&to=\(period.upperBound.date.iso)&by=\(by)&compare=\(compare)"
                    + (selection.map { "&cohort=\($0)" } ?? "")
            }
            func table(_ graph: String, _ query: String) async throws -> [[String]] {
                let response = try await researcher.get("/analytics/download?graph=\(graph)&\(query)")
                downloads += 1
                return response.status == .ok ? AnalyticsTests.rows(response.text) : []
            }
            func span(_ period: ClosedRange<AnalyticsDay>) -> String { "\(period.lowerBound.number)-\(period.upperBound.number)" }
            func seeAll(_ rows: [[String]], key: (_ row: String, _ column: String) -> String) {
                guard let header = rows.first else { return }
                for row in rows.dropFirst() {
                    // A diverging bar's row of fewer than 5 answers hides its zeros too.
                    let zeroPossible = header.last == "Answers" && row.last == "fewer than 5"
                    for (column, text) in zip(header, row).dropFirst() {
                        if text.hasPrefix("fewer than 5") && !zeroPossible { hiddenSeen += 1 }
                        attacker.saw(key(row[0], column), text, zeroPossible: zeroPossible)
                    }
                }
            }

            let surveyPage = try await researcher.get("/analytics/surveys?\(query(whole, nil))").text
            let surveyGraphs = Set(surveyPage.matches(of: /data-chart-figure="(survey-[0-9]+-question-[0-9]+)"/).map { String($0.output.1) })
            #expect(!surveyGraphs.isEmpty)
            let additive = ["section-visits", "module-completions", "module-score-spread", "opens-per-member"] + surveyGraphs.sorted()

            for period in periods {
                for selection in selections {
                    let who = selection ?? "all"
                    let choices = query(period, selection)
                    // Graphs over the whole period: a row per category, a column per scope (here one).
                    for graph in additive {
                        let rows = try await table(graph, choices)
                        // A diverging bar's table: a row per scale (a survey's is named for who answered), a column per level and
                        // the answers in all; any other: a row per category, a column per who.
                        let diverging = rows.first?.last == "Answers"
                        func row(_ label: String) -> String { diverging && graph.hasPrefix("survey") ? "" : label }
                        seeAll(rows) { label, column in "\(graph)|\(row(label))|\(diverging ? column : "")|\(who)|\(span(period))" }
                        // A row against its total.
                        if diverging {
                            for line in rows.dropFirst() {
                                let levels = rows[0].dropFirst().dropLast().map { "\(graph)|\(row(line[0]))|\($0)|\(who)|\(span(period))" }
                                attacker.adds(levels, to: "\(graph)|\(row(line[0]))|Answers|\(who)|\(span(period))")
                            }
                        }
                    }
                    // Moods by day, week and month: each bucket cut by the period.
                    for by in ["day", "week", "month"] {
                        let rows = try await table("moods", query(period, selection, by: by))
                        let level = AnalyticsLevel(rawValue: by)!
                        let buckets = AnalyticsBuckets(period, by: AnalyticsChoices.Granularity(rawValue: by)!).buckets
                        let spans = Dictionary(
                            uniqueKeysWithValues: buckets.map { bucket in
                                (bucket.label, level.days(of: bucket.key).clamped(to: period.lowerBound.number...period.upperBound.number))
                            }
                        )
                        seeAll(rows) { row, column in "moods|\(column)|\(who)|\(spans[row].map { "\($0.lowerBound)-\($0.upperBound)" } ?? row)" }
                        guard by != "day", let header = rows.first else { continue }
                        for days in spans.values where days.count > 1 {
                            for mood in header.dropFirst() {
                                attacker.adds(
                                    days.map { "moods|\(mood)|\(who)|\($0)-\($0)" },
                                    to: "moods|\(mood)|\(who)|\(days.lowerBound)-\(days.upperBound)"
                                )
                            }
                        }
                    }
                }
                // All members against the cohorts, side by side and one by one.
                let compared = try await table("section-visits", query(period, nil, compare: "cohorts") + groups.map { "&cohort=\($0.id)" }.joined())
                let names = Dictionary(uniqueKeysWithValues: groups.map { ($0.name, String($0.id)) })
                seeAll(compared) { row, column in "section-visits|\(row)||\(names[column] ?? column)|\(span(period))" }
                let seen = Array(attacker.ranges.keys)
                for graph in additive {
                    let categories = Set(
                        seen.filter { $0.hasPrefix("\(graph)|") && $0.hasSuffix("|all|\(span(period))") }
                            .map { $0.dropLast("|all|\(span(period))".count) }
                    )
                    for category in categories {
                        attacker.adds(groups.map { "\(category)|\($0.id)|\(span(period))" }, to: "\(category)|all|\(span(period))")
                    }
                }
            }
            // A period against its halves, for every count that adds up over days.
            let halves = (periods[1], periods[2])
            for key in Array(attacker.ranges.keys)
            where key.hasSuffix("|\(span(whole))") && !key.hasPrefix("moods|") && !key.hasPrefix("opens-per-member|") {
                let stem = key.dropLast(span(whole).count)
                attacker.adds(["\(stem)\(span(halves.0))", "\(stem)\(span(halves.1))"], to: key)
            }
            // The period before, beside this one, is the same figure as that period on its own.
            let before = try await table("section-visits", query(periods[3], nil, compare: "previous"))
            seeAll(before) { row, column in
                "section-visits|\(row)||all|\(span(column == "This period" ? periods[3] : AnalyticsChoices.previous(periods[3])))"
            }

            let (pinned, contradictions) = attacker.solve()
            #expect(contradictions.isEmpty, "sums formed wrongly: \(contradictions.sorted().prefix(12))")
            #expect(pinned.isEmpty, "hidden counts worked out: \(pinned.sorted { $0.key < $1.key }.prefix(12)) of \(pinned.count)")
            #expect(hiddenSeen > 20 && downloads > 100, "the walk saw \(hiddenSeen) hidden counts in \(downloads) downloads")

            // No drawing shows a small count, in a tooltip or a label.
            for topic in ["learning", "surveys", "moods", "sections", "activity"] {
                let page = try await researcher.get("/analytics/\(topic)?\(query(whole, nil))").text
                #expect(page.matches(of: /<title>[^<]*: [1-4](?: \(|<)/).isEmpty, "\(topic)")
                #expect(page.matches(of: /class="chart__value"[^>]*>[1-4]</).isEmpty, "\(topic)")
            }
        }
    }

    /// Fewer than 5 members active in a period and cohorts: nothing is drawn or downloaded for them.
    @Test(arguments: TestEngines.all)
    func aPeriodWithFewerThanFiveMembersIsNotDrawnOnItsOwn(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var members: [Member] = []
            for _ in 0..<3 { members.append(try await AnalyticsTests.member(portal, due: "2027-05-10").1) }
            var (admin, _) = try await portal.signedIn(.administrator)
            let page = try await admin.get("/analytics/sections?range=7d").text
            #expect(page.contains("Fewer than 5 members used the app in this period"))
            #expect(!page.contains("data-chart-figure"))
            #expect(try await admin.get("/analytics/download?graph=section-visits&range=7d").status == .notFound)
            for _ in 0..<2 { members.append(try await AnalyticsTests.member(portal, due: "2027-05-10").1) }
            let five = try await admin.get("/analytics/sections?range=7d").text
            #expect(five.contains("data-chart-figure=\"section-visits\""))
        }
    }
}

/// Numbers from a fixed seed (SplitMix64), so a failing table is the same on every run.
struct SeededNumbers: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
