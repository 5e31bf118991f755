import PortalPlatform
import SQLKit

struct CreatePatients: Migration {
    let version = 11
    let name = "CreatePatients"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "patients")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("physician_id", type: .bigint, .notNull, .references("staff_accounts", "id"))
            .column("first_name", type: .text, .notNull)
            .column("middle_name", type: .text, .notNull)
            .column("last_name", type: .text, .notNull)
            // Lower-cased "last first" in byte order on both engines, so the list sorts the same by last name everywhere.
            .column("name_key", type: engine == .postgres ? .custom(SQLRaw(#"TEXT COLLATE "C""#)) : .text, .notNull)
            .column("medical_number", type: .text, .notNull)
            // Upper-cased without spaces or hyphens: one patient per number for each physician.
            .column("medical_number_key", type: engine == .postgres ? .custom(SQLRaw(#"TEXT COLLATE "C""#)) : .text, .notNull)
            .column("email", type: .text, .notNull)
            .column("phone", type: .text, .notNull)
            .column("address", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("last_activity_at", type: .bigint)
            .run()
        try await db.create(index: "patients_physician_name").on("patients").column("physician_id").column("name_key").column("id").run()
        try await db.create(index: "patients_physician_number").on("patients").unique()
            .column("physician_id").column("medical_number_key").run()

        // The app account made with the patient; claimed with the emailed token.
        try await db.create(table: "patient_accounts")
            .column("patient_id", type: .bigint, .primaryKey(autoIncrement: false), .references("patients", "id", onDelete: .cascade))
            .column("username", type: .text)
            .column("username_key", type: .text, .unique)
            .column("password_hash", type: .text)
            .column("claim_token_hash", type: .text, .unique)
            .column("claim_sent_at", type: .bigint)
            .column("claim_expires_at", type: .bigint)
            .column("claim_revoked_at", type: .bigint)
            .column("claimed_at", type: .bigint)
            .column("reminder_hours", type: .int)
            .column("reminder_email", type: .int, .notNull, .default(0))
            .column("next_reminder_at", type: .bigint)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "patient_accounts_reminders").on("patient_accounts").column("next_reminder_at").run()

        try await db.create(table: "patient_tokens")
            .column("token_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("patient_id", type: .bigint, .notNull, .references("patients", "id", onDelete: .cascade))
            .column("created_at", type: .bigint, .notNull)
            .column("renewed_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "patient_tokens_patient").on("patient_tokens").column("patient_id").run()
        try await db.create(index: "patient_tokens_expires").on("patient_tokens").column("expires_at").run()

        // Each prescribed medication or exercise, in force from `starts_on` until the day before `ends_on`
        // (days since 1970-01-01, UTC). A change ends the row and starts a new one: the regimen's history.
        try await db.create(table: "prescriptions")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("patient_id", type: .bigint, .notNull, .references("patients", "id", onDelete: .cascade))
            .column("kind", type: .text, .notNull)
            .column("medication_id", type: .bigint, .references("catalogue_medications", "id"))
            .column("exercise_id", type: .bigint, .references("catalogue_exercises", "id"))
            // The dose (medications) or amount (exercises) as prescribed.
            .column("dose", type: .text, .notNull)
            .column("amount_id", type: .bigint, .references("catalogue_exercise_amounts", "id"))
            .column("frequency_id", type: .bigint, .references("catalogue_frequencies", "id"))
            // The frequency as it was when prescribed, so a later catalogue change never rewrites the past.
            .column("frequency_name", type: .text, .notNull)
            .column("times_per_day", type: .int, .notNull)
            .column("every_days", type: .int, .notNull)
            .column("note", type: .text, .notNull)
            .column("position", type: .int, .notNull)
            .column("starts_on", type: .int, .notNull)
            .column("ends_on", type: .int)
            .column("created_at", type: .bigint, .notNull)
            .column("created_by", type: .bigint)
            .column("ended_at", type: .bigint)
            .column("ended_by", type: .bigint)
            .run()
        try await db.create(index: "prescriptions_patient").on("prescriptions").column("patient_id").column("starts_on").run()

        // What the patient logged for one dose or exercise session: (prescription, day, slot) is logged once.
        try await db.create(table: "adherence_logs")
            .column("prescription_id", type: .bigint, .notNull, .references("prescriptions", "id", onDelete: .cascade))
            .column("on_day", type: .int, .notNull)
            .column("slot", type: .int, .notNull)
            .column("patient_id", type: .bigint, .notNull, .references("patients", "id", onDelete: .cascade))
            .column("status", type: .text, .notNull)
            .column("logged_at", type: .bigint, .notNull)
            .primaryKey("prescription_id", "on_day", "slot")
            .run()
        // Every column the summaries read, so a patient's days are read from the index alone.
        try await db.create(index: "adherence_logs_patient_day").on("adherence_logs")
            .column("patient_id").column("on_day").column("prescription_id").column("slot").column("status").run()
        try await db.create(index: "adherence_logs_patient_logged").on("adherence_logs").column("patient_id").column("logged_at").run()

        // A physician's add-patient wizard saved at every step.
        try await db.create(table: "patient_drafts")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("physician_id", type: .bigint, .notNull, .references("staff_accounts", "id", onDelete: .cascade))
            .column("step", type: .text, .notNull)
            .column("data", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "patient_drafts_physician").on("patient_drafts").column("physician_id").column("updated_at").run()
    }
}
