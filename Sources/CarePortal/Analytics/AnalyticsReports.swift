import Foundation
import PortalPlatform
import SQLKit

/// The graphs of the Analytics pages, for one set of choices: each a chart whose table is exactly what
/// its CSV download holds.
struct AnalyticsReports: Sendable {
    /// One line or set of bars: the chosen cohorts over a period.
    struct Scope: Sendable {
        let name: String
        let period: ClosedRange<AnalyticsDay>
        let cohortIDs: [Int64]
    }

    enum Topic: String, Sendable, CaseIterable {
        case sections, moods, surveys, learning, activity

        var title: String {
            switch self {
            case .sections: "Sections used most"
            case .moods: "Moods over time"
            case .surveys: "Survey results"
            case .learning: "Learning module scores"
            case .activity: "Sign-ins and app opens"
            }
        }

        var summary: String {
            switch self {
            case .sections: "Which parts of the app members visit, how long they stay, and what they write on the information desk."
            case .moods: "The moods members share, by day, week or month, and the share that are negative."
            case .surveys: "A survey's answers, question by question, from the responses submitted in the period: scales as diverging bars."
            case .learning: "Each learning module's quiz scores (average and spread) and how many times it was completed."
            case .activity: "Members active each day, week or month; how often they open the app; and how many are still active weeks after joining."
            }
        }

        /// What the page says when there is nothing to draw.
        var nothingToShow: String? {
            switch self {
            case .surveys: "No survey has been published yet: its results appear here once it has."
            case .learning: "No learning module was completed by these members in this period."
            default: nil
            }
        }
    }

    let choices: AnalyticsChoices
    let cohorts: [AnalyticsCohort]
    let period: ClosedRange<AnalyticsDay>
    let today: AnalyticsDay
    let clock: ProgramClock
    let csvPath: @Sendable (String) -> String
    private let repository: AnalyticsRepository
    /// The period's days, weeks or months, each labelled: worked out once, as a graph may have hundreds.
    private let buckets: AnalyticsBuckets

    /// `recorded`: the first and last days anything was recorded on (`AnalyticsRepository.recordedDays`).
    init(
        choices: AnalyticsChoices,
        cohorts: [AnalyticsCohort],
        recorded: ClosedRange<AnalyticsDay>?,
        clock: ProgramClock,
        now: Date,
        csvPath: @escaping @Sendable (String) -> String
    ) {
        repository = AnalyticsRepository(recorded: recorded)
        self.choices = choices
        self.cohorts = cohorts
        self.clock = clock
        let today = clock.date(of: now)
        self.today = AnalyticsDay(today)
        period = choices.period(today: today, earliest: recorded?.lowerBound.date)
        buckets = AnalyticsBuckets(period, by: choices.granularity)
        self.csvPath = csvPath
    }

    /// Who the chosen cohorts are, in words.
    var scopeName: String {
        let chosen = cohorts.filter { choices.cohortIDs.contains($0.id) }
        if chosen.isEmpty { return "All members" }
        return chosen.map(\.name).joined(separator: ", ")
    }

    var periodText: String {
        "\(period.lowerBound.date.displayed) to \(period.upperBound.date.displayed)"
    }

    var scopes: [Scope] {
        switch choices.comparison {
        case .none: [Scope(name: scopeName, period: period, cohortIDs: chosenCohortIDs)]
        case .previous:
            [
                Scope(name: "This period", period: period, cohortIDs: chosenCohortIDs),
                Scope(name: "The period before", period: AnalyticsChoices.previous(period), cohortIDs: chosenCohortIDs)
            ]
        case .cohorts: cohorts.filter { choices.cohortIDs.contains($0.id) }.map { Scope(name: $0.name, period: period, cohortIDs: $0.cohortIDs) }
        }
    }

    /// The due months' cohorts of the groups chosen (none: every member).
    var chosenCohortIDs: [Int64] {
        cohorts.filter { choices.cohortIDs.contains($0.id) }.flatMap(\.cohortIDs)
    }

