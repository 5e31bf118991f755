import Foundation
import PortalPlatform
import SafeHTML
import SQLKit

/// A clearly marked demo study: five participants ("DEMO-" study ids, arm "Demo arm …") with three weeks
/// of to-dos, app opens and feedback, one of them withdrawn, a sixth enrolled yesterday whose emailed
/// claim token waits in the outbox (sealed), a demo contact page, two demo care locations and two demo video links. Their app logins share a password nobody is told.
enum StudiesDemo {
    static let participantCount = 6

    static func seed(_ demo: DemoData, on db: any SQLDatabase) async throws {
        let studies = StudyRepository(), events = MemberEvents()
        let clock = ProgramSettings.defaults(programName: "CarePortal").clock
        let today = clock.date(of: demo.now)
        let schedule = try await studies.schedule(on: db)
        let researcher = demo.account(.researcher) ?? demo.account(.administrator)
        // How often each demo participant does each to-do, so the dashboard and exports show a spread.
        let habits: [(code: String, arm: String, enrolledDaysAgo: Int, doneEvery: Int, withdrawnDaysAgo: Int?)] = [
            ("DEMO-001", "Demo arm A", 21, 1, nil), ("DEMO-002", "Demo arm A", 21, 2, nil), ("DEMO-003", "Demo arm B", 18, 3, nil),
            ("DEMO-004", "Demo arm B", 14, 1, 5), ("DEMO-005", "Demo arm B", 7, 4, nil)
        ]
        for (index, habit) in habits.enumerated() {
            let enrolled = today.adding(days: -habit.enrolledDaysAgo)
            let id = try await studies.enrol(
                studyCode: habit.code,
                arm: habit.arm,
                email: "\(habit.code.lowercased())@demo.invalid",
                enrolledOn: enrolled,
                passwordHash: demo.appPasswordHash,
                now: clock.instant(on: enrolled, atMinute: 9 * 60),
                on: db
            )
            try await studies.setPassword(id: id, hash: demo.appPasswordHash, now: clock.instant(on: enrolled, atMinute: 9 * 60 + 30), on: db)
            if let days = habit.withdrawnDaysAgo {
                _ = try await studies.withdraw(id: id, on: today.adding(days: -days), now: demo.now, on: db)
            }
            let last = today.dayNumber - (habit.withdrawnDaysAgo ?? 0) - (habit.withdrawnDaysAgo == nil ? 0 : 1)
            for day in enrolled.dayNumber...max(enrolled.dayNumber, last) {
                let date = CalendarDate(dayNumber: day)
                let opened = clock.instant(on: date, atMinute: 7 * 60 + 15 + index * 20)
                guard opened <= demo.now else { continue }
                _ = try await studies.recordOpen(participantID: id, day: date, now: opened, on: db)
                try await events.record(ParticipantEvent(kind: .studyAppOpened, participantID: id, occurredAt: opened), on: db)
                for (position, item) in schedule.items(on: date).enumerated() where (day + position + index) % habit.doneEvery == 0 {
                    let marked = opened.addingTimeInterval(TimeInterval(600 + position * 60))
                    guard marked <= demo.now else { continue }
                    _ = try await studies.mark(participantID: id, itemID: item.id, day: date, now: marked, on: db)
                    try await events.record(ParticipantEvent(kind: .studyTodoDone, participantID: id, occurredAt: marked, number: item.id), on: db)
                }
            }
            let messages = [
                "(Demo feedback) The reminder to take folate helps. Could the exercise ideas include some for the third trimester?",
                "(Demo feedback) I couldn't find the clinic's Saturday hours <b>anywhere</b> & the map pin looked wrong."
            ]
            if index < messages.count {
                let sent = demo.now.addingTimeInterval(TimeInterval(-(index + 1) * 86_400))
                let inbox = FeedbackRepository(program: .researchStudy)
                let feedbackID = try await inbox.add(.feedback, body: messages[index], from: .participant(id), now: sent, on: db)
                try await events.record(ParticipantEvent(kind: .studyFeedbackSent, participantID: id, occurredAt: sent), on: db)
                if index == 0, let researcher { _ = try await inbox.markHandled(id: feedbackID, by: researcher.id, now: demo.now, on: db) }
            }
        }
        // Enrolled yesterday with a claim token emailed to her (a demo address), not yet claimed.
        let yesterday = today.adding(days: -1)
        let sentAt = clock.instant(on: yesterday, atMinute: 10 * 60)
        let token = ClaimToken(randomBytes: demo.dependencies.randomBytes)
        _ = try await studies.enrol(
            studyCode: "DEMO-006",
            arm: "Demo arm A",
            email: "demo-006@demo.invalid",
            enrolledOn: yesterday,
            passwordHash: demo.appPasswordHash,
            claimToken: token,
            now: sentAt,
            on: db
        )
        try await demo.outbox.enqueue(
            .studyClaimToken(
                to: "demo-006@demo.invalid",
                username: "demo-006",
                token: token,
                expiresAt: ClaimTokens.expiry(sentAt: sentAt),
                settings: demo.settings,
                clock: try await ProgramSettingsRepository().clock(on: db)
            ),
            on: db
        )
        let contact = """
            **Demo contact page (demo data)** — replace it with the study's own details.

            - Study team: [study-team@demo.invalid](mailto:study-team@demo.invalid), weekdays 9:00 to 17:00
            - Appointments: call the demo clinic on 555-0100, or book at [the demo booking page](https://example.org/book)
            - In an emergency call 911.
            """
        let html = try SafeHTML.renderMarkdown(contact).html
        try await studies.saveContact(markdown: contact, html: html, by: researcher?.id, now: demo.now, on: db)
        try await seedCareLocations(demo, on: db)
        try await seedVideos(demo, on: db)
    }

