import Foundation
import Hummingbird
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

    /// A memory's file or a contact's photo: its name, what it is, and its bytes in base64.
    struct File: Codable, Sendable {
        var name: String?
        /// `image/png`, `image/jpeg`, `image/webp` or `application/pdf`, for whoever reads the document: an
        /// import reads the type from the bytes themselves.
        var contentType: String?
        var data: String?
    }

    struct Contact: Codable, Sendable {
        var clientId: String?
        var name: String?
        var phones: [String]?
        var email: String?
        var address: String?
        var company: String?
        var photo: File?
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
        /// Its pictures and PDFs, at most `CareFileRules.maximumPerMemory`.
        var files: [File]?
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

    /// An export ready to write: its records, and where each one's files are. Their bytes are read a record at
    /// a time as the document is written (`MemoryCare.body(of:)`), so a large one is never whole in memory.
    struct Export: Sendable {
        var document: Document
        /// Each memory's files and each contact's photo, by the record's place in `document`'s list.
        var memoryFiles: [Int: [CareFile]] = [:]
        var contactPhotos: [Int: CareFile] = [:]
        /// Her key, when a file in it is sealed under it (a secured memory's, or one sealed while its memory was).
        var sealer: Sealer?
    }

    struct Imported: Encodable, Sendable {
        let memoriesAdded: Int
        let contactsAdded: Int
        /// Records whose `client_id` she already had: left as they are.
        let memoriesAlreadyThere: Int
        let contactsAlreadyThere: Int
    }

    /// A file of a document, checked: its name, what its bytes are, and the bytes.
    struct IncomingFile: Sendable {
        let name: String
        let type: UploadType
        let bytes: [UInt8]
    }

    /// The file's bytes when they are base64 of a file `rules` take, or why not.
    static func incoming(_ file: File, rules: UploadRules) -> Result<IncomingFile, UploadProblem> {
        guard let data = file.data, let decoded = Data(base64Encoded: data) else {
            return .failure(UploadProblem(message: "Give the \(rules.noun)'s bytes in base64"))
        }
        let bytes = Array(decoded)
        return rules.check(bytes).map { IncomingFile(name: CareFileRules.name(file.name ?? ""), type: $0, bytes: bytes) }
    }

    /// An import's problems, by their path in the document; at most `maximumProblems` are kept.
    struct Problems {
        private(set) var byPath: [String: String] = [:]

        mutating func add(_ path: String, _ message: String) {
            if byPath.count < CareTransfer.maximumProblems { byPath[path] = message }
        }

        /// The file checked against `rules`, or nil with its problem added at `path.data`.
        mutating func checked(_ file: File, rules: UploadRules, at path: String) -> IncomingFile? {
            switch CareTransfer.incoming(file, rules: rules) {
            case .success(let checked): return checked
            case .failure(let refused):
                add("\(path).data", refused.message)
                return nil
            }
        }

        /// A record's client id when it is one and the first of its kind (`contact`, `memory`) in the file, which
        /// `seen` keeps; nil with its problem added at `path.client_id` otherwise.
        mutating func clientID(_ clientID: String?, of kind: String, at path: String, seen: inout Set<String>) -> String? {
            guard let clientID, MemoryRules.clientIDProblem(clientID) == nil else {
                add("\(path).client_id", "Give each \(kind) a client id of 1 to \(MemoryRules.clientIDMaximumLength) characters")
                return nil
            }
            guard seen.insert("\(kind):\(clientID)").inserted else {
                add("\(path).client_id", "Another \(kind) in the file has this client id")
                return nil
            }
            return clientID
        }

        /// Throws them all as a 422, if there are any.
        func refuse() throws {
            if !byPath.isEmpty { throw APIError.validation(byPath) }
        }
    }

    /// A memory of the document as the rules check it: missing fields empty, and naming no contact yet.
    static func content(of memory: Memory) -> MemoryContent {
        MemoryContent(
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
    func export(receiverID: Int64, unlocked: Bool) async throws -> CareTransfer.Export {
        let now = portal.now
        return try await portal.database.read { db in
            var contacts: [CareContact] = []
            while true {
                let page = try await repository.contacts(receiverID: receiverID, words: [], limit: 500, offset: contacts.count, on: db)
                contacts += page.prefix(500)
                if page.count <= 500 { break }
            }
            let contactClientIDs = Dictionary(uniqueKeysWithValues: contacts.map { ($0.id, CareTransfer.clientID(contact: $0.id, own: $0.clientID)) })
            let files = try await CareFileRepository().files(receiverID: receiverID, on: db)
            // Her key opens secured memories only while her PIN is entered; a file sealed while its memory was
            // secured stays sealed after the memory is made plain again, and is opened with it as when it is shown.
            let key = unlocked || files.contains(where: \.sealed) ? try await readSealer(receiverID: receiverID, on: db) : nil
            let sealer = unlocked ? key : nil
            let filesOfMemory = Dictionary(grouping: files, by: \.memoryID)
            // A contact's photo is its newest file.
            let photoOfContact = Dictionary(files.compactMap { file in file.contactID.map { ($0, file) } }, uniquingKeysWith: { $1 })
            var export = CareTransfer.Export(document: CareTransfer.Document(), sealer: key)
            var memories: [CareTransfer.Memory] = []
            var leftOut = 0
            var offset = 0
            while true {
                let page = try await repository.memories(receiverID: receiverID, filter: .init(), limit: 500, offset: offset, on: db)
                offset += min(page.count, 500)
                for stored in page.prefix(500) {
                    let memory = try open(stored, with: stored.memory.secured ? sealer : nil)
                    guard let content = memory.content else { leftOut += 1; continue }
                    export.memoryFiles[memories.count] = try filesOfMemory[memory.id]?.map { try opened($0, with: key) }
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
            for (index, contact) in contacts.enumerated() { export.contactPhotos[index] = photoOfContact[contact.id] }
            export.document = CareTransfer.Document(
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
            return export
        }
    }

    /// The export as a response's body: its records written in pieces, each with its files' bytes read as it
    /// is written. A file whose stored bytes are gone is left out of its record, and the server's log says so.
    func body(of export: CareTransfer.Export) -> ResponseBody {
        ResponseBody { writer in
            var head = export.document
            head.contacts = nil
            head.memories = nil
            var bytes = try APIJSONWriter.encode(head)
            bytes.removeLast() // its closing brace: the two lists follow
            // A record of a list (after a comma unless it is the first), sent once enough is waiting.
            func append(_ record: some Encodable, at index: Int) async throws {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes += try APIJSONWriter.encode(record)
                guard bytes.count >= 256 * 1024 else { return }
                try await writer.write(ByteBuffer(bytes: bytes))
                bytes.removeAll(keepingCapacity: true)
            }
            bytes += Array(#","contacts":["#.utf8)
            for (index, var contact) in (export.document.contacts ?? []).enumerated() {
                if let photo = export.contactPhotos[index] { contact.photo = try await exported(photo, with: nil) }
                try await append(contact, at: index)
            }
            bytes += Array(#"],"memories":["#.utf8)
            for (index, var memory) in (export.document.memories ?? []).enumerated() {
                var files: [CareTransfer.File] = []
                for file in export.memoryFiles[index] ?? [] {
                    if let exported = try await exported(file, with: export.sealer) { files.append(exported) }
                }
                memory.files = files
                try await append(memory, at: index)
            }
            bytes += Array("]}".utf8)
            try await writer.write(ByteBuffer(bytes: bytes))
            try await writer.finish(nil)
        }
    }

    /// A file as the export holds it; nil when its stored bytes are gone.
    private func exported(_ file: CareFile, with sealer: Sealer?) async throws -> CareTransfer.File? {
        guard let data = try await base64(of: file, with: sealer) else {
            portal.logger.error("A care file's stored bytes are missing; it was left out of an export", metadata: ["file": "\(file.id)"])
            return nil
        }
        return CareTransfer.File(name: file.name ?? "file", contentType: file.type.rawValue, data: data)
    }

    /// Imports a document: every problem by its path (`memories.3.title`), and nothing written unless there are
    /// none. Files' bytes are stored as their records are written, and removed again if the change fails.
    func importDocument(_ document: CareTransfer.Document, receiverID: Int64) async throws -> CareTransfer.Imported {
        var problems = CareTransfer.Problems()
        if document.format != CareTransfer.format {
            problems.add("format", "This is not a memory-care export: its format must be \(CareTransfer.format)")
        }
        if document.version != CareTransfer.version { problems.add("version", "This server reads version \(CareTransfer.version) of the format") }
        if document.contacts == nil { problems.add("contacts", "The file has no list of contacts") }
        if document.memories == nil { problems.add("memories", "The file has no list of memories") }
        let contacts = document.contacts ?? []
        let memories = document.memories ?? []
        if contacts.count > CareTransfer.maximumContacts { problems.add("contacts", "At most \(CareTransfer.maximumContacts) contacts at once") }
        if memories.count > CareTransfer.maximumMemories { problems.add("memories", "At most \(CareTransfer.maximumMemories) memories at once") }
        try problems.refuse()

        var stored: [StoredUpload] = []
        do {
            return try await portal.database.transaction { db in
                let plan = try await checked(contacts: contacts, memories: memories, receiverID: receiverID, on: db)
                return try await write(plan, receiverID: receiverID, stored: &stored, on: db)
            }
        } catch {
            for upload in stored { try? await fileStore.remove(upload) }
            throw error
        }
    }

    /// What an import adds, once every record of it is checked.
    private struct ImportPlan {
        struct NewContact {
            let clientID: String
            let content: ContactContent
            let photo: CareTransfer.IncomingFile?
        }

        struct NewMemory {
            let clientID: String
            let type: MemoryType
            let secured: Bool
            let content: MemoryContent
            /// Her contacts it names, by client id.
            let people: [String]
            let files: [CareTransfer.IncomingFile]
        }

        var contacts: [NewContact] = []
        var memories: [NewMemory] = []
        /// Contacts of hers the document names, by client id, with their ids.
        var contactIDs: [String: Int64] = [:]
        var contactsAlreadyThere = 0
        var memoriesAlreadyThere = 0
    }

    /// Checks every record against the rules for creating it and against her account; throws every problem.
    private func checked(
        contacts: [CareTransfer.Contact],
        memories: [CareTransfer.Memory],
        receiverID: Int64,
        on db: any SQLDatabase
    ) async throws -> ImportPlan {
        var problems = CareTransfer.Problems()
        var plan = ImportPlan()
        var seen: Set<String> = []
        // Contacts first, so memories can name them.
        for (index, contact) in contacts.enumerated() {
            let path = "contacts.\(index)"
            guard let clientID = problems.clientID(contact.clientId, of: "contact", at: path, seen: &seen) else { continue }
            let content = ContactContent(
                name: contact.name?.trimmed ?? "",
                phones: (contact.phones ?? []).map(\.trimmed),
                email: contact.email?.trimmed ?? "",
                address: contact.address?.trimmed ?? "",
                company: contact.company?.trimmed ?? ""
            )
            for (field, message) in MemoryRules.problems(with: content) { problems.add("\(path).\(field)", message) }
            let photo = contact.photo.flatMap { problems.checked($0, rules: CareFileRules.photo, at: "\(path).photo") }
            if let existing = try await existingContact(clientID, receiverID: receiverID, on: db) {
                // One she deleted stays deleted, and memories that name it name nobody.
                if let id = existing.id { plan.contactIDs[clientID] = id }
                plan.contactsAlreadyThere += 1
            } else {
                plan.contacts.append(.init(clientID: clientID, content: content, photo: photo))
            }
        }
        let hasPIN = try await repository.pinHash(accountID: receiverID, on: db) != nil
        for (index, memory) in memories.enumerated() {
            let path = "memories.\(index)"
            guard let clientID = problems.clientID(memory.clientId, of: "memory", at: path, seen: &seen) else { continue }
            guard let type = memory.type.flatMap(MemoryType.init(rawValue:)) else {
                problems.add("\(path).type", "Choose a template: \(MemoryType.allCases.map(\.rawValue).joined(separator: ", "))")
                continue
            }
            let secured = type.isSecret || memory.secured == true
            if secured, !hasPIN { problems.add("\(path).secured", "Create your PIN before importing secured memories") }
            let content = CareTransfer.content(of: memory)
            for (field, message) in MemoryRules.problems(with: content, type: type, knownContacts: []) { problems.add("\(path).\(field)", message) }
            let people = memory.people ?? []
            for (position, person) in people.enumerated() where !seen.contains("contact:\(person)") && plan.contactIDs[person] == nil {
                let known = MemoryRules.clientIDProblem(person) == nil ? try await existingContact(person, receiverID: receiverID, on: db) : nil
                if known == nil { problems.add("\(path).people.\(position)", "No contact in the file or in her account has the client id \(person)") }
            }
            let files = memory.files ?? []
            if files.count > CareFileRules.maximumPerMemory {
                problems.add("\(path).files", "A memory can have at most \(CareFileRules.maximumPerMemory) files")
            }
            let checkedFiles = files.prefix(CareFileRules.maximumPerMemory).enumerated().compactMap { position, file in
                problems.checked(file, rules: CareFileRules.attachment, at: "\(path).files.\(position)")
            }
            if try await existingMemory(clientID, receiverID: receiverID, on: db) {
                plan.memoriesAlreadyThere += 1
            } else {
                plan.memories.append(
                    .init(clientID: clientID, type: type, secured: secured, content: content, people: people, files: checkedFiles)
                )
            }
        }
        try problems.refuse()
        return plan
    }

    /// Writes what the plan adds, each file's bytes as its record is written (`stored` lists them, for the
    /// caller to remove if the change fails).
    private func write(
        _ plan: ImportPlan,
        receiverID: Int64,
        stored: inout [StoredUpload],
        on db: any SQLDatabase
    ) async throws -> CareTransfer.Imported {
        let now = portal.now
        var contactIDs = plan.contactIDs
        for contact in plan.contacts {
            let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
            let id = try await repository.insertContact(
                contact.content,
                clientID: contact.clientID,
                receiverID: receiverID,
                changeNumber: number,
                now: now,
                on: db
            )
            contactIDs[contact.clientID] = id
            if let photo = contact.photo { stored.append(try await keep(photo, receiverID: receiverID, contactID: id, on: db)) }
        }
        let sealer = plan.memories.contains { $0.secured && !$0.files.isEmpty } ? try await self.sealer(receiverID: receiverID, on: db) : nil
        for memory in plan.memories {
            var content = memory.content
            for person in memory.people {
                if let id = contactIDs[person] {
                    content.people.append(id)
                } else if let id = try await existingContact(person, receiverID: receiverID, on: db)?.id {
                    content.people.append(id)
                }
            }
            let row = try await row(
                type: memory.type,
                secured: memory.secured,
                clientID: memory.clientID,
                content: content,
                by: .careReceiver(receiverID),
                receiverID: receiverID,
                on: db
            )
            let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
            guard let id = try await repository.insertMemory(row, receiverID: receiverID, changeNumber: number, now: now, on: db) else { continue }
            for file in memory.files {
                stored.append(try await keep(file, receiverID: receiverID, memoryID: id, sealer: memory.secured ? sealer : nil, on: db))
            }
        }
        return CareTransfer.Imported(
            memoriesAdded: plan.memories.count,
            contactsAdded: plan.contacts.count,
            memoriesAlreadyThere: plan.memoriesAlreadyThere,
            contactsAlreadyThere: plan.contactsAlreadyThere
        )
    }

    /// Stores an imported file's bytes (sealed under `sealer` when its memory is secured) and records it.
    private func keep(
        _ file: CareTransfer.IncomingFile,
        receiverID: Int64,
        memoryID: Int64? = nil,
        contactID: Int64? = nil,
        sealer: Sealer? = nil,
        on db: any SQLDatabase
    ) async throws -> StoredUpload {
        let (upload, sealedName) = try await store(file.bytes, type: file.type, name: file.name, sealer: sealer, on: db)
        _ = try await record(
            upload,
            name: file.name,
            sealedName: sealedName,
            type: file.type,
            size: file.bytes.count,
            receiverID: receiverID,
            memoryID: memoryID,
            contactID: contactID,
            on: db
        )
        return upload
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