    /// Why nothing may be drawn for these choices: a period and cohorts in which fewer than 5 members did anything
    /// would describe those few, and are not offered on their own.
    func tooFewMembers(on db: any SQLDatabase) async throws -> String? {
        for scope in scopes {
            let members = try await repository.activeMemberCount(in: scope.period, cohortIDs: scope.cohortIDs, on: db)
            guard members > 0 && members < Int(Disclosure.threshold) else { continue }
            let which = scopes.count > 1 ? " (\(scope.name))" : ""
            return
                "Fewer than 5 members used the app in this period and these cohorts\(which), so nothing is drawn for them: choose a longer period or more cohorts."
        }
        return nil
    }

    /// How a figure ranks in an order "most first": its number shown, a small count just above 0, and the order given for ties.
    static func rank(_ figure: Disclosure.Figure) -> Int64 {
        figure.shown ?? 1
    }

    /// A scope's buckets lined up with this period's, the first with the first (the period before has as many days).
    private func aligned(_ scope: Scope) -> [Int] {
        let own = AnalyticsBuckets(scope.period, by: choices.granularity).buckets.map(\.key)
        return buckets.buckets.indices.map { $0 < own.count ? own[$0] : Int.min }
    }

    private var comparisonNote: String {
        switch choices.comparison {
        case .none: ""
        case .previous:
            " The period before (\(AnalyticsChoices.previous(period).lowerBound.date.displayed) to \(AnalyticsChoices.previous(period).upperBound.date.displayed)) is drawn on the same axes, its first \(choices.granularity.rawValue) beside this period's first."
        case .cohorts: " Each cohort is drawn on the same axes."
        }
    }

    func graphs(_ topic: Topic, on db: any SQLDatabase) async throws -> [ChartFigure] {
        switch topic {
        case .sections: try await sections(on: db)
        case .moods: try await moods(on: db)
        case .surveys: try await surveys(on: db)
        case .learning: try await learning(on: db)
        case .activity: try await activity(on: db)
        }
    }

    // MARK: Sections used most

    func sections(on db: any SQLDatabase) async throws -> [ChartFigure] {
        var totals: [[String: AnalyticsRepository.Count]] = []
        for scope in scopes {
            totals.append(try await repository.totals(kind: .sectionViewed, in: scope.period, cohortIDs: scope.cohortIDs, on: db))
        }
        let figures = totals.map { totals in
            Dictionary(uniqueKeysWithValues: AppSection.allCases.map { ($0, Disclosure.figure(totals[$0.rawValue]?.events ?? 0)) })
        }
        let first = figures.first ?? [:]
        // Most visited first by the figures shown, so the order tells nothing the figures do not; ties in the app's order.
        let sections = AppSection.allCases.enumerated().sorted { a, b in
            (Self.rank(first[a.element] ?? .small), -a.offset) > (Self.rank(first[b.element] ?? .small), -b.offset)
        }.map(\.element)
        let visits = BarChart(
            ChartDescription(
                id: "section-visits",
                title: "Visits to each section of the app, \(periodText)",
                summary: "How many times members opened each section of the app, most visited first." + comparisonNote,
                valueTitle: "Visits",
                categoryTitle: "Section",
                csvPath: csvPath("section-visits")
            ),
            categories: sections.map(\.title),
            series: zip(scopes, figures).map { scope, figures in
                ChartSeries(scope.name, sections.map { (figures[$0] ?? .small).value })
            }
        ).figure
        let time = BarChart(
            ChartDescription(
                id: "section-time",
                title: "Time spent in each section of the app, \(periodText)",
                summary: "The minutes members spent in each section, in the same order." + comparisonNote,
                valueTitle: "Minutes",
                categoryTitle: "Section",
                csvPath: csvPath("section-time")
            ),
            categories: sections.map(\.title),
            series: zip(scopes, zip(totals, figures)).map { scope, both in
                let (totals, figures) = both
                return ChartSeries(
                    scope.name,
                    sections.map { section in
                        let figure = figures[section] ?? .small
                        if figure.shown == nil { return ChartValue(nil, text: figure.text) }
                        let minutes = Double(totals[section.rawValue]?.total ?? 0) / 60
                        return ChartValue(minutes, text: "\(ChartFormat.count(Int(minutes.rounded()))) min")
                    }
                )
            }
        ).figure
        return [visits, time, try await deskWriting(on: db)]
    }