    /// Two marked demo video links in two categories, published for participants.
    static func seedVideos(_ demo: DemoData, on db: any SQLDatabase) async throws {
        let content = LearningContentRepository()
        for (title, category, minutes, address) in [
            ("Ten-minute morning stretch (demo data)", "Fitness", 10, "https://videos.example.org/demo/morning-stretch"),
            ("Breastfeeding positions (demo data)", "Breastfeeding", 6, "https://videos.example.org/demo/feeding-positions")
        ] {
            _ = try await content.save(
                LearningVideo(
                    id: 0,
                    title: title,
                    description: "Demo entry: an example video link for the study's participants.",
                    category: category,
                    lengthSeconds: minutes * 60,
                    source: .link(address),
                    stage: .all,
                    status: .published
                ),
                program: VideoLibrary.study.program.id,
                now: demo.now,
                on: db
            )
        }
    }

    /// Two marked care locations with pins on the map, for the participants' list.
    static func seedCareLocations(_ demo: DemoData, on db: any SQLDatabase) async throws {
        let directory = HelpDirectoryRepository(program: DirectoryList.study.program.id)
        let places = [
            HelpResourceDraft(
                name: "Example: Riverside movement clinic (demo data)",
                kind: .careLocation,
                phone: PhoneNumber("615-555-0188"),
                textNumber: nil,
                webAddress: nil,
                hours: "Monday to Friday, 8am to 5pm",
                languages: "English and Spanish",
                description: "Demo entry: physiotherapy and the study's exercise classes.",
                address: "200 Example Street, Nashville, TN 37201",
                pin: MapPin(latitude: 36.1627, longitude: -86.7816),
                states: []
            ),
            HelpResourceDraft(
                name: "Example: Hillside study office (demo data)",
                kind: .careLocation,
                phone: PhoneNumber("615-555-0190"),
                textNumber: nil,
                webAddress: nil,
                hours: "Tuesdays and Thursdays, 9am to 1pm",
                languages: "English",
                description: "Demo entry: where study visits and questionnaires take place.",
                address: "15 Example Hill, Franklin, TN 37064",
                pin: MapPin(latitude: 35.9251, longitude: -86.8689),
                states: []
            )
        ]
        for place in places { _ = try await directory.insert(place, now: demo.now, on: db) }
    }
}
