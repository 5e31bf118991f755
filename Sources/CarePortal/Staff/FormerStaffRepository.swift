import Foundation
import PortalPlatform
import SQLKit

/// What deleting a staff account removes beyond the account row (her profiles, invitation, second
/// factor, links), and what stops it (patients still in her care). The only place this SQL lives.
struct FormerStaffRepository: Sendable {
    /// Patients a physician still looks after: they must go to another physician before she is deleted.
    func patientCount(physicianID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "patients") { $0.where("physician_id", .equal, physicianID) }
    }

    /// Removes her personal details kept beside the account: the invitation that named her, her
    /// profile, her second factor and recovery codes, her reset links and sign-in challenges.
    func removePersonalDetails(accountID: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "staff_invitations").where("account_id", .equal, accountID).run()
        for table in ["staff_profiles", "second_factors", "recovery_codes", "password_resets", "second_factor_challenges"] {
            try await db.delete(from: table).where("account_id", .equal, accountID).run()
        }
    }
}

extension StaffRole {
    /// How what she wrote is signed once her account is deleted: "Former medical professional".
    var formerTitle: String { "Former \(title.lowercased())" }
}
