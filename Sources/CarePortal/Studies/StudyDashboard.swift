import Foundation
import Hummingbird
import PortalPlatform
import SQLKit
import Synchronization

/// The study at a glance: how many are enrolled, active and withdrawn; each to-do's completion rate
/// over the last closed days; and app opens per day.
struct StudyDashboardController {
    static let days = 14
    let portal: Portal
    let kept = StudyDashboardCache()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.studies.pattern, access: .studyStaff, dashboard)
    }

    @Sendable func dashboard(request: Request, context: PortalContext) async throws -> Response {
        let clock = portal.programSettings.current.clock
        let today = clock.date(of: portal.now)
        let content = try await portal.database.read { db -> StudyDashboardCache.Content in
            let key = try await StudyDashboardCache.key(today: today, timeZone: clock.timeZone.identifier, on: db)
            if let content = kept.content(for: key) { return content }
            // Read after the key: a change in between gives a newer key next time, never a stale page.
            let content = drawn(try await StudyDashboardFigures.read(today: today, days: Self.days, on: db))
            kept.keep(content, for: key)
            return content
        }
        return portal.pages.response(
            StudyDashboardPage(
                completionChart: content.completionChart,
                opensChart: content.opensChart,
                layout: portal.layout("Study", context: context, current: .studies),
                enrolled: content.enrolled,
                active: content.active,
                withdrawn: content.withdrawn,
                firstDay: CalendarDate(dayNumber: today.dayNumber - Self.days).displayed,
                lastDay: today.adding(days: -1).displayed,
                itemTitles: content.itemTitles,
                completionRows: content.completionRows,
                opensRows: content.opensRows,
                timeZone: clock.timeZone.identifier,
                participantsPath: SiteURL.studyParticipants.path,
                exportsPath: SiteURL.studyExports.path
            )
        )
    }

    private func drawn(_ figures: StudyDashboardFigures) -> StudyDashboardCache.Content {
        StudyDashboardCache.Content(
            enrolled: figures.enrolled,
            active: figures.active,
            withdrawn: figures.withdrawn,
            completionChart: figures.completionChart.map { portal.pages.html($0) },
            opensChart: portal.pages.html(figures.opensChart),
            itemTitles: figures.items.map(\.title),
            completionRows: figures.completionRows,
            opensRows: figures.opens.map { .init(day: $0.day.short, opens: $0.opens, participants: $0.participants) }
        )
    }
}

/// The dashboard as last drawn, kept with what it was drawn from, so that a dashboard nothing has
/// changed for since costs three small reads rather than two weeks of marks and opens and two charts.
///
/// What the kept figures depend on, read afresh on every request (`key`): the day and time zone; per
/// status, how many participants, the highest id and the latest enrolment and change (enrolling,
/// withdrawing or deleting anyone moves one of them, through any server, since it is read from the
/// database); the to-do items; and today's app opens. Everything else the dashboard shows is about
/// closed days, which nothing changes afterwards: a to-do can only be marked for today, an app open is
/// recorded on its own day, and a to-do changed mid-study applies from tomorrow.
final class StudyDashboardCache: Sendable {
    struct Key: Sendable, Equatable {
        let today: CalendarDate
        let timeZone: String
        let participants: [StudyRepository.ParticipantsVersion]
        let items: [StudyTodoItem]
        let todayOpens: Int
        let todayOpeners: Int
    }

    struct Content: Sendable {
        let enrolled: Int
        let active: Int
        let withdrawn: Int
        let completionChart: RenderedHTML?
        let opensChart: RenderedHTML
        let itemTitles: [String]
        let completionRows: [StudyDashboardPage.CompletionRow]
        let opensRows: [StudyDashboardPage.OpensRow]
    }

    private let last = Mutex<(key: Key, content: Content)?>(nil)

    static func key(today: CalendarDate, timeZone: String, on db: any SQLDatabase) async throws -> Key {
        let studies = StudyRepository()
        let opens = try await studies.opensPerDay(from: today, on: db)[today]
        return Key(
            today: today,
            timeZone: timeZone,
            participants: try await studies.participantsVersion(on: db),
            items: try await studies.schedule(on: db).items,
            todayOpens: opens?.opens ?? 0,
            todayOpeners: opens?.participants ?? 0
        )
    }

    func content(for key: Key) -> Content? {
        last.withLock { kept in kept.flatMap { $0.key == key ? $0.content : nil } }
    }

    func keep(_ content: Content, for key: Key) {
        last.withLock { $0 = (key, content) }
    }
}

