import PortalPlatform
import SQLKit

/// The memory-care program (seed 003): care receivers keep their memories, contacts and reminders;
/// caregivers see and add only what a care receiver's link to them grants, and every read is logged
/// for her. Secured memories are sealed under a key of her own, itself sealed by the portal's key.
struct StartMemoryCare: Migration {
    let version = 61
    let name = "StartMemoryCare"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        // Care receivers and caregivers, told apart by `kind`; each kind signs in with its own tokens.
        try await db.create(table: "care_accounts")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("kind", type: .text, .notNull)
            .column("email", type: .text, .notNull)
            // The address as compared: trimmed and lowercased.
            .column("email_key", type: .text, .notNull)
            .column("name", type: .text, .notNull)
            .column("password_hash", type: .text, .notNull)
            // `unconfirmed` until the emailed link is followed, then `active`; staff may make it `disabled`.
            .column("status", type: .text, .notNull)
            // Her PIN for secured memories (care receivers only), hashed like a password.
            .column("pin_hash", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("confirmed_at", type: .bigint)
            .column("last_active_at", type: .bigint)
            // The change counter of everything she owns: each change takes the next number (`changes?since=`).
            .column("change_counter", type: .bigint, .notNull, .default(0))
            .run()
        try await db.create(index: "care_accounts_email").on("care_accounts").column("kind").column("email_key").unique().run()
        try await db.create(index: "care_accounts_kind").on("care_accounts").column("kind").column("status").column("id").run()

        for (table, stepUp) in [("care_receiver_tokens", true), ("caregiver_tokens", false)] {
            let create = db.create(table: table)
                .column("token_hash", type: .text, .primaryKey(autoIncrement: false))
                .column("account_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
                .column("created_at", type: .bigint, .notNull)
                .column("renewed_at", type: .bigint, .notNull)
                .column("expires_at", type: .bigint, .notNull)
            // Her PIN typed on this token: secured memories open until then.
            if stepUp { create.column("unlocked_until", type: .bigint) }
            try await create.run()
            try await db.create(index: "\(table)_account").on(table).column("account_id").run()
        }

        // Links emailed to confirm an address; only the token's hash is kept.
        try await db.create(table: "care_confirmations")
            .column("token_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("account_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
            .column("expires_at", type: .bigint, .notNull)
            .run()

        // Her own key for secured memories, sealed by the portal's sealing key (`care_keys.sealed_key`).
        try await db.create(table: "care_keys")
            .column("account_id", type: .bigint, .primaryKey(autoIncrement: false), .references("care_accounts", "id", onDelete: .cascade))
            .column("sealed_key", type: .text, .notNull)
            .run()

        try await db.create(table: "care_memories")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("receiver_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
            // The app's own id for a record it made offline: creating it twice makes it once.
            .column("client_id", type: .text)
            .column("type", type: .text, .notNull)
            .column("secured", type: .bigint, .notNull)
            // Plain fields; empty on a secured memory, whose fields are all in `sealed`.
            .column("title", type: .text, .notNull)
            .column("category", type: .text, .notNull)
            // When it happens in her own time (`2026-03-03T10:14`); empty when it has no time, so undated ones list last.
            .column("happens_at", type: .text, .notNull)
            .column("reminder_at", type: .text)
            .column("recurrence", type: .text, .notNull)
            .column("status", type: .text, .notNull)
            .column("location", type: .text, .notNull)
            .column("emoji", type: .text, .notNull)
            .column("description", type: .text, .notNull)
            // JSON: custom fields, tags, people (contact ids), to-do lines and the template's own fields.
            .column("details", type: .text, .notNull)
            // A secured memory's fields, sealed under her key.
            .column("sealed", type: .text)
            // What search reads: title, description and custom fields, lowercased; empty when secured.
            .column("search_text", type: .text, .notNull)
            .column("version", type: .bigint, .notNull)
            .column("change_number", type: .bigint, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            // Who last changed it: her, or a caregiver (by account id).
            .column("changed_by_role", type: .text, .notNull)
            .column("changed_by_id", type: .bigint, .notNull)
            .column("deleted_at", type: .bigint)
            // The next time its reminder falls due (an instant, from `reminder_at` and `recurrence` in the
            // program's time zone); null when it has none left.
            .column("next_reminder_at", type: .bigint)
            // An appointment's or to-do's check after a reminder: if it is still open then, caregivers who
            // see her reminders are told. `follow_up_of` is the reminder it follows.
            .column("follow_up_at", type: .bigint)
            .column("follow_up_of", type: .bigint)
            .run()
        try await db.create(index: "care_memories_reminders").on("care_memories").column("next_reminder_at").run()
        try await db.create(index: "care_memories_follow_ups").on("care_memories").column("follow_up_at").run()
        try await db.create(index: "care_memories_client").on("care_memories").column("receiver_id").column("client_id").unique().run()
        try await db.create(index: "care_memories_changes").on("care_memories").column("receiver_id").column("change_number").run()
        try await db.create(index: "care_memories_list").on("care_memories").column("receiver_id").column("deleted_at").column("happens_at").column(
            "id"
        ).run()

        try await db.create(table: "care_memory_tags")
            .column("memory_id", type: .bigint, .notNull, .references("care_memories", "id", onDelete: .cascade))
            .column("receiver_id", type: .bigint, .notNull)
            .column("tag", type: .text, .notNull)
            .primaryKey("memory_id", "tag")
            .run()
        try await db.create(index: "care_memory_tags_tag").on("care_memory_tags").column("receiver_id").column("tag").run()

        try await db.create(table: "care_contacts")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("receiver_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
            .column("client_id", type: .text)
            .column("name", type: .text, .notNull)
            // JSON: phones, email, address, company, photo's upload.
            .column("details", type: .text, .notNull)
            .column("search_text", type: .text, .notNull)
            .column("version", type: .bigint, .notNull)
            .column("change_number", type: .bigint, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("deleted_at", type: .bigint)
            .run()
        try await db.create(index: "care_contacts_client").on("care_contacts").column("receiver_id").column("client_id").unique().run()
        try await db.create(index: "care_contacts_changes").on("care_contacts").column("receiver_id").column("change_number").run()
        try await db.create(index: "care_contacts_list").on("care_contacts").column("receiver_id").column("deleted_at").column("name").run()

        try await db.create(table: "care_memory_people")
            .column("memory_id", type: .bigint, .notNull, .references("care_memories", "id", onDelete: .cascade))
            .column("contact_id", type: .bigint, .notNull, .references("care_contacts", "id", onDelete: .cascade))
            .primaryKey("memory_id", "contact_id")
            .run()
        try await db.create(index: "care_memory_people_contact").on("care_memory_people").column("contact_id").run()

        // Invitation codes a care receiver reads to a caregiver: one use, 72 hours, the grant chosen in advance.
        try await db.create(table: "care_invitations")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("receiver_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
            .column("code_hash", type: .text, .notNull)
            .column("scopes", type: .text, .notNull)
            .column("categories", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("expires_at", type: .bigint, .notNull)
            .column("used_at", type: .bigint)
            .column("withdrawn_at", type: .bigint)
            .run()
        try await db.create(index: "care_invitations_code").on("care_invitations").column("code_hash").unique().run()
        try await db.create(index: "care_invitations_receiver").on("care_invitations").column("receiver_id").column("id").run()

        try await db.create(table: "care_links")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("receiver_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
            .column("caregiver_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
            .column("scopes", type: .text, .notNull)
            .column("categories", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("revoked_at", type: .bigint)
            .run()
        try await db.create(index: "care_links_receiver").on("care_links").column("receiver_id").column("revoked_at").run()
        try await db.create(index: "care_links_caregiver").on("care_links").column("caregiver_id").column("revoked_at").run()

        // Every grant, change and revocation of a link: when, who, and what it then granted.
        try await db.create(table: "care_link_events")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("link_id", type: .bigint, .notNull, .references("care_links", "id", onDelete: .cascade))
            .column("at", type: .bigint, .notNull)
            .column("event", type: .text, .notNull)
            .column("actor_role", type: .text, .notNull)
            .column("actor_id", type: .bigint)
            .column("scopes", type: .text, .notNull)
            .column("categories", type: .text, .notNull)
            .run()
        try await db.create(index: "care_link_events_link").on("care_link_events").column("link_id").column("id").run()

        // What each caregiver read of hers, for her to see.
        try await db.create(table: "care_access_log")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("receiver_id", type: .bigint, .notNull, .references("care_accounts", "id", onDelete: .cascade))
            .column("caregiver_id", type: .bigint, .notNull)
            .column("at", type: .bigint, .notNull)
            .column("what", type: .text, .notNull)
            .column("record_id", type: .bigint)
            .run()
        try await db.create(index: "care_access_log_receiver").on("care_access_log").column("receiver_id").column("id").run()

        // The program's support phone and email, shown in the apps (one row).
        try await db.create(table: "care_settings")
            .column("id", type: .bigint, .primaryKey(autoIncrement: false))
            .column("support_phone", type: .text, .notNull)
            .column("support_email", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("updated_by", type: .bigint)
            .run()

        // Her latest location, when her app sends one; only the latest is kept.
        try await db.create(table: "care_locations")
            .column("receiver_id", type: .bigint, .primaryKey(autoIncrement: false), .references("care_accounts", "id", onDelete: .cascade))
            .column("latitude", type: .real, .notNull)
            .column("longitude", type: .real, .notNull)
            .column("accuracy_metres", type: .real)
            .column("at", type: .bigint, .notNull)
            .run()
    }
}
