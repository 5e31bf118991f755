import PortalPlatform
import SQLKit

/// A tag's or a word's memories found in her list's order from the tag's or word's own index. Her search by a
/// tag read every memory with it (2,500 of her 10,000 in the benchmark) and sorted them for each page; each
/// tag and word start now keeps its memory's `happens_at` beside it, so one tag or one word reads just the
/// page it shows, in order, from its index.
struct FindHerTagsAndWordsInOrder: Migration {
    let version = 69
    let name = "FindHerTagsAndWordsInOrder"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        for table in ["care_memory_tags", "care_memory_words"] {
            try await db.alter(table: table).column("happens_at", type: .text, .notNull, .default("")).run()
            try await db.raw(
                """
                UPDATE \(ident: table) SET happens_at = COALESCE((SELECT m.happens_at FROM care_memories m WHERE m.id = \(ident: table).memory_id), '')
                """
            ).run()
        }
        try await db.drop(index: "care_memory_tags_tag").run()
        try await db.create(index: "care_memory_tags_tag").on("care_memory_tags")
            .column("receiver_id").column("tag").column("happens_at").column("memory_id").run()
        try await db.drop(index: "care_memory_words_order").run()
        try await db.create(index: "care_memory_words_order").on("care_memory_words")
            .column("word_start").column("receiver_id").column("happens_at").column("memory_id").run()
    }
}
