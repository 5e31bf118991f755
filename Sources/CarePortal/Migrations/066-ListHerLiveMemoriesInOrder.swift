import PortalPlatform
import SQLKit

/// Her list of memories read in order from an index of her live memories alone. The list's index led with
/// `deleted_at` before `happens_at`, and PostgreSQL does not take `deleted_at IS NULL` as fixing that column
/// for the order, so it read all 10,000 of her memories and sorted them for each page (27 ms of a 149 ms
/// p99); a partial index of the live ones (`WHERE deleted_at IS NULL`, which both engines keep) gives each
/// page in order on both engines. A tag's memories are found from the tag index, which leads with her id.
struct ListHerLiveMemoriesInOrder: Migration {
    let version = 66
    let name = "ListHerLiveMemoriesInOrder"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.raw("CREATE INDEX care_memories_live ON care_memories (receiver_id, happens_at, id) WHERE deleted_at IS NULL").run()
        try await db.drop(index: "care_memories_list").run()
        try await db.drop(index: "care_memory_tags_tag").run()
        try await db.create(index: "care_memory_tags_tag").on("care_memory_tags").column("receiver_id").column("tag").column("memory_id").run()
    }
}
