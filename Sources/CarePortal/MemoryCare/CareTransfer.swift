import Foundation
import PortalPlatform
import SQLKit

/// Her memories and contacts as one JSON document (§4.1.7.1), in the versioned format
/// `api/care-export.schema.json` describes: everything she owns, secured memories only while her PIN has
/// them open (and then clearly marked). Importing checks everything first, says each problem by its path,
/// and changes nothing unless all of it is right; importing an export again changes nothing, since every
/// record carries the `client_id` it is matched by.
enum CareTransfer {
    static let format = "careportal.memory-care.export"
    static let version = 1
    static let maximumBodySize = 32 * 1024 * 1024
    static let maximumMemories = 20_000
    static let maximumContacts = 2_000
    static let maximumProblems = 100

    struct Contact: Codable, Sendable {
        var clientId: String?
        var name: String?
        var phones: [String]?
        var email: String?
        var address: String?
        var company: String?
    }

    struct Memory: Codable, Sendable {
        var clientId: String?
        var type: String?
        var secured: Bool?
        var title: String?
        var category: String?
        var happensAt: String?
        var reminderAt: String?
        var recurrence: String?
        var recurrenceDays: [String]?
        var status: String?
        var tags: [String]?
        var location: String?
        var emoji: String?
        var description: String?
        var customFields: [CustomField]?
        /// Her contacts it names, by their `client_id` in this document (or already in her account).
        var people: [String]?
        var fields: [String: String]?
        var items: [TodoItem]?
    }

    struct Document: Codable, Sendable {
        var format: String?
        var version: Int?
        var exportedAt: Date?
        /// True when her secured memories are in it (her PIN was entered); they are marked `secured`.
        var securedIncluded: Bool?
        /// How many secured memories were left out because her PIN was not entered.
        var securedLeftOut: Int?
        var contacts: [Contact]?
        var memories: [Memory]?
    }

    struct Imported: Encodable, Sendable {
        let memoriesAdded: Int
        let contactsAdded: Int
        /// Records whose `client_id` she already had: left as they are.
        let memoriesAlreadyThere: Int
        let contactsAlreadyThere: Int
    }

    /// The `client_id` a record is exported with: its own, or one naming its id here.
    static func clientID(memory id: Int64, own: String?) -> String { own ?? "careportal-memory-\(id)" }
    static func clientID(contact id: Int64, own: String?) -> String { own ?? "careportal-contact-\(id)" }

    /// The id a `careportal-…-<id>` client id names, if it is one.
    static func ownID(_ clientID: String, kind: String) -> Int64? {
        let prefix = "careportal-\(kind)-"
        guard clientID.hasPrefix(prefix) else { return nil }
        return Int64(clientID.dropFirst(prefix.count))
    }
}

extension MemoryCare {
    /// Everything she owns, secured memories opened and included only when `unlocked`.
    func export(receiverID: Int64, unlocked: Bool) async throws -> CareTransfer.Document {
        let now = portal.now
        return try await portal.database.read { db in
            var contacts: [CareContact] = []
            while true {
                let page = try await repository.contacts(receiverID: receiverID, words: [], limit: 500, offset: contacts.count, on: db)
                contacts += page.prefix(500)
                if page.count <= 500 { break }
            }
            let contactClientIDs = Dictionary(uniqueKeysWithValues: contacts.map { ($0.id, CareTransfer.clientID(contact: $0.id, own: $0.clientID)) })
            let sealer = unlocked ? try await readSealer(receiverID: receiverID, on: db) : nil
            var memories: [CareTransfer.Memory] = []
            var leftOut = 0
            var offset = 0
            while true {
                let page = try await repository.memories(receiverID: receiverID, filter: .init(), limit: 500, offset: offset, on: db)
                offset += min(page.count, 500)
                for stored in page.prefix(500) {
                    let memory = try open(stored, with: stored.memory.secured ? sealer : nil)
                    guard let content = memory.content else { leftOut += 1; continue }
                    memories.append(
                        CareTransfer.Memory(
                            clientId: CareTransfer.clientID(memory: memory.id, own: memory.clientID),
                            type: memory.type.rawValue,
                            secured: memory.secured,
                            title: content.title,
                            category: content.category,
                            happensAt: content.happensAt,
                            reminderAt: content.reminderAt,
                            recurrence: content.recurrence,
                            recurrenceDays: content.recurrenceDays,
                            status: content.status,
                            tags: content.tags,
                            location: content.location,
                            emoji: content.emoji,
                            description: content.description,
                            customFields: content.customFields,
                            people: content.people.compactMap { contactClientIDs[$0] },
                            fields: content.fields,
                            items: content.items
                        )
                    )
                }
                if page.count <= 500 { break }
            }
            return CareTransfer.Document(
                format: CareTransfer.format,
                version: CareTransfer.version,
                exportedAt: now,
                securedIncluded: leftOut == 0,
                securedLeftOut: leftOut,
                contacts: contacts.map {
                    CareTransfer.Contact(
                        clientId: contactClientIDs[$0.id],
                        name: $0.content.name,
                        phones: $0.content.phones,
                        email: $0.content.email,
                        address: $0.content.address,
                        company: $0.content.company
                    )
                },
                memories: memories
            )
        }
    }

