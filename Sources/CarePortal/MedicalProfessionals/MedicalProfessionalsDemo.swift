import Foundation
import PortalPlatform
import SQLKit

/// The demo medical professional's profile and two invitations for `seed-demo`.
extension DemoData {
    func seedMedicalProfessionals(on db: any SQLDatabase) async throws {
        if let account = account(.medicalProfessional) {
            try await StaffProfileRepository().create(
                StaffProfile(
                    firstName: "Morgan",
                    lastName: "Demo (demo data)",
                    dateOfBirth: CalendarDate(year: 1985, month: 6, day: 14)!,
                    avatar: Avatar.medical("medical-leaf")!,
                    bio: "Demo account. A nurse who answers questions about medication and recovery."
                ),
                accountID: account.id,
                on: db
            )
        }
        if let administrator = account(.administrator) {
            try await inviteMedicalProfessionals(invitedBy: administrator.id, on: db)
        }
    }

    /// Two medical professionals invited by the demo administrator; their emails wait in the outbox, sealed.
    private func inviteMedicalProfessionals(invitedBy administratorID: Int64, on db: any SQLDatabase) async throws {
        let invitees = [
            Invitee(
                firstName: "Amira",
                lastName: "Haddad",
                dateOfBirth: CalendarDate(year: 1984, month: 2, day: 11)!,
                email: "amira.haddad@example.org"
            ),
            Invitee(
                firstName: "Tomás",
                lastName: "Reyes",
                dateOfBirth: CalendarDate(year: 1979, month: 9, day: 23)!,
                email: "tomas.reyes@example.org"
            )
        ]
        let clock = try await ProgramSettingsRepository().clock(on: db)
        for invitee in invitees {
            let token = SecretToken(randomBytes: dependencies.randomBytes)
            let invitation = try await StaffInvitationRepository().create(
                invitee,
                token: token,
                createdBy: administratorID,
                now: now,
                on: db
            )
            try await outbox.enqueue(.invitation(invitation, token: token, settings: settings, clock: clock), on: db)
        }
    }
}
