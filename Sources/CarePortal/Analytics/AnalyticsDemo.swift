import Foundation
import PortalPlatform
import SQLKit

/// Ninety days of demo activity for `seed-demo`, so the Analytics pages have something to draw: app opens,
/// section views and moods for every demo member, from a fixed pattern rather than chance, so every demo
/// looks alike. Their client ids start with `demo-`.
extension DemoData {
    func seedAnalytics(on db: any SQLDatabase) async throws {
        var everyone = MemberListQuery()
        everyone.page = PageRequest(number: 1, size: 200)
        let members = try await MemberRepository().list(everyone, on: db).items.filter { $0.status == .active }
        let clock = try await ProgramSettingsRepository().clock(on: db)
        let sections: [(AppSection, Int)] = [(.home, 40), (.chat, 300), (.desk, 180), (.learning, 240), (.calendar, 60), (.resources, 90), (.moods, 30)]
        var events: [MemberEvent] = []
        for (index, member) in members.enumerated() {
            // Some members use the app most days, some now and then, and a few stop after a few weeks.
            let everyNthDay = 1 + index % 4
            let stopsAfter = index % 5 == 4 ? 30 : 90
            for daysAgo in stride(from: min(stopsAfter, 89), through: 0, by: -1) where (daysAgo + index) % everyNthDay == 0 {
                let start = now.addingTimeInterval(-Double(daysAgo) * 86_400 - Double((index * 37 + daysAgo * 11) % 600) * 60)
                guard start > member.createdAt else { continue }
                let id = "demo-\(member.id)-\(daysAgo)"
                events.append(MemberEvent(kind: .appOpened, memberID: member.id, cohortID: member.cohort.id, occurredAt: start, clientID: "\(id)-open"))
                let (section, seconds) = sections[(index + daysAgo) % sections.count]
                events.append(MemberEvent(
                    kind: .sectionViewed, memberID: member.id, cohortID: member.cohort.id, occurredAt: start.addingTimeInterval(20),
                    number: Int64(seconds + (daysAgo * 7) % 120), label: section.rawValue, clientID: "\(id)-section"
                ))
                if (daysAgo + index) % 3 == 0 {
                    // Moods lean positive, with harder days now and then.
                    let mood = Mood.allCases[(index * 3 + daysAgo * 5) % 11 < 6 ? (index + daysAgo) % 3 : 3 + (index + daysAgo) % 5]
                    events.append(MemberEvent(
                        kind: .moodRecorded, memberID: member.id, cohortID: member.cohort.id, occurredAt: start.addingTimeInterval(60),
                        label: mood.rawValue, clientID: "\(id)-mood"
                    ))
                }
            }
        }
        try await MemberEvents().record(events, clock: clock, on: db)
    }
}