    /// The questions and replies members wrote on the information desk (their commenting activity).
    private func deskWriting(on db: any SQLDatabase) async throws -> ChartFigure {
        let kinds = InformationDesk.DeskPostKind.allCases
        var series: [ChartSeries] = []
        for scope in scopes {
            let totals = try await repository.totals(kind: .deskPosted, in: scope.period, cohortIDs: scope.cohortIDs, on: db)
            series.append(ChartSeries(scope.name, kinds.map { Disclosure.figure(totals[$0.rawValue]?.events ?? 0).value }))
        }
        return BarChart(
            ChartDescription(
                id: "desk-writing",
                title: "Questions and replies members wrote on the information desk, \(periodText)",
                summary: "How many questions members asked and how many replies they wrote on the information desk." + comparisonNote,
                valueTitle: "Posts",
                categoryTitle: "What they wrote",
                csvPath: csvPath("desk-writing")
            ),
            categories: kinds.map(\.title),
            series: series
        ).figure
    }

    // MARK: Moods over time

    func moods(on db: any SQLDatabase) async throws -> [ChartFigure] {
        var counts: [[Int: [String: Int64]]] = []
        for scope in scopes {
            let rows = try await repository.counts(
                kind: .moodRecorded,
                in: scope.period,
                by: choices.granularity,
                cohortIDs: scope.cohortIDs,
                perCohort: false,
                on: db
            )
            var byBucket: [Int: [String: Int64]] = [:]
            for row in rows { byBucket[row.bucket, default: [:]][row.label, default: 0] += row.events }
            counts.append(byBucket)
        }
        let keys = buckets.buckets.map(\.key)
        let moodFigures = counts.map { counts in counts.mapValues { moods in moods.mapValues(Disclosure.figure) } }
        let current = moodFigures.first ?? [:]
        let moods = ColumnChart(
            ChartDescription(
                id: "moods",
                title: "Moods shared by \(choices.granularity.rawValue), \(scopeName), \(periodText)",
                summary:
                    "Each column is the moods shared in that \(choices.granularity.rawValue), stacked from positive (excited, happy, loved) through indifferent to negative (sad, angry, sick, overwhelmed).",
                valueTitle: "Moods shared",
                categoryTitle: choices.granularity.title,
                csvPath: csvPath("moods")
            ),
            categories: buckets.labels,
            series: Mood.allCases.map { mood in
                ChartSeries("\(mood.title) (\(mood.group.rawValue))", keys.map { (current[$0]?[mood.rawValue] ?? .small).value })
            },
            stacked: true
        ).figure
        let negative = Set(Mood.allCases.filter { $0.group == .negative }.map(\.rawValue))
        let share = LineChart(
            ChartDescription(
                id: "negative-moods",
                title: "Share of moods that were negative, by \(choices.granularity.rawValue), \(periodText)",
                summary: "The percentage of shared moods that were sad, angry, sick or overwhelmed." + comparisonNote,
                valueTitle: "Negative moods (%)",
                categoryTitle: choices.granularity.title,
                csvPath: csvPath("negative-moods")
            ),
            categories: buckets.labels,
            series: zip(scopes, counts).map { scope, counts in
                ChartSeries(
                    scope.name,
                    aligned(scope).map { key in
                        // Of the moods' rounded sums, withheld where either is fewer than 5.
                        let moods = counts[key] ?? [:]
                        return Disclosure.share(moods.filter { negative.contains($0.key) }.values.reduce(0, +), of: moods.values.reduce(0, +))
                    }
                )
            },
            maximum: 100
        ).figure
        return [moods, share]
    }

    // MARK: Survey results

