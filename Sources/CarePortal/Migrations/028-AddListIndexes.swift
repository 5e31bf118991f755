import PortalPlatform
import SQLKit

/// Every staff list seeks to its page (`SQLDatabase.seek`): each filter and order it offers has an index
/// whose columns are the filter's, then the order's keys, then the id, so a page deep in the list or
/// narrowed by a filter reads only its own rows. Indexes the new ones begin with are dropped.
struct AddListIndexes: Migration {
    let version = 28
    let name = "AddListIndexes"

    /// Each index's name, table and columns.
    static let indexes: [(name: String, table: String, columns: [String])] = [
        ("members_pseudonym_id", "members", ["pseudonym_key", "id"]),
        ("members_cohort_pseudonym", "members", ["cohort_id", "pseudonym_key", "id"]),
        ("members_cohort_created", "members", ["cohort_id", "created_at", "id"]),
        ("members_cohort_last_active", "members", ["cohort_id", "last_active_at", "id"]),
        ("members_status_pseudonym", "members", ["status", "pseudonym_key", "id"]),
        ("members_status_created", "members", ["status", "created_at", "id"]),
        ("members_status_last_active", "members", ["status", "last_active_at", "id"]),
        ("audit_log_time_id", "audit_log", ["occurred_at", "id"]),
        ("audit_log_actor_time", "audit_log", ["actor_account_id", "occurred_at", "id"]),
        ("audit_log_action_time", "audit_log", ["action", "occurred_at", "id"]),
        ("audit_log_record", "audit_log", ["record_type", "record_id", "occurred_at", "id"]),
        ("outbox_created_id", "outbox", ["created_at", "id"]),
        ("outbox_status_created", "outbox", ["status", "created_at", "id"]),
        ("desk_moderation_log_time_id", "desk_moderation_log", ["happened_at", "id"]),
        ("desk_moderation_log_action", "desk_moderation_log", ["action", "happened_at", "id"]),
        ("desk_moderation_log_thread", "desk_moderation_log", ["thread_id", "happened_at", "id"]),
        ("patients_name", "patients", ["name_key", "id"]),
        ("patients_number", "patients", ["medical_number_key", "id"]),
        ("patients_physician_number_id", "patients", ["physician_id", "medical_number_key", "id"]),
        ("staff_accounts_username_id", "staff_accounts", ["username_key", "id"]),
        ("staff_accounts_created_id", "staff_accounts", ["created_at", "id"]),
        ("pharmacy_customers_name_id", "pharmacy_customers", ["last_name", "first_name", "id"]),
        ("sign_up_codes_created_id", "sign_up_codes", ["created_at", "id"]),
        ("broadcasts_send", "broadcasts", ["send_at", "id"]),
        ("surveys_created", "surveys", ["created_at", "id"]),
        ("points_ledger_history", "points_ledger", ["account_role", "account_id", "id"]),
        ("study_participants_code_id", "study_participants", ["study_code_key", "id"]),
        ("learning_modules_list", "learning_modules", ["category", "position", "title", "id"])
    ]

    /// Replaced by an index above that starts with the same columns.
    static let replaced = [
        "members_cohort", "audit_log_time", "audit_log_actor", "audit_log_action", "outbox_created", "desk_moderation_log_time",
        "pharmacy_customers_name", "sign_up_codes_created"
    ]

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        for index in Self.indexes {
            try await index.columns.reduce(db.create(index: index.name).on(index.table)) { $0.column($1) }.run()
        }
        for name in Self.replaced {
            try await db.drop(index: name).run()
        }
    }
}
