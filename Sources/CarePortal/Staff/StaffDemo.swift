import Foundation
import PortalPlatform
import SQLKit

/// `seed-demo`'s staff step: a physician invited by the demo administrator (the email waits in the
/// outbox, sealed), so the Staff accounts page shows an open invitation of a role other than
/// medical professional.
extension DemoData {
    func seedStaffInvitations(on db: any SQLDatabase) async throws {
        guard let administrator = account(.administrator) else { return }
        let invitee = Invitee(
            firstName: "Jordan",
            lastName: "Demo (demo data)",
            dateOfBirth: nil,
            email: "jordan.demo@example.org",
            role: .physician
        )
        let token = SecretToken(randomBytes: dependencies.randomBytes)
        let invitation = try await StaffInvitationRepository().create(invitee, token: token, createdBy: administrator.id, now: now, on: db)
        try await outbox.enqueue(
            .invitation(invitation, token: token, settings: settings, clock: try await ProgramSettingsRepository().clock(on: db)),
            on: db
        )
    }
}