    /// Imports a document: every problem by its path (`memories.3.title`), and nothing written unless there are none.
    func importDocument(_ document: CareTransfer.Document, receiverID: Int64) async throws -> CareTransfer.Imported {
        var problems: [String: String] = [:]
        func problem(_ path: String, _ message: String) {
            if problems.count < CareTransfer.maximumProblems { problems[path] = message }
        }
        if document.format != CareTransfer.format { problem("format", "This is not a memory-care export: its format must be \(CareTransfer.format)") }
        if document.version != CareTransfer.version { problem("version", "This server reads version \(CareTransfer.version) of the format") }
        if document.contacts == nil { problem("contacts", "The file has no list of contacts") }
        if document.memories == nil { problem("memories", "The file has no list of memories") }
        let contacts = document.contacts ?? []
        let memories = document.memories ?? []
        if contacts.count > CareTransfer.maximumContacts { problem("contacts", "At most \(CareTransfer.maximumContacts) contacts at once") }
        if memories.count > CareTransfer.maximumMemories { problem("memories", "At most \(CareTransfer.maximumMemories) memories at once") }
        guard problems.isEmpty else { throw APIError.validation(problems) }

        let now = portal.now
        return try await portal.database.transaction { db in
            // Contacts first, so memories can name them.
            var seen: Set<String> = []
            var newContacts: [(String, ContactContent)] = []
            var contactIDs: [String: Int64] = [:]
            var contactsAlreadyThere = 0
            for (index, contact) in contacts.enumerated() {
                let path = "contacts.\(index)"
                guard let clientID = contact.clientId, MemoryRules.clientIDProblem(clientID) == nil else {
                    problem("\(path).client_id", "Give each contact a client id of 1 to \(MemoryRules.clientIDMaximumLength) characters")
                    continue
                }
                guard seen.insert("contact:\(clientID)").inserted else {
                    problem("\(path).client_id", "Another contact in the file has this client id"); continue
                }
                let content = ContactContent(
                    name: contact.name?.trimmed ?? "",
                    phones: (contact.phones ?? []).map(\.trimmed),
                    email: contact.email?.trimmed ?? "",
                    address: contact.address?.trimmed ?? "",
                    company: contact.company?.trimmed ?? ""
                )
                for (field, message) in MemoryRules.problems(with: content) { problem("\(path).\(field)", message) }
                if let existing = try await existingContact(clientID, receiverID: receiverID, on: db) {
                    // One she deleted stays deleted, and memories that name it name nobody.
                    if let id = existing.id { contactIDs[clientID] = id }
                    contactsAlreadyThere += 1
                } else {
                    newContacts.append((clientID, content))
                }
            }
            var newMemories: [(String, MemoryType, Bool, MemoryContent, [String])] = []
            var memoriesAlreadyThere = 0
            let hasPIN = try await repository.pinHash(accountID: receiverID, on: db) != nil
            for (index, memory) in memories.enumerated() {
                let path = "memories.\(index)"
                guard let clientID = memory.clientId, MemoryRules.clientIDProblem(clientID) == nil else {
                    problem("\(path).client_id", "Give each memory a client id of 1 to \(MemoryRules.clientIDMaximumLength) characters")
                    continue
                }
                guard seen.insert("memory:\(clientID)").inserted else {
                    problem("\(path).client_id", "Another memory in the file has this client id"); continue
                }
                guard let type = memory.type.flatMap(MemoryType.init(rawValue:)) else {
                    problem("\(path).type", "Choose a template: \(MemoryType.allCases.map(\.rawValue).joined(separator: ", "))")
                    continue
                }
                let secured = type.isSecret || memory.secured == true
                if secured, !hasPIN { problem("\(path).secured", "Create your PIN before importing secured memories") }
                let people = memory.people ?? []
                let content = MemoryContent(
                    title: memory.title?.trimmed ?? "",
                    category: memory.category ?? "",
                    happensAt: memory.happensAt,
                    reminderAt: memory.reminderAt,
                    recurrence: memory.recurrence ?? Recurrence.none.rawValue,
                    recurrenceDays: memory.recurrenceDays ?? [],
                    status: memory.status ?? MemoryStatus.none.rawValue,
                    tags: memory.tags ?? [],
                    location: memory.location ?? "",
                    emoji: memory.emoji ?? "",
                    description: memory.description ?? "",
                    customFields: memory.customFields ?? [],
                    people: [],
                    fields: memory.fields ?? [:],
                    items: memory.items ?? []
                )
                for (field, message) in MemoryRules.problems(with: content, type: type, knownContacts: []) { problem("\(path).\(field)", message) }
                for (position, person) in people.enumerated() where !seen.contains("contact:\(person)") && contactIDs[person] == nil {
                    let known = MemoryRules.clientIDProblem(person) == nil ? try await existingContact(person, receiverID: receiverID, on: db) : nil
                    if known == nil {
                        problem("\(path).people.\(position)", "No contact in the file or in her account has the client id \(person)")
                    }
                }
                if try await existingMemory(clientID, receiverID: receiverID, on: db) {
                    memoriesAlreadyThere += 1
                } else {
                    newMemories.append((clientID, type, secured, content, people))
                }
            }
            guard problems.isEmpty else { throw APIError.validation(problems) }

            for (clientID, content) in newContacts {
                let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
                contactIDs[clientID] = try await repository.insertContact(
                    content,
                    clientID: clientID,
                    receiverID: receiverID,
                    changeNumber: number,
                    now: now,
                    on: db
                )
            }
            for (clientID, type, secured, content, people) in newMemories {
                var content = content
                for person in people {
                    if let id = contactIDs[person] {
                        content.people.append(id)
                    } else if let id = try await existingContact(person, receiverID: receiverID, on: db)?.id {
                        content.people.append(id)
                    }
                }
                let row = try await row(
                    type: type,
                    secured: secured,
                    clientID: clientID,
                    content: content,
                    by: .careReceiver(receiverID),
                    receiverID: receiverID,
                    on: db
                )
                let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
                _ = try await repository.insertMemory(row, receiverID: receiverID, changeNumber: number, now: now, on: db)
            }
            return CareTransfer.Imported(
                memoriesAdded: newMemories.count,
                contactsAdded: newContacts.count,
                memoriesAlreadyThere: memoriesAlreadyThere,
                contactsAlreadyThere: contactsAlreadyThere
            )
        }
    }

    /// Her contact a client id names (by her client id, or `careportal-contact-<id>` of one of hers), with
    /// its id while it is not deleted; nil when she has none by it.
    private func existingContact(_ clientID: String, receiverID: Int64, on db: any SQLDatabase) async throws -> ExistingContact? {
        var contact = try await repository.contact(clientID: clientID, receiverID: receiverID, on: db)
        if contact == nil, let id = CareTransfer.ownID(clientID, kind: "contact") {
            contact = try await repository.contact(id: id, receiverID: receiverID, on: db)
        }
        return contact.map { ExistingContact(id: $0.deletedAt == nil ? $0.id : nil) }
    }

    /// A contact of hers an import names: its id, or nil when she deleted it.
    private struct ExistingContact {
        let id: Int64?
    }

    /// Whether she has a memory by this client id, deleted or not: an import neither repeats nor brings back one.
    private func existingMemory(_ clientID: String, receiverID: Int64, on db: any SQLDatabase) async throws -> Bool {
        if try await repository.memory(clientID: clientID, receiverID: receiverID, on: db) != nil { return true }
        guard let id = CareTransfer.ownID(clientID, kind: "memory") else { return false }
        return try await repository.memory(id: id, receiverID: receiverID, on: db) != nil
    }
}