    /// The surveys to choose from, the one drawn marked.
    func surveyOptions(on db: any SQLDatabase) async throws -> [FilterOption] {
        let surveys = try await SurveyRepository().publishedSurveys(on: db)
        let chosen = chosenSurvey(among: surveys.map(\.id))
        return surveys.map { FilterOption(value: String($0.id), title: $0.title, isSelected: $0.id == chosen) }
    }

    /// The survey asked for when it is published, otherwise the newest published one.
    private func chosenSurvey(among ids: [Int64]) -> Int64? {
        choices.surveyID.flatMap { ids.contains($0) ? $0 : nil } ?? ids.first
    }

    private func instants(_ period: ClosedRange<AnalyticsDay>) -> (start: Date, end: Date) {
        (clock.instant(startOf: period.lowerBound.date), clock.instant(startOf: period.upperBound.date.adding(days: 1)))
    }

    /// Per question of the chosen survey, the answers of the responses submitted in each scope's period by its
    /// cohorts: a scale as diverging bars (one bar per scope), a choice question as bars; free text is never drawn.
    func surveys(on db: any SQLDatabase) async throws -> [ChartFigure] {
        let repository = SurveyRepository()
        guard let surveyID = chosenSurvey(among: try await repository.publishedSurveys(on: db).map(\.id)),
            let survey = try await repository.find(id: surveyID, on: db)
        else { return [] }
        let questions = try await repository.questions(surveyID: surveyID, on: db)
        var counts: [[Int64: [Int: Int]]] = []
        var responses: [Int] = []
        for scope in scopes {
            let (start, end) = instants(scope.period)
            let filter = SurveyRepository.ResponseScope(start: start, end: end, cohortIDs: scope.cohortIDs)
            counts.append(try await repository.choiceCounts(surveyID: surveyID, scope: filter, on: db))
            responses.append(try await repository.responseCount(surveyID: surveyID, scope: filter, on: db))
        }
        let protected = Self.protectSurvey(questions: questions, counts: counts, responses: responses)
        let answered = zip(scopes, protected.responses).map { "\($0.name): \($1.text) responses" }.joined(separator: "; ")
        var figures: [ChartFigure] = []
        for (index, question) in questions.enumerated() where question.kind != .text {
            let id = "survey-\(surveyID)-question-\(question.id)"
            let title = "“\(survey.title)”, question \(index + 1): \(question.prompt)"
            guard let table = protected.questions[question.id] else { continue }
            switch question.kind {
            case .scale:
                let levels = SurveyQuestion.scale.map { point in
                    point == 1 ? "1: \(question.scaleLowLabel ?? "")" : point == 5 ? "5: \(question.scaleHighLabel ?? "")" : String(point)
                }
                figures.append(
                    DivergingBarChart(
                        ChartDescription(
                            id: id,
                            title: title,
                            summary:
                                "The share of members answering at each point of the scale, lower to the left of the centre line and higher to the right (\(answered))."
                                + comparisonNote,
                            valueTitle: DivergingBarChart.shareOfAnswers,
                            categoryTitle: choices.comparison == .none ? "Members" : "Compared",
                            csvPath: csvPath(id)
                        ),
                        levels: levels,
                        rows: scopes.indices.map { row in
                            DivergingBarChart.Row(
                                label: scopes[row].name,
                                levels: table.cells[row].map(\.value),
                                total: (table.rowTotals?[row] ?? .small).value
                            )
                        },
                        withheld: (Int(Disclosure.threshold), Disclosure.fewerThanFive)
                    ).figure
                )
            case .singleChoice, .multipleChoice:
                figures.append(
                    BarChart(
                        ChartDescription(
                            id: id,
                            title: title,
                            summary: "How many members chose each answer (\(answered))."
                                + (question.kind == .multipleChoice ? " Each could choose more than one." : "") + comparisonNote,
                            valueTitle: "Members",
                            categoryTitle: "Answer",
                            csvPath: csvPath(id)
                        ),
                        categories: question.choices,
                        series: scopes.indices.map { column in
                            ChartSeries(scopes[column].name, question.choices.indices.map { table.cells[$0][column].value })
                        }
                    ).figure
                )
            case .text:
                break
            }
        }
        return figures
    }

