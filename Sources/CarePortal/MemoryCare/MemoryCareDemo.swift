import Foundation
import PortalPlatform
import SQLKit

/// A clearly marked demo of memory care: two care receivers and two caregivers (names ending "(demo)",
/// addresses at example.invalid), her contacts and memories (one secured, sealed under her own key), a link
/// in force, a link she ended, an open invitation, and the access log the reads left.
extension DemoData {
    func seedMemoryCare(on db: any SQLDatabase) async throws {
        let repository = CareRepository()
        let people: [(CareAccountKind, String, String, Double)] = [
            (.careReceiver, "Eleanor Price (demo)", "eleanor.demo@example.invalid", 60),
            (.careReceiver, "Arthur Bell (demo)", "arthur.demo@example.invalid", 20),
            (.caregiver, "Ruth Price (demo)", "ruth.demo@example.invalid", 58),
            (.caregiver, "Sam Okoye (demo)", "sam.demo@example.invalid", 40)
        ]
        var ids: [Int64] = []
        for (kind, name, email, daysAgo) in people {
            let registered = now.addingTimeInterval(-daysAgo * 86_400)
            guard
                let id = try await repository.createAccount(
                    kind: kind,
                    email: email,
                    name: name,
                    passwordHash: appPasswordHash,
                    now: registered,
                    on: db
                )
            else { return }
            _ = try await db.update("care_accounts").set("status", to: CareAccount.Status.active.rawValue)
                .set("confirmed_at", to: registered.addingTimeInterval(600).millisecondsSince1970).where("id", .equal, id).run()
            try await repository.markActivity(accountID: id, at: now.addingTimeInterval(-Double(ids.count + 1) * 5_400), on: db)
            ids.append(id)
        }
        let (eleanor, arthur, ruth, sam) = (ids[0], ids[1], ids[2], ids[3])
        // Her PIN is a secret nobody is told: the demo shows that she has one, and her secured memory stays shut.
        try await repository.setPIN(hash: appAnswerHash, accountID: eleanor, on: db)
        try await repository.saveSettings(
            CareSettings(supportPhone: "0800 555 0199", supportEmail: "memory-care.demo@example.invalid"),
            by: nil,
            now: now,
            on: db
        )

        var contacts: [Int64] = []
        let contactDetails = [
            ContactContent(name: "Ruth Price (demo)", phones: ["07700 900123"], email: "ruth.demo@example.invalid", address: "", company: ""),
            ContactContent(
                name: "Dr Hannah Lee (demo)",
                phones: ["01632 960456"],
                email: "",
                address: "Demo Health Centre, 1 Example Road",
                company: "Demo Health Centre"
            ),
            ContactContent(name: "Tom the neighbour (demo)", phones: ["07700 900789"], email: "", address: "14 Example Close", company: "")
        ]
        for contact in contactDetails {
            let number = try await repository.nextChangeNumber(receiverID: eleanor, on: db)
            if let id = try await repository.insertContact(contact, clientID: nil, receiverID: eleanor, changeNumber: number, now: now, on: db) {
                contacts.append(id)
            }
        }
        let clock = try await ProgramSettingsRepository().clock(on: db)
        let today = clock.date(of: now)
        func at(_ days: Int, _ time: String) -> String { "\(today.adding(days: days).iso)T\(time)" }
        func content(
            _ title: String,
            _ category: MemoryCategory,
            happens: String? = nil,
            reminder: String? = nil,
            recurrence: Recurrence = .none,
            days: [Weekday] = [],
            status: MemoryStatus = .none,
            tags: [String] = [],
            location: String = "",
            emoji: String = "",
            description: String = "",
            people: [Int64] = [],
            fields: [String: String] = [:],
            items: [TodoItem] = []
        ) -> MemoryContent {
            MemoryContent(
                title: title,
                category: category.rawValue,
                happensAt: happens,
                reminderAt: reminder,
                recurrence: recurrence.rawValue,
                recurrenceDays: days.map(\.rawValue),
                status: status.rawValue,
                tags: tags,
                location: location,
                emoji: emoji,
                description: description,
                customFields: [],
                people: people,
                fields: fields,
                items: items
            )
        }
        let memories: [(MemoryType, Bool, MemoryContent, AppAccountRef)] = [
            (
                .appointment, false,
                content(
                    "Check-up with Dr Lee (demo)",
                    .health,
                    happens: at(3, "10:30"),
                    reminder: at(3, "09:00"),
                    status: .open,
                    tags: ["doctor"],
                    location: "Demo Health Centre",
                    emoji: "🩺",
                    people: [contacts[1]]
                ), .careReceiver(eleanor)
            ),
            (
                .todoList, false,
                content(
                    "Shopping (demo)",
                    .errands,
                    status: .open,
                    items: [
                        TodoItem(text: "Milk", done: true), TodoItem(text: "Bread", done: false),
                        TodoItem(text: "Birthday card for Ruth", done: false)
                    ]
                ), .caregiver(ruth)
            ),
            (
                .simpleTodo, false,
                content(
                    "Water the tomatoes (demo)",
                    .home,
                    reminder: at(1, "18:00"),
                    recurrence: .weekly,
                    days: [.mon, .thu],
                    status: .open,
                    emoji: "🍅"
                ), .careReceiver(eleanor)
            ),
            (
                .interaction, false,
                content(
                    "Ruth visited with the grandchildren (demo)",
                    .family,
                    happens: at(-2, "15:00"),
                    tags: ["family", "grandchildren"],
                    emoji: "❤️",
                    description: "We had tea in the garden and looked at the old photo albums.",
                    people: [contacts[0]]
                ), .careReceiver(eleanor)
            ),
            (
                .simpleMemory, false,
                content(
                    "Where the spare key is (demo)",
                    .home,
                    description: "With Tom next door, in the blue pot.",
                    people: [contacts[2]]
                ), .careReceiver(eleanor)
            ),
            (
                .websitePassword, true,
                content(
                    "Library account (demo)",
                    .other,
                    fields: [
                        "website": "library.example.invalid", "username": "eleanor.demo", "password": "demo-not-a-real-password"
                    ]
                ), .careReceiver(eleanor)
            )
        ]
        for (type, secured, memory, actor) in memories {
            let row = try await MemoryCare.row(
                type: type,
                secured: secured,
                clientID: nil,
                content: memory,
                by: actor,
                receiverID: eleanor,
                under: sealer,
                now: now,
                clock: clock,
                on: db
            )
            let number = try await repository.nextChangeNumber(receiverID: eleanor, on: db)
            _ = try await repository.insertMemory(row, receiverID: eleanor, changeNumber: number, now: now, on: db)
        }

        let daughter = CareGrant(scopes: [.reminders, .plans, .memories], categories: [.family, .health])
        let ruthLink = try await repository.createLink(
            receiverID: eleanor,
            caregiverID: ruth,
            grant: daughter,
            now: now.addingTimeInterval(-50 * 86_400),
            on: db
        )
        try await repository.addLinkEvent(
            linkID: ruthLink,
            event: .granted,
            by: .careReceiver(eleanor),
            grant: CareGrant(scopes: [.reminders], categories: []),
            now: now.addingTimeInterval(-50 * 86_400),
            on: db
        )
        try await repository.addLinkEvent(
            linkID: ruthLink,
            event: .changed,
            by: .careReceiver(eleanor),
            grant: daughter,
            now: now.addingTimeInterval(-30 * 86_400),
            on: db
        )
        let worker = CareGrant(scopes: [.reminders], categories: [])
        let samLink = try await repository.createLink(
            receiverID: eleanor,
            caregiverID: sam,
            grant: worker,
            now: now.addingTimeInterval(-35 * 86_400),
            on: db
        )
        try await repository.addLinkEvent(
            linkID: samLink,
            event: .granted,
            by: .careReceiver(eleanor),
            grant: worker,
            now: now.addingTimeInterval(-35 * 86_400),
            on: db
        )
        _ = try await repository.revokeLink(id: samLink, now: now.addingTimeInterval(-7 * 86_400), on: db)
        try await repository.addLinkEvent(
            linkID: samLink,
            event: .revoked,
            by: .careReceiver(eleanor),
            grant: worker,
            now: now.addingTimeInterval(-7 * 86_400),
            on: db
        )
        let arthurLink = try await repository.createLink(
            receiverID: arthur,
            caregiverID: sam,
            grant: worker,
            now: now.addingTimeInterval(-15 * 86_400),
            on: db
        )
        try await repository.addLinkEvent(
            linkID: arthurLink,
            event: .granted,
            by: .careReceiver(arthur),
            grant: worker,
            now: now.addingTimeInterval(-15 * 86_400),
            on: db
        )
        for (hoursAgo, what) in [(50.0, CareAccessEntry.What.reminders), (26, .memories), (3, .reminders)] {
            try await repository.logAccess(
                receiverID: eleanor,
                caregiverID: ruth,
                what: what,
                recordID: nil,
                now: now.addingTimeInterval(-hoursAgo * 3_600),
                on: db
            )
        }
        // Feedback from both apps, one of them already handled.
        let inbox = FeedbackInbox.memoryCare.repository
        _ = try await inbox.add(
            .feedback,
            body: "(Demo feedback) The big buttons help. Could reminders say who added them?",
            from: .careReceiver(eleanor),
            now: now.addingTimeInterval(-2 * 86_400),
            on: db
        )
        let handled = try await inbox.add(
            .bugReport,
            body: "(Demo bug report) A reminder came twice on Tuesday morning.",
            from: .caregiver(ruth),
            now: now.addingTimeInterval(-5 * 86_400),
            on: db
        )
        if let admin = account(.administrator) {
            _ = try await inbox.markHandled(id: handled, by: admin.id, now: now.addingTimeInterval(-4 * 86_400), on: db)
        }

        _ = try await repository.createInvitation(
            receiverID: arthur,
            codeHash: SecretToken.hash("care-invitation:demo-\(DemoData.password(dependencies.randomBytes))"),
            grant: CareGrant(scopes: [.reminders, .location], categories: []),
            now: now,
            expiresAt: now.addingTimeInterval(InvitationCode.lifetime),
            on: db
        )
    }
}
