import Foundation
import PortalPlatform
import SQLKit

/// Ninety days of demo activity for `seed-demo`, so the Analytics pages have something to draw: app opens,
/// section views, moods and questions and replies on the desk for every demo member, from a fixed pattern rather than chance, so every demo
/// looks alike. Their client ids start with `demo-`.
extension DemoData {
    func seedAnalytics(on db: any SQLDatabase) async throws {
        var everyone = MemberListQuery()
        everyone.page = PageRequest(number: 1, size: 200)
        let members = try await MemberRepository().list(everyone, on: db).items.filter { $0.status == .active }
        let clock = try await ProgramSettingsRepository().clock(on: db)
        let sections: [(AppSection, Int)] = [
            (.home, 40), (.chat, 300), (.desk, 180), (.learning, 240), (.calendar, 60), (.resources, 90), (.moods, 30)
        ]
        var events: [MemberEvent] = []
        for (index, member) in members.enumerated() {
            // Some members use the app most days, some now and then, and a few stop after a few weeks.
            let everyNthDay = 1 + index % 4
            let stopsAfter = index % 5 == 4 ? 30 : 90
            for daysAgo in stride(from: min(stopsAfter, 89), through: 0, by: -1) where (daysAgo + index) % everyNthDay == 0 {
                let start = now.addingTimeInterval(-Double(daysAgo) * 86_400 - Double((index * 37 + daysAgo * 11) % 600) * 60)
                guard start > member.createdAt else { continue }
                let id = "demo-\(member.id)-\(daysAgo)"
                events.append(
                    MemberEvent(kind: .appOpened, memberID: member.id, cohortID: member.cohort.id, occurredAt: start, clientID: "\(id)-open")
                )
                let (section, seconds) = sections[(index + daysAgo) % sections.count]
                events.append(
                    MemberEvent(
                        kind: .sectionViewed,
                        memberID: member.id,
                        cohortID: member.cohort.id,
                        occurredAt: start.addingTimeInterval(20),
                        number: Int64(seconds + (daysAgo * 7) % 120),
                        label: section.rawValue,
                        clientID: "\(id)-section"
                    )
                )
                if (daysAgo + index) % 3 == 0 {
                    // Moods lean positive, with harder days now and then.
                    let mood = Mood.allCases[(index * 3 + daysAgo * 5) % 11 < 6 ? (index + daysAgo) % 3 : 3 + (index + daysAgo) % 5]
                    events.append(
                        MemberEvent(
                            kind: .moodRecorded,
                            memberID: member.id,
                            cohortID: member.cohort.id,
                            occurredAt: start.addingTimeInterval(60),
                            label: mood.rawValue,
                            clientID: "\(id)-mood"
                        )
                    )
                }
                if section == .desk {
                    // On the desk, a question now and then and more often a reply.
                    let post: InformationDesk.DeskPostKind = (index + daysAgo) % 4 == 0 ? .question : .reply
                    events.append(
                        MemberEvent(
                            kind: .deskPosted,
                            memberID: member.id,
                            cohortID: member.cohort.id,
                            occurredAt: start.addingTimeInterval(90),
                            label: post.rawValue,
                            clientID: "\(id)-desk"
                        )
                    )
                }
            }
        }
        try await MemberEvents().record(events, clock: clock, on: db)
        try await seedQuizzes(members: members, clock: clock, on: db)
    }

    /// Demo members' quizzes on the demo modules, scored as the app's submissions are, so the learning module
    /// scores have completions to count: about two members in three try each module, some more than once.
    private func seedQuizzes(members: [Member], clock: ProgramClock, on db: any SQLDatabase) async throws {
        let content = LearningContentRepository()
        let modules = try await content.modules(on: db).filter { $0.status == .published }
        let questions = Dictionary(grouping: try await content.questions(moduleIDs: modules.map(\.id), on: db), by: \.moduleID)
        var events: [MemberEvent] = []
        for (index, member) in members.enumerated() {
            for (position, module) in modules.enumerated() where (index + position) % 3 != 0 {
                for attempt in 0..<(1 + (index + position) % 2) {
                    let daysAgo: Int = (index * 13 + position * 29 + attempt * 3) % 80 + 1
                    let at = now.addingTimeInterval(-Double(daysAgo) * 86_400)
                    guard at > member.createdAt else { continue }
                    let quiz = questions[module.id] ?? []
                    // Later attempts and some members do better: a fixed pattern, not chance.
                    var answers: [Int64: Set<Int64>] = [:]
                    for (number, question) in quiz.enumerated() {
                        let pattern: Int = (index * 7 + number * 3 + attempt * 5) % 10
                        let right = pattern < 6 + attempt * 2
                        answers[question.id] = right ? Set(question.choices.filter(\.isCorrect).map(\.id)) : []
                    }
                    let score = QuizScore.score(quiz, answers: answers)
                    try await content.recordAttempt(moduleID: module.id, memberID: member.id, score: score, at: at, on: db)
                    events.append(
                        MemberEvent(
                            kind: .learningModuleCompleted,
                            memberID: member.id,
                            cohortID: member.cohort.id,
                            occurredAt: at,
                            number: Int64(score.percent),
                            label: "module-\(module.id)",
                            clientID: "demo-\(member.id)-quiz-\(module.id)-\(attempt)"
                        )
                    )
                }
            }
        }
        try await MemberEvents().record(events, clock: clock, on: db)
    }
}