    /// Each question's figures and each scope's response count, protected together: a scope's responses are the
    /// total of each single-choice question's column (every response chooses one) and of each scale's row when all
    /// answered it, so a total one table has to withhold is withheld in the summary and every other table too.
    static func protectSurvey(
        questions: [SurveyQuestion],
        counts: [[Int64: [Int: Int]]],
        responses: [Int]
    ) -> (questions: [Int64: Disclosure.Protected], responses: [Disclosure.Figure]) {
        func tables(withheld: Set<Int>) -> [Int64: Disclosure.Protected] {
            var tables: [Int64: Disclosure.Protected] = [:]
            for question in questions {
                switch question.kind {
                case .scale:
                    let cells = counts.map { counts in SurveyQuestion.scale.map { Int64(counts[question.id]?[$0] ?? 0) } }
                    var table = Disclosure.Table.summedByRow(cells)
                    table.withheldRows = withheld.filter { cells[$0].reduce(0, +) == Int64(responses[$0]) }
                    tables[question.id] = Disclosure.protect(table)
                case .singleChoice, .multipleChoice:
                    let cells = question.choices.indices.map { choice in counts.map { Int64($0[question.id]?[choice + 1] ?? 0) } }
                    var table = Disclosure.Table(cells: cells, columnTotals: question.kind == .singleChoice ? responses.map(Int64.init) : nil)
                    table.withheldColumns = withheld
                    tables[question.id] = Disclosure.protect(table)
                case .text:
                    break
                }
            }
            return tables
        }
        let first = tables(withheld: [])
        var withheld: Set<Int> = []
        for question in questions {
            guard let table = first[question.id] else { continue }
            for (scope, total) in (table.rowTotals ?? []).enumerated() where total == .withheld {
                let answers = SurveyQuestion.scale.reduce(0) { $0 + (counts[scope][question.id]?[$1] ?? 0) }
                if answers == responses[scope] { withheld.insert(scope) }
            }
            for (scope, total) in (table.columnTotals ?? []).enumerated() where total == .withheld { withheld.insert(scope) }
        }
        let final = withheld.isEmpty ? first : tables(withheld: withheld)
        let figures = responses.indices.map { withheld.contains($0) ? Disclosure.Figure.withheld : Disclosure.figure(Int64(responses[$0])) }
        return (final, figures)
    }

    // MARK: Learning module scores

    /// The titles of the bands quiz scores out of 100 are counted in (`AnalyticsAggregates.scoreBands`), lowest first.
    static let scoreBands = ["Under 50", "50 to 69", "70 to 89", "90 to 100"]

