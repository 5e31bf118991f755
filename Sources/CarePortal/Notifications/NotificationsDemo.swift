import Foundation
import PortalPlatform
import SQLKit

/// Demo broadcasts for `seed-demo`: one sent to every member yesterday, one scheduled for next week.
extension DemoData {
    func seedNotifications(on db: any SQLDatabase) async throws {
        guard let admin = account(.administrator) else { return }
        let repository = BroadcastRepository()
        let feeds = MemberNotifications(notifications: Notifications(now: { now.addingTimeInterval(-86_400) }))
        let sent = NewBroadcast(
            title: "Group meeting moves to Thursday (demo data)",
            body: "This week's group meets on Thursday at 6pm instead of Wednesday, same room. Bring a friend if you like.\n(demo data)",
            cohortIDs: nil,
            sendAt: nil
        )
        let sentID = try await repository.insert(
            sent,
            status: .sent,
            sendAt: now.addingTimeInterval(-86_400),
            by: admin,
            now: now.addingTimeInterval(-86_400),
            on: db
        )
        try await repository.claimSent(id: sentID, now: now.addingTimeInterval(-86_400), on: db)
        let count = try await feeds.notifyMembers(
            of: nil,
            NewNotification(kind: .broadcast, message: sent.title, body: sent.body, subject: .broadcast(sentID)),
            on: db
        )
        try await repository.setRecipientCount(count, id: sentID, on: db)
        let later = NewBroadcast(
            title: "Holiday opening hours (demo data)",
            body:
                "The clinic closes at noon on Friday. The 988 Lifeline and the National Maternal Mental Health Hotline (1-833-852-6262) answer day and night.\n(demo data)",
            cohortIDs: nil,
            sendAt: now.addingTimeInterval(7 * 86_400)
        )
        _ = try await repository.insert(later, status: .scheduled, sendAt: now.addingTimeInterval(7 * 86_400), by: admin, now: now, on: db)
    }
}
