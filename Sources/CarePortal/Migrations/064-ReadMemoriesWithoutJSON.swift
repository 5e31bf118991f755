import Foundation
import PortalPlatform
import SQLKit

/// Her list, her search and her changes read thousands of memories and contacts; decoding each one's
/// `details` JSON was most of that time. A memory's tags and people, and a contact's phones, email, address
/// and company, move into columns of their own (`CareRepository.joined`: tags and phones one a line, which
/// they cannot hold themselves); `details` keeps only what few memories have (custom fields, a template's own
/// fields, to-do lines) and is empty otherwise. Search reads `care_memory_words`, every start of every word
/// of a plain memory's title, description, custom fields and to-do lines (`WordStarts`), indexed by the
/// start and her id, where `LIKE '%…%'` tested each of her memories; and her list by category reads an index
/// of its own.
struct ReadMemoriesWithoutJSON: Migration {
    let version = 64
    let name = "ReadMemoriesWithoutJSON"

    private struct OldMemoryDetails: Codable {
        var customFields: [CustomField]
        var tags: [String]
        var people: [Int64]
        var fields: [String: String]
        var items: [TodoItem]
    }

    private struct OldContactDetails: Codable {
        var phones: [String]
        var email: String
        var address: String
        var company: String
    }

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        for column in ["tags", "people"] {
            try await db.raw("ALTER TABLE care_memories ADD COLUMN \(unsafeRaw: column) TEXT NOT NULL DEFAULT ''").run()
        }
        for column in ["phones", "email", "address", "company"] {
            try await db.raw("ALTER TABLE care_contacts ADD COLUMN \(unsafeRaw: column) TEXT NOT NULL DEFAULT ''").run()
        }
        try await db.create(index: "care_memories_category").on("care_memories")
            .column("receiver_id").column("deleted_at").column("category").column("happens_at").column("id").run()
        try await db.createSearchTable(
            "care_memory_words",
            column: "word_start",
            owner: "memory_id",
            references: "care_memories",
            copied: [("receiver_id", .bigint)],
            order: ["receiver_id"]
        )
        let repository = CareRepository()
        try await db.forEachBatch(of: "care_memories", columns: ["receiver_id", "details", "search_text"]) { rows in
            for row in rows {
                let id = try row.decode(column: "id", as: Int64.self)
                let stored = try row.decode(column: "details", as: String.self)
                guard let old = try? JSONDecoder().decode(OldMemoryDetails.self, from: Data(stored.utf8)) else { continue }
                let details = CareRepository.MemoryDetails(customFields: old.customFields, fields: old.fields, items: old.items)
                try await db.update("care_memories")
                    .set("tags", to: CareRepository.joined(old.tags)).set("people", to: CareRepository.joined(old.people.map(String.init)))
                    .set("details", to: try details.stored())
                    .where("id", .equal, id).run()
                try await repository.writeSearchWords(
                    memoryID: id,
                    receiverID: try row.decode(column: "receiver_id", as: Int64.self),
                    text: try row.decode(column: "search_text", as: String.self),
                    on: db
                )
            }
        }
        try await db.forEachBatch(of: "care_contacts", columns: ["details"]) { rows in
            for row in rows {
                guard let old = try? JSONDecoder().decode(OldContactDetails.self, from: Data(try row.decode(column: "details", as: String.self).utf8))
                else { continue }
                try await db.update("care_contacts")
                    .set("phones", to: CareRepository.joined(old.phones)).set("email", to: old.email).set("address", to: old.address)
                    .set("company", to: old.company).set("details", to: "")
                    .where("id", .equal, try row.decode(column: "id", as: Int64.self)).run()
            }
        }
    }
}