    /// Completions per module, and the average and spread of the scores of the completions that had a quiz (a
    /// module without questions has no score), all from the aggregates.
    func learning(on db: any SQLDatabase) async throws -> [ChartFigure] {
        var completions: [[String: AnalyticsRepository.Count]] = []
        for scope in scopes {
            completions.append(try await repository.totals(kind: .learningModuleCompleted, in: scope.period, cohortIDs: scope.cohortIDs, on: db))
        }
        let scores = completions
        let first = completions.first ?? [:]
        // Most completed first by the figures shown, so the order tells nothing the figures do not.
        let labels = Set(completions.flatMap(\.keys)).sorted {
            (Self.rank(Disclosure.figure(first[$0]?.events ?? 0)), $1) > (Self.rank(Disclosure.figure(first[$1]?.events ?? 0)), $0)
        }
        guard !labels.isEmpty else { return [] }
        let ids = labels.map { Int64($0.dropFirst("module-".count)) ?? 0 }
        let titles = try await LearningContentRepository.moduleTitles(ids, on: db)
        let names = zip(labels, ids).map { label, id in
            let title = titles[id] ?? LearningContentRepository.unavailableTitle
            return title == LearningContentRepository.unavailableTitle ? "\(title) (\(label))" : title
        }
        let completionsChart = BarChart(
            ChartDescription(
                id: "module-completions",
                title: "Learning modules completed, \(periodText)",
                summary: "How many times members completed each module (each quiz submitted counts), most completed first." + comparisonNote,
                valueTitle: "Completions",
                categoryTitle: "Module",
                csvPath: csvPath("module-completions")
            ),
            categories: names,
            series: zip(scopes, completions).map { scope, completions in
                ChartSeries(scope.name, labels.map { Disclosure.count(completions[$0]?.events ?? 0) })
            }
        ).figure
        let averageChart = BarChart(
            ChartDescription(
                id: "module-average-scores",
                title: "Average quiz score of each learning module, \(periodText)",
                summary:
                    "The average score out of 100 of the quizzes submitted for each module, in the same order; withheld when fewer than 5 were submitted."
                    + comparisonNote,
                valueTitle: "Average score",
                categoryTitle: "Module",
                csvPath: csvPath("module-average-scores")
            ),
            categories: names,
            series: zip(scopes, scores).map { scope, scores in
                ChartSeries(
                    scope.name,
                    labels.map { label in
                        let count = scores[label]?.scored ?? 0, total = scores[label]?.total ?? 0
                        if count == 0 { return ChartValue(nil, text: "no quiz") }
                        if Disclosure.figure(count) == .small { return ChartValue(nil, text: Disclosure.fewerThanFive) }
                        let average = Double(total) / Double(count)
                        return ChartValue(average, text: "\(ChartFormat.decimal(average, places: 1)) out of 100")
                    }
                )
            }
        ).figure
        // One row per module (and scope), its bands adding up to its quizzes ("Answers").
        var spreadLabels: [String] = []
        var spreadCells: [[Int64]] = []
        for (index, label) in labels.enumerated() {
            for (scope, scores) in zip(scopes, scores) {
                spreadLabels.append(scopes.count > 1 ? "\(names[index]): \(scope.name)" : names[index])
                spreadCells.append(Self.scoreBands.indices.map { scores[label]?.bands[$0] ?? 0 })
            }
        }
        let spread = Disclosure.protect(.summedByRow(spreadCells))
        let spreadChart = DivergingBarChart(
            ChartDescription(
                id: "module-score-spread",
                title: "Spread of quiz scores in each learning module, \(periodText)",
                summary:
                    "For each module, the share of quizzes scoring in each band: lower scores to the left of the centre line, higher to the right."
                    + comparisonNote,
                valueTitle: "Share of quizzes: lower scores to the left, higher to the right",
                categoryTitle: "Module",
                csvPath: csvPath("module-score-spread")
            ),
            levels: Self.scoreBands,
            rows: zip(spreadLabels, zip(spread.cells, spread.rowTotals ?? [])).map { label, row in
                DivergingBarChart.Row(label: label, levels: row.0.map(\.value), total: row.1.value)
            },
            withheld: (Int(Disclosure.threshold), Disclosure.fewerThanFive)
        ).figure
        return [completionsChart, averageChart, spreadChart]
    }

    // MARK: Sign-ins and app opens

    static let opensBands: [(title: String, range: ClosedRange<Int64>)] = [
        ("Not at all", 0...0), ("Once", 1...1), ("2 to 3 times", 2...3), ("4 to 7 times", 4...7), ("8 to 14 times", 8...14),
        ("15 to 29 times", 15...29), ("30 times or more", 30...Int64.max)
    ]
    static let retentionWeeks = AnalyticsAggregates.retentionWeeks

