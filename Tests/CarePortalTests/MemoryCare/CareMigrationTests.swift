import Foundation
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Rows written before the feedback inbox was shared and before memories were read without JSON come
/// through the migrations whole: the study's messages keep their ids; a memory's tags, people, custom
/// fields and words, and a contact's details, read as they were written.
@Suite struct CareMigrationTests {
    @Test(arguments: TestEngines.all)
    func feedbackMemoriesAndContactsWrittenBeforeReadTheSameAfter(engine: Database.Engine) async throws {
        let url = try await TestDatabase.emptyDatabaseURL(engine)
        let database = try Database(url: url, logger: TestDatabase.logger)
        try await database.whileRunning {
            try await Migrator(database: database, migrations: SchemaHistory.migrations.filter { $0.version < 63 }, logger: TestDatabase.logger)
                .migrate()
            try await database.write { db in
                try await db.raw(
                    """
                    INSERT INTO study_participants (id, study_code, study_code_key, enrolled_on, status, username, username_key, password_hash,
                        must_change_password, created_at, updated_at)
                    VALUES (5, 'NU-105', 'nu-105', '2026-11-01', 'active', 'nu105', 'nu105', 'x', 0, 0, 0)
                    """
                ).run()
                try await db.raw(
                    "INSERT INTO study_feedback (id, participant_id, body, submitted_at) VALUES (12, 5, 'The reminder came twice', 1000)"
                ).run()
                try await db.raw(
                    """
                    INSERT INTO care_accounts (id, kind, email, email_key, name, password_hash, status, created_at, change_counter)
                    VALUES (3, 'care_receiver', 'e@example.org', 'e@example.org', 'Eleanor', 'x', 'active', 0, 2)
                    """
                ).run()
                try await db.raw(
                    """
                    INSERT INTO care_contacts (id, receiver_id, name, details, search_text, version, change_number, created_at, updated_at)
                    VALUES (8, 3, 'Tom Neighbour', '{"phones":["07700 900789","01632 960001"],"email":"tom@example.org","address":"1 Lane\\nLeeds","company":""}',
                        'tom neighbour', 1, 1, 0, 0)
                    """
                ).run()
                try await db.raw(
                    """
                    INSERT INTO care_memories (id, receiver_id, type, secured, title, category, happens_at, recurrence, status, location, emoji,
                        description, details, search_text, version, change_number, created_at, updated_at, changed_by_role, changed_by_id)
                    VALUES (21, 3, 'simple_memory', 0, 'Spare key', 'home', '2026-03-03T10:00', 'none', '', '', '', 'Under the pot',
                        '{"customFields":[{"title":"Where","content":"blue garden pot"}],"tags":["Keys","home"],"people":[8],"fields":{},"items":[]}',
                        'spare key\nunder the pot\nwhere\nblue garden pot', 1, 2, 0, 0, 'care_receiver', 3)
                    """
                ).run()
            }
            try await Migrator(database: database, logger: TestDatabase.logger).migrate()
            let (feedback, memory, contact, found, byOneWord, times) = try await database.read { db in
                let repository = CareRepository()
                return (
                    try await FeedbackRepository(program: .researchStudy).messages(on: db),
                    try await repository.memory(id: 21, receiverID: 3, on: db)?.memory.content,
                    try await repository.contact(id: 8, receiverID: 3, on: db)?.content,
                    try await repository.memories(receiverID: 3, filter: .init(words: ["Blue", "ke"]), limit: 10, offset: 0, on: db).map(\.memory.id),
                    try await repository.memories(receiverID: 3, filter: .init(words: ["garden"]), limit: 10, offset: 0, on: db).map(\.memory.id),
                    Set(
                        try await db.select().column("happens_at").from("care_memory_words").where("memory_id", .equal, 21).all().map {
                            try $0.decode(column: "happens_at", as: String.self)
                        }
                    )
                )
            }
            #expect(feedback.map(\.id) == [12] && feedback.first?.author == .participant(5) && feedback.first?.body == "The reminder came twice")
            #expect(
                memory?.tags == ["Keys", "home"] && memory?.people == [8]
                    && memory?.customFields == [CustomField(title: "Where", content: "blue garden pot")]
            )
            #expect(memory?.items == [] && memory?.fields == [:])
            #expect(
                contact
                    == ContactContent(
                        name: "Tom Neighbour",
                        phones: ["07700 900789", "01632 960001"],
                        email: "tom@example.org",
                        address: "1 Lane\nLeeds",
                        company: ""
                    )
            )
            #expect(found == [21], "her words were written to the search's table")
            #expect(byOneWord == [21] && times == ["2026-03-03T10:00"], "each word start keeps its memory's time, for one word's list")
        }
        try await TestDatabase.drop(url)
    }
}
