import Foundation
import PortalPlatform
import SQLKit

/// The username is already used by another patient's app account.
struct PatientUsernameTaken: Error {}

/// The only place patients' app accounts are read and written. Only hashes of claim tokens and passwords are kept.
struct PatientAccountRepository: Sendable {
    /// The account made with the patient, waiting to be claimed with `token`.
    func create(patientID: Int64, token: ClaimToken, now: Date, on db: any SQLDatabase) async throws {
        let time = now.millisecondsSince1970
        try await db.insert(into: "patient_accounts")
            .columns(
                "patient_id",
                "claim_token_hash",
                "claim_sent_at",
                "claim_expires_at",
                "reminder_hours",
                "reminder_email",
                "created_at",
                "updated_at"
            )
            .values(
                SQLBind(patientID),
                SQLBind(token.hash),
                SQLBind(time),
                SQLBind(ClaimTokens.expiry(sentAt: now).millisecondsSince1970),
                SQLBind(ReminderSettings.standard.frequency.hours),
                SQLBind(ReminderSettings.standard.email ? 1 : 0),
                SQLBind(time),
                SQLBind(time)
            )
            .run()
    }

    func find(patientID: Int64, on db: any SQLDatabase) async throws -> PatientAccount? {
        try await db.select().columns(Self.columns).from("patient_accounts").where("patient_id", .equal, patientID).first().map(decode)
    }

    /// The shared claim-token machinery on `patient_accounts`.
    static let claims = ClaimTokens(table: "patient_accounts", key: "patient_id")

    /// A new token for an account not yet claimed; the earlier one stops working. False once claimed.
    func renewClaim(patientID: Int64, token: ClaimToken, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await Self.claims.issue(ownerID: patientID, token: token, now: now, on: db)
    }

    /// Stops the current claim token at once. False when there is none to stop.
    func revokeClaim(patientID: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await Self.claims.revoke(ownerID: patientID, now: now, on: db)
    }

    /// Claims the account a token opens, only if it still can be: of two claims with one token, one wins.
    func claim(token: String, username: String, passwordHash: String, now: Date, on db: any SQLDatabase) async throws -> Int64? {
        let key = usernameKey(username)
        if try await db.select().column("patient_id").from("patient_accounts").where("username_key", .equal, key).first() != nil {
            throw PatientUsernameTaken()
        }
        return try await Self.claims.claim(token: token, now: now, on: db) { update in
            update.set("username", to: username).set("username_key", to: key).set("password_hash", to: passwordHash)
        }
    }

    /// The claimed account a username signs in to, with its password hash.
    func credentials(username: String, on db: any SQLDatabase) async throws -> (patientID: Int64, passwordHash: String)? {
        guard
            let row = try await db.select().columns("patient_id", "password_hash").from("patient_accounts")
                .where("username_key", .equal, usernameKey(username))
                .where("claimed_at", .isNot, SQLLiteral.null)
                .first(),
            let hash = try row.decode(column: "password_hash", as: String?.self)
        else { return nil }
        return (try row.decode(column: "patient_id", as: Int64.self), hash)
    }

    /// Saves the reminder settings; the first reminder is due one interval from now when email is on.
    func setReminders(patientID: Int64, _ settings: ReminderSettings, now: Date, on db: any SQLDatabase) async throws {
        let next = settings.email ? now.addingTimeInterval(TimeInterval(settings.frequency.hours * 3600)).millisecondsSince1970 : nil
        try await db.update("patient_accounts")
            .set("reminder_hours", to: settings.frequency.hours)
            .set("reminder_email", to: settings.email ? 1 : 0)
            .set("next_reminder_at", to: next)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("patient_id", .equal, patientID)
            .run()
    }

    /// A reminder that is due: whose, to which address, and when it was due.
    struct DueReminder: Sendable {
        let patientID: Int64
        let email: String
        let firstName: String
        let hours: Int
        let dueAt: Date
    }

    /// Claimed accounts with email reminders on whose next reminder is due.
    func dueReminders(now: Date, limit: Int, on db: any SQLDatabase) async throws -> [DueReminder] {
        try await db.raw(
            """
            SELECT a.patient_id, a.reminder_hours, a.next_reminder_at, p.email, p.first_name
            FROM patient_accounts a JOIN patients p ON p.id = a.patient_id
            WHERE a.reminder_email = 1 AND a.claimed_at IS NOT NULL AND a.next_reminder_at <= \(bind: now.millisecondsSince1970)
            ORDER BY a.next_reminder_at
            LIMIT \(bind: limit)
            """
        ).all().map { row in
            DueReminder(
                patientID: try row.decode(column: "patient_id", as: Int64.self),
                email: try row.decode(column: "email", as: String.self),
                firstName: try row.decode(column: "first_name", as: String.self),
                hours: try row.decode(column: "reminder_hours", as: Int?.self) ?? 24,
                dueAt: Date(millisecondsSince1970: try row.decode(column: "next_reminder_at", as: Int64.self))
            )
        }
    }

    /// Moves a due reminder on to `next`, only if no other server did first.
    func advanceReminder(_ reminder: DueReminder, to next: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("patient_accounts")
            .set("next_reminder_at", to: next.millisecondsSince1970)
            .where("patient_id", .equal, reminder.patientID)
            .where("next_reminder_at", .equal, reminder.dueAt.millisecondsSince1970)
            .returning("patient_id")
            .first() != nil
    }

    private static let columns = [
        "patient_id", "username", "claim_sent_at", "claim_expires_at", "claim_revoked_at", "claimed_at", "reminder_hours", "reminder_email"
    ]

    private func decode(_ row: any SQLRow) throws -> PatientAccount {
        func instant(_ column: String) throws -> Date? {
            try row.decode(column: column, as: Int64?.self).map(Date.init(millisecondsSince1970:))
        }
        return PatientAccount(
            patientID: try row.decode(column: "patient_id", as: Int64.self),
            username: try row.decode(column: "username", as: String?.self),
            claimSentAt: try instant("claim_sent_at"),
            claimExpiresAt: try instant("claim_expires_at"),
            claimRevokedAt: try instant("claim_revoked_at"),
            claimedAt: try instant("claimed_at"),
            reminders: ReminderSettings(
                frequency: (try row.decode(column: "reminder_hours", as: Int?.self)).flatMap(ReminderSettings.Frequency.init(hours:))
                    ?? ReminderSettings.standard.frequency,
                email: (try row.decode(column: "reminder_email", as: Int.self)) != 0
            )
        )
    }
}