    func activity(on db: any SQLDatabase) async throws -> [ChartFigure] {
        let granularity = choices.granularity
        var active: [[Int: Int64]] = []
        var opens: [[Int64]] = [] // members per band of `opensBands`
        var retained: [[Int: (active: Int64, joined: Int64)]] = []
        for scope in scopes {
            let rows = try await repository.activeMembers(in: scope.period, by: granularity, cohortIDs: scope.cohortIDs, perCohort: false, on: db)
            active.append(Dictionary(rows.map { ($0.bucket, $0.members) }, uniquingKeysWith: +))
            opens.append(
                try await repository.opensPerMember(in: scope.period, bands: Self.opensBands.map(\.range), cohortIDs: scope.cohortIDs, on: db)
            )
            retained.append(try await retention(scope, on: db))
        }
        let noun = granularity == .day ? "day" : granularity == .week ? "week" : "month"
        let activeChart = LineChart(
            ChartDescription(
                id: "active-members",
                title: "Members active each \(noun), \(periodText)",
                summary: "How many members used the app (signed in, opened it, or did anything in it) in each \(noun)." + comparisonNote,
                valueTitle: "Active members",
                categoryTitle: granularity.title,
                csvPath: csvPath("active-members")
            ),
            categories: buckets.labels,
            series: zip(scopes, active).map { scope, active in
                ChartSeries(scope.name, aligned(scope).map { Disclosure.count(active[$0] ?? 0) })
            }
        ).figure
        // The bands add up to the members active in the period, which the active members' graph shows for a period of
        // one day, week or month: a total shown elsewhere, so only cells are withheld beside a small one.
        var opensCounts = Disclosure.Table(
            cells: Self.opensBands.indices.map { band in opens.map { $0[band] } },
            columnTotals: opens.map { $0.reduce(0, +) }
        )
        opensCounts.totalsShownElsewhere = true
        let opensTable = Disclosure.protect(opensCounts)
        let opensChart = BarChart(
            ChartDescription(
                id: "opens-per-member",
                title: "How often each active member opened the app, \(periodText)",
                summary: "Members active in the period, by how many times they opened the app in it." + comparisonNote,
                valueTitle: "Members",
                categoryTitle: "App opens",
                csvPath: csvPath("opens-per-member")
            ),
            categories: Self.opensBands.map(\.title),
            series: scopes.indices.map { column in
                ChartSeries(scopes[column].name, opensTable.cells.map { $0[column].value })
            }
        ).figure
        let retentionChart = LineChart(
            ChartDescription(
                id: "retention",
                title: "Members still active in the weeks after joining (joined \(periodText))",
                summary:
                    "Of the members who registered in the period, the share active in each week after the week they joined (week 0), counting only registration weeks that have reached that week."
                    + comparisonNote,
                valueTitle: "Still active (%)",
                categoryTitle: "Weeks after joining",
                csvPath: csvPath("retention")
            ),
            categories: (0...Self.retentionWeeks).map { $0 == 0 ? "Week joined" : "Week \($0)" },
            series: zip(scopes, retained).map { scope, retained in
                ChartSeries(
                    scope.name,
                    (0...Self.retentionWeeks).map { after in
                        guard let point = retained[after] else { return ChartValue(nil, text: "not yet") }
                        return Disclosure.share(point.active, of: point.joined)
                    }
                )
            },
            maximum: 100
        ).figure
        return [activeChart, opensChart, retentionChart]
    }

    /// For each week after joining: members active in it, and members who joined in weeks that have reached it.
    private func retention(_ scope: Scope, on db: any SQLDatabase) async throws -> [Int: (active: Int64, joined: Int64)] {
        let start = clock.instant(startOf: scope.period.lowerBound.date)
        let end = clock.instant(startOf: scope.period.upperBound.date.adding(days: 1))
        var joinedPerWeek: [Int: Int64] = [:]
        for registered in try await repository.registrations(from: start, until: end, cohortIDs: scope.cohortIDs, on: db) {
            joinedPerWeek[AnalyticsDay(clock.date(of: registered)).week, default: 0] += 1
        }
        let activePerWeekAfter = try await repository.retention(joinedIn: scope.period, reachedBy: today.week, cohortIDs: scope.cohortIDs, on: db)
        var points: [Int: (active: Int64, joined: Int64)] = [:]
        for after in 0...Self.retentionWeeks {
            let joined = joinedPerWeek.filter { $0.key + after <= today.week }.values.reduce(0, +)
            guard joined > 0 else { continue }
            points[after] = (activePerWeekAfter[after] ?? 0, joined)
        }
        return points
    }
}
