import PortalPlatform
import SQLKit

/// The pharmacy: its customers and their app tokens, password-reset links, prescriptions on file, the
/// refill queue, store visits, deals, the voucher catalogue, vouchers and the store's beacons.
struct CreatePharmacy: Migration {
    let version = 25
    let name = "CreatePharmacy"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "pharmacy_customers")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("email", type: .text, .notNull)
            // The address in lower case: one account per address however it is typed.
            .column("email_key", type: .text, .notNull)
            .column("password_hash", type: .text, .notNull)
            .column("first_name", type: .text, .notNull)
            .column("last_name", type: .text, .notNull)
            .column("date_of_birth", type: .text, .notNull)
            .column("phone", type: .text, .notNull)
            // The delivery address; empty until she saves one.
            .column("address_line1", type: .text, .notNull)
            .column("address_line2", type: .text, .notNull)
            .column("city", type: .text, .notNull)
            .column("state", type: .text, .notNull)
            .column("zip_code", type: .text, .notNull)
            .column("status", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("last_active_at", type: .bigint)
            .run()
        try await db.create(index: "pharmacy_customers_email").on("pharmacy_customers").column("email_key").unique().run()
        try await db.create(index: "pharmacy_customers_name").on("pharmacy_customers").column("last_name").column("first_name").run()

        try await db.create(table: "pharmacy_customer_tokens")
            .column("token_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("customer_id", type: .bigint, .notNull, .references("pharmacy_customers", "id", onDelete: .cascade))
            .column("created_at", type: .bigint, .notNull)
            .column("renewed_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            // Her password typed again on this token: prescriptions may be listed until then.
            .column("step_up_until", type: .bigint)
            .run()
        try await db.create(index: "pharmacy_customer_tokens_customer").on("pharmacy_customer_tokens").column("customer_id").run()

        try await db.create(table: "pharmacy_password_resets")
            .column("token_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("customer_id", type: .bigint, .notNull, .references("pharmacy_customers", "id", onDelete: .cascade))
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("used_at", type: .bigint)
            .run()

        try await db.create(table: "pharmacy_prescriptions")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("customer_id", type: .bigint, .notNull, .references("pharmacy_customers", "id", onDelete: .cascade))
            .column("medication", type: .text, .notNull)
            .column("strength", type: .text, .notNull)
            .column("quantity", type: .text, .notNull)
            .column("refills_remaining", type: .bigint, .notNull)
            .column("prescriber", type: .text, .notNull)
            // `YYYY-MM-DD` on the program's clock; null before the pharmacy first fills it.
            .column("last_filled", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            // Taken off file: kept for the refills that name it, no longer offered in the app.
            .column("removed_at", type: .bigint)
            .run()
        try await db.create(index: "pharmacy_prescriptions_customer").on("pharmacy_prescriptions").column("customer_id").run()

        try await db.create(table: "pharmacy_refills")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("customer_id", type: .bigint, .notNull, .references("pharmacy_customers", "id", onDelete: .cascade))
            .column("prescription_id", type: .bigint, .notNull, .references("pharmacy_prescriptions", "id"))
            .column("fulfilment", type: .text, .notNull)
            // The address it goes to, copied when she asked, so a later change of address does not move it.
            .column("delivery_address", type: .text)
            .column("status", type: .text, .notNull)
            .column("cancel_reason", type: .text)
            .column("requested_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "pharmacy_refills_queue").on("pharmacy_refills").column("status").column("requested_at").column("id").run()
        try await db.create(index: "pharmacy_refills_customer").on("pharmacy_refills").column("customer_id").column("id").run()

        try await db.create(table: "pharmacy_visits")
            .column("customer_id", type: .bigint, .notNull, .references("pharmacy_customers", "id", onDelete: .cascade))
            // `YYYY-MM-DD` on the program's clock: one visit a day counts.
            .column("day", type: .text, .notNull)
            .column("beacon_id", type: .bigint)
            .column("visited_at", type: .bigint, .notNull)
            .primaryKey("customer_id", "day")
            .run()

        try await db.create(table: "pharmacy_deals")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("title", type: .text, .notNull)
            .column("description", type: .text, .notNull)
            // `YYYY-MM-DD` on the program's clock, both days included.
            .column("valid_from", type: .text, .notNull)
            .column("valid_until", type: .text, .notNull)
            // An optional picture: a name the server chose under `DATA_DIR/deals`, and the type its bytes were recognised as.
            .column("picture_file", type: .text)
            .column("picture_type", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "pharmacy_deals_until").on("pharmacy_deals").column("valid_until").run()

        try await db.create(table: "pharmacy_rewards")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("title", type: .text, .notNull)
            .column("points_cost", type: .bigint, .notNull)
            .column("cashier_gives", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            // No longer offered; vouchers already redeemed for it stay good.
            .column("retired_at", type: .bigint)
            .run()

        try await db.create(table: "pharmacy_vouchers")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("customer_id", type: .bigint, .notNull, .references("pharmacy_customers", "id", onDelete: .cascade))
            .column("reward_id", type: .bigint, .notNull, .references("pharmacy_rewards", "id"))
            .column("code", type: .text, .notNull)
            .column("points_cost", type: .bigint, .notNull)
            .column("redeemed_at", type: .bigint, .notNull)
            .column("activated_at", type: .bigint)
            .column("expires_at", type: .bigint)
            .column("used_at", type: .bigint)
            .run()
        try await db.create(index: "pharmacy_vouchers_code").on("pharmacy_vouchers").column("code").unique().run()
        try await db.create(index: "pharmacy_vouchers_customer").on("pharmacy_vouchers").column("customer_id").column("id").run()

        try await db.create(table: "pharmacy_beacons")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            // Lower case, as `UUID` prints it in lower case here.
            .column("uuid", type: .text, .notNull)
            .column("major", type: .bigint, .notNull)
            .column("minor", type: .bigint, .notNull)
            .column("name", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()
        try await db.create(index: "pharmacy_beacons_identity").on("pharmacy_beacons").column("uuid").column("major").column("minor").unique().run()
    }
}
