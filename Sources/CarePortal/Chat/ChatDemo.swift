import Foundation
import PortalPlatform
import SQLKit
import SafeHTML

/// Demo conversations in two rooms for `seed-demo` (the web app's demo member's and the largest other),
/// posted in the last hours so they are inside the
/// rooms' window when the demo starts (and gone a day later, as real messages would be).
extension DemoData {
    func seedChat(on db: any SQLDatabase) async throws {
        var everyone = MemberListQuery()
        everyone.page = PageRequest(number: 1, size: 200)
        let members = try await MemberRepository().list(everyone, on: db).items.filter { $0.status == .active }
        // The room of the member the demo signs in to the web app with first, so she has a conversation to read.
        let webAppMember = MembersFeature.appParts.first?.demoIdentifier
        // Rooms of the same size in the order of their cohorts, so every seeding picks the same two.
        let rooms = Dictionary(grouping: members, by: \.cohort.id).sorted { $0.key < $1.key }.map(\.value)
            .sorted {
                ($0.contains { $0.pseudonym == webAppMember } ? 1 : 0, $0.count) > ($1.contains { $0.pseudonym == webAppMember } ? 1 : 0, $1.count)
            }
            .prefix(2)
        let lines = [
            "Anyone else awake? Third night in a row the baby is kicking at 3am. (demo data)",
            "Same here. I lie on my left side with a pillow between my knees, it helps a bit. (demo data)",
            "My clinic moved my dose to split morning and evening, feeling much steadier. (demo data)",
            "That's great news. I have my scan on Thursday and I'm nervous. (demo data)",
            "You've got this. Tell us how it goes! (demo data)"
        ]
        let repository = ChatRepository()
        var reported: Int64?
        for room in rooms {
            for (index, line) in lines.enumerated() {
                let author = room[index % room.count]
                let posted = try await repository.post(
                    cohortID: author.cohort.id,
                    memberID: author.id,
                    kind: .text,
                    body: line,
                    bodyHTML: try SafeHTML.renderPlainText(line).html,
                    mood: nil,
                    clientID: "demo-\(index)",
                    now: now.addingTimeInterval(-Double(lines.count - index) * 1_500),
                    on: db
                )
                if index == 1 { reported = reported ?? posted.message.id }
            }
            let mood = Mood.allCases[room.count % Mood.allCases.count]
            _ = try await repository.post(
                cohortID: room[0].cohort.id,
                memberID: room[0].id,
                kind: .mood,
                body: mood.roomText,
                bodyHTML: HTMLEscaping.escape(mood.roomText),
                mood: mood,
                clientID: "demo-mood",
                now: now.addingTimeInterval(-600),
                on: db
            )
            try await MemberEvents().record(
                MemberEvent(
                    kind: .moodRecorded,
                    memberID: room[0].id,
                    cohortID: room[0].cohort.id,
                    occurredAt: now.addingTimeInterval(-600),
                    label: mood.rawValue
                ),
                on: db
            )
        }
        if let reported, let reporter = rooms.first?.last {
            try await repository.report(
                messageID: reported,
                memberID: reporter.id,
                reason: "Not sure this is safe advice (demo data)",
                now: now,
                on: db
            )
        }
        try await repository.setRecommendedReading(
            RecommendedReading(title: "Feeling flat in pregnancy (demo data)", url: "https://www.nhs.uk/pregnancy/keeping-well/mental-health/"),
            now: now,
            on: db
        )
    }
}