/// The dashboard's figures, read once per request.
struct StudyDashboardFigures: Sendable {
    struct Opens: Sendable {
        let day: CalendarDate
        let opens: Int
        let participants: Int
    }

    let enrolled: Int
    let active: Int
    let withdrawn: Int
    /// The items asked on any of the days, in order.
    let items: [StudyTodoItem]
    /// Per day, oldest first: each item's completion (nil when it was not asked that day).
    let completion: [(day: CalendarDate, inStudy: Int, rates: [StudyRate?])]
    let opens: [Opens]

    /// Each item's completion per day, drawn with the shared chart module; the page's table is its twin.
    var completionChart: ChartFigure? {
        guard completion.contains(where: { $0.rates.contains { $0 != nil } }) else { return nil }
        var figure = LineChart(
            ChartDescription(
                id: "study-completion-chart",
                title: "Daily to-dos done, per day",
                summary: "Of the participants in the study each day, the share who marked each to-do done before midnight.",
                valueTitle: "Done (%)",
                categoryTitle: "Day"
            ),
            categories: completion.map { $0.day.short },
            series: items.enumerated().map { index, item in
                ChartSeries(
                    item.title,
                    completion.map { entry in
                        entry.rates[index].map { .share(Double($0.done) / Double($0.offered)) }
                            ?? ChartValue(nil, text: entry.inStudy == 0 ? "No one in the study" : "Not asked")
                    }
                )
            },
            maximum: 100
        ).figure
        figure.tableBeneath = false
        return figure
    }

    /// App opens per day, drawn; the page's table is its twin.
    var opensChart: ChartFigure {
        var figure = ColumnChart(
            ChartDescription(
                id: "study-opens-chart",
                title: "App opens per day",
                summary: "How many times the app was opened each day, and by how many participants.",
                valueTitle: "Opens",
                categoryTitle: "Day"
            ),
            categories: opens.map { $0.day.short },
            series: [ChartSeries("Opens", opens.map { .count($0.opens) }), ChartSeries("Participants", opens.map { .count($0.participants) })]
        ).figure
        figure.tableBeneath = false
        return figure
    }

    var completionRows: [StudyDashboardPage.CompletionRow] {
        completion.map { entry in
            .init(
                day: entry.day.short,
                cells: entry.rates.map { rate in
                    rate.map { "\($0.percent)% (\($0.done) of \($0.offered))" } ?? (entry.inStudy == 0 ? "No one in the study" : "Not asked")
                }
            )
        }
    }

    static func read(today: CalendarDate, days count: Int, on db: any SQLDatabase) async throws -> StudyDashboardFigures {
        let studies = StudyRepository()
        let counts = try await studies.statusCounts(on: db)
        let schedule = try await studies.schedule(on: db)
        let first = CalendarDate(dayNumber: today.dayNumber - count)
        let marks = try await studies.markCounts(from: first, on: db)
        let opens = try await studies.opensPerDay(from: first, on: db)
        let inStudyPerDay = try await studies.inStudyPerDay(from: first, through: today.adding(days: -1), on: db)
        let dayNumbers = Array(first.dayNumber..<today.dayNumber)
        let items = schedule.items.filter { item in dayNumbers.contains { item.applies(onDayNumber: $0) } }
        let completion = dayNumbers.map { day -> (CalendarDate, Int, [StudyRate?]) in
            let inStudy = inStudyPerDay[day] ?? 0
            return (
                CalendarDate(dayNumber: day), inStudy,
                items.map { item in
                    guard item.applies(onDayNumber: day), inStudy > 0 else { return nil }
                    return StudyRate(done: min(marks[StudyMark(itemID: item.id, dayNumber: day)] ?? 0, inStudy), offered: inStudy)
                }
            )
        }
        return StudyDashboardFigures(
            enrolled: counts.values.reduce(0, +),
            active: counts[.active] ?? 0,
            withdrawn: counts[.withdrawn] ?? 0,
            items: items,
            completion: completion,
            opens: (first.dayNumber...today.dayNumber).map { day in
                let date = CalendarDate(dayNumber: day)
                return Opens(day: date, opens: opens[date]?.opens ?? 0, participants: opens[date]?.participants ?? 0)
            }
        )
    }
}

/// How many of those asked did an item on a day.
struct StudyRate: Sendable, Equatable {
    let done: Int
    let offered: Int
    var percent: Int { offered == 0 ? 0 : Int((Double(done) * 100 / Double(offered)).rounded()) }
}
