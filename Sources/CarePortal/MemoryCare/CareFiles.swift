import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// A file a care receiver attached to one of her memories (a picture or a PDF), or one of her contacts'
/// photos. Its bytes are in the platform's uploads (use `care`): on a secured memory sealed under her own
/// key, with its name, so nothing of it is readable at rest, and served only while her PIN has it open.
struct CareFile: Sendable, Equatable {
    let id: Int64
    let memoryID: Int64?
    let contactID: Int64?
    /// Her file's name: sealed as `CareFileRepository` reads it from a secured memory's file, then opened by
    /// `MemoryCare` (nil without her key).
    let name: String?
    let type: UploadType
    let size: Int
    let stored: StoredUpload
    let sealed: Bool
    let createdAt: Date

    /// "12 KB", "1.4 MB": the size as a person reads it.
    var sizeText: String {
        if size < 1_024 { return "\(size) bytes" }
        if size < 1_024 * 1_024 { return "\(max(1, size / 1_024)) KB" }
        return String(format: "%.1f MB", Double(size) / 1_048_576)
    }
}

enum CareFileRules {
    /// Four megabytes: a phone's photo or a letter's scan, inside the 5 MB a form with a file may be.
    static let maximumSize = 4 * 1_024 * 1_024
    static let maximumPerMemory = 20
    static let nameMaximumLength = 120
    static let attachment = UploadRules(types: UploadType.pictures.union([.pdf]), maximumSize: maximumSize, noun: "file")
    static let photo = UploadRules(types: UploadType.pictures, maximumSize: maximumSize, noun: "photo")
    static let purpose = SealingPurpose("care_files.bytes")
    static let namePurpose = SealingPurpose("care_files.name")

    /// The name her computer gave the file, as shown back: its last part, without control characters, at
    /// most 120 characters; "file" when nothing is left.
    static func name(_ filename: String) -> String {
        let last = filename.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let clean = String(MemoryRules.withoutControlCharacters(last).trimmed.prefix(nameMaximumLength))
        return clean.isEmpty ? "file" : clean
    }
}

/// The `care_files` table.
struct CareFileRepository {
    static let columns = ["id", "memory_id", "contact_id", "name", "content_type", "size", "stored_name", "sealed", "created_at"]

    /// A file as stored: on a sealed one, `name` is still sealed (`MemoryCare.opened` opens it).
    private func decode(_ row: any SQLRow) throws -> CareFile? {
        guard let type = UploadType(rawValue: try row.decode(column: "content_type", as: String.self)) else { return nil }
        let sealed = try row.decode(column: "sealed", as: Int.self) != 0
        return CareFile(
            id: try row.decode(column: "id", as: Int64.self),
            memoryID: try row.decode(column: "memory_id", as: Int64?.self),
            contactID: try row.decode(column: "contact_id", as: Int64?.self),
            name: try row.decode(column: "name", as: String.self),
            type: type,
            size: try row.decode(column: "size", as: Int.self),
            stored: StoredUpload(fileName: try row.decode(column: "stored_name", as: String.self), type: sealed ? .sealed : type),
            sealed: sealed,
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self))
        )
    }

    func insert(
        receiverID: Int64,
        memoryID: Int64?,
        contactID: Int64?,
        name: String,
        type: UploadType,
        size: Int,
        stored: StoredUpload,
        sealed: Bool,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Int64 {
        try await db.insert(into: "care_files")
            .columns("receiver_id", "memory_id", "contact_id", "name", "content_type", "size", "stored_name", "sealed", "created_at")
            .values(
                SQLBind(receiverID),
                SQLBind(memoryID),
                SQLBind(contactID),
                SQLBind(name),
                SQLBind(type.rawValue),
                SQLBind(size),
                SQLBind(stored.fileName),
                SQLBind(sealed ? 1 : 0),
                SQLBind(now.millisecondsSince1970)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
    }

    func files(memoryID: Int64, receiverID: Int64, on db: any SQLDatabase) async throws -> [CareFile] {
        try await db.select().columns(Self.columns).from("care_files")
            .where("receiver_id", .equal, receiverID).where("memory_id", .equal, memoryID).orderBy("id").all().compactMap(decode)
    }

    /// Every file of hers, memories' and contacts', oldest first (for her export).
    func files(receiverID: Int64, on db: any SQLDatabase) async throws -> [CareFile] {
        try await db.select().columns(Self.columns).from("care_files").where("receiver_id", .equal, receiverID).orderBy("id").all().compactMap(decode)
    }

    func photo(contactID: Int64, receiverID: Int64, on db: any SQLDatabase) async throws -> CareFile? {
        try await db.select().columns(Self.columns).from("care_files")
            .where("receiver_id", .equal, receiverID).where("contact_id", .equal, contactID).orderBy("id", .descending).first().flatMap(decode)
    }

    /// Removes the rows and returns what they stored, for the store to remove once the change is committed.
    func delete(ids: [Int64], receiverID: Int64, on db: any SQLDatabase) async throws -> [StoredUpload] {
        guard !ids.isEmpty else { return [] }
        let rows = try await db.select().columns(Self.columns).from("care_files")
            .where("receiver_id", .equal, receiverID).where("id", .in, ids).all().compactMap(decode)
        try await db.delete(from: "care_files").where("receiver_id", .equal, receiverID).where("id", .in, ids).run()
        return rows.map(\.stored)
    }

    /// Everything stored for a memory, a contact or a whole account, to remove with it.
    func stored(receiverID: Int64, memoryID: Int64? = nil, contactID: Int64? = nil, on db: any SQLDatabase) async throws -> [Int64] {
        var query = db.select().column("id").from("care_files").where("receiver_id", .equal, receiverID)
        if let memoryID { query = query.where("memory_id", .equal, memoryID) }
        if let contactID { query = query.where("contact_id", .equal, contactID) }
        return try await query.all().map { try $0.decode(column: "id", as: Int64.self) }
    }
}

/// A file refused, in words for her, beside the field that sent it.
struct CareFileRefused: Error {
    let message: String
}

extension MemoryCare {
    var fileStore: UploadStore { portal.uploads("care") }

    /// The file with its name opened: a sealed one's with her sealer, or nil without it.
    func opened(_ file: CareFile, with sealer: Sealer?) throws -> CareFile {
        guard file.sealed, let stored = file.name else { return file }
        return CareFile(
            id: file.id,
            memoryID: file.memoryID,
            contactID: file.contactID,
            name: try sealer.map { try $0.open(stored, for: CareFileRules.namePurpose) },
            type: file.type,
            size: file.size,
            stored: file.stored,
            sealed: true,
            createdAt: file.createdAt
        )
    }

    /// The files attached to her memory; a secured memory's only while it is open (their names are sealed).
    func files(ofMemory id: Int64, receiverID: Int64, unlocked: Bool) async throws -> [CareFile] {
        try await files(of: try await memory(id: id, receiverID: receiverID, unlocked: unlocked))
    }

    /// The same, for a memory already read (as opened, or not, by her PIN).
    func files(of memory: Memory) async throws -> [CareFile] {
        if memory.secured && memory.content == nil { throw APIError.locked }
        return try await portal.database.read { db in
            let sealer = memory.secured ? try await readSealer(receiverID: memory.receiverID, on: db) : nil
            return try await CareFileRepository().files(memoryID: memory.id, receiverID: memory.receiverID, on: db).map {
                try opened($0, with: sealer)
            }
        }
    }

    /// Attaches a picture or PDF to her memory, sealed when the memory is secured (which must be open); the
    /// memory's change number moves on, so her other devices' sync sees it.
    func attach(_ file: MultipartForm.File?, toMemory id: Int64, receiverID: Int64, unlocked: Bool) async throws -> CareFile {
        let memory = try await memory(id: id, receiverID: receiverID, unlocked: unlocked)
        if memory.secured && memory.content == nil { throw APIError.locked }
        guard let file else { throw CareFileRefused(message: "Choose a picture or a PDF to attach") }
        let type: UploadType
        switch CareFileRules.attachment.check(file.bytes) {
        case .success(let checked): type = checked
        case .failure(let problem): throw CareFileRefused(message: problem.message)
        }
        let name = CareFileRules.name(file.filename)
        let existing = try await portal.database.read { db in try await CareFileRepository().stored(receiverID: receiverID, memoryID: id, on: db) }
        guard existing.count < CareFileRules.maximumPerMemory else {
            throw CareFileRefused(message: "A memory can have at most \(CareFileRules.maximumPerMemory) files: remove one first")
        }
        return try await keep(file.bytes, type: type, name: name, receiverID: receiverID, memoryID: id, contactID: nil, sealed: memory.secured)
    }

    /// Writes the bytes to the store (sealed when asked) and records them; the stored bytes go again if the record fails.
    private func keep(
        _ bytes: [UInt8],
        type: UploadType,
        name: String,
        receiverID: Int64,
        memoryID: Int64?,
        contactID: Int64?,
        sealed: Bool
    ) async throws -> CareFile {
        let sealer = sealed ? try await portal.database.transaction { db in try await self.sealer(receiverID: receiverID, on: db) } : nil
        let (stored, recordedName) = try await store(bytes, type: type, name: name, sealer: sealer)
        do {
            let file = try await portal.database.transaction { db -> CareFile in
                let file = try await record(
                    stored,
                    name: name,
                    sealedName: recordedName,
                    type: type,
                    size: bytes.count,
                    receiverID: receiverID,
                    memoryID: memoryID,
                    contactID: contactID,
                    on: db
                )
                if let memoryID { try await touchMemory(memoryID, receiverID: receiverID, on: db) }
                return file
            }
            return file
        } catch {
            try? await fileStore.remove(stored)
            throw error
        }
    }

    /// Writes a file's bytes to the store: sealed, with its name, under her `sealer` when there is one (a
    /// secured memory's file), as they are otherwise. In the caller's transaction `db` when given (on
    /// PostgreSQL the bytes are rows of it); the caller removes what was stored if its change fails.
    func store(
        _ bytes: [UInt8],
        type: UploadType,
        name: String,
        sealer: Sealer?,
        on db: (any SQLDatabase)? = nil
    ) async throws -> (stored: StoredUpload, name: String) {
        let store = fileStore
        func save(_ bytes: [UInt8], type: UploadType) async throws -> StoredUpload {
            if let db { return try await store.save(bytes, type: type, on: db) }
            return try await store.save(bytes, type: type)
        }
        guard let sealer else { return (try await save(bytes, type: type), name) }
        let sealedBytes = Array(try sealer.seal(Data(bytes).base64EncodedString(), for: CareFileRules.purpose).utf8)
        return (try await save(sealedBytes, type: .sealed), try sealer.seal(name, for: CareFileRules.namePurpose))
    }

    /// Records a stored file as her memory's or her contact's.
    func record(
        _ stored: StoredUpload,
        name: String,
        sealedName: String,
        type: UploadType,
        size: Int,
        receiverID: Int64,
        memoryID: Int64?,
        contactID: Int64?,
        on db: any SQLDatabase
    ) async throws -> CareFile {
        let now = portal.now
        let sealed = stored.type == .sealed
        let id = try await CareFileRepository().insert(
            receiverID: receiverID,
            memoryID: memoryID,
            contactID: contactID,
            name: sealedName,
            type: type,
            size: size,
            stored: stored,
            sealed: sealed,
            now: now,
            on: db
        )
        return CareFile(
            id: id,
            memoryID: memoryID,
            contactID: contactID,
            name: name,
            type: type,
            size: size,
            stored: stored,
            sealed: sealed,
            createdAt: now
        )
    }

    private func touchMemory(_ id: Int64, receiverID: Int64, on db: any SQLDatabase) async throws {
        let change = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
        try await repository.touchMemory(id: id, receiverID: receiverID, changeNumber: change, now: portal.now, on: db)
    }

    /// One of her memory's files, ready to serve: `nil` when there is no such file of that memory.
    func file(_ fileID: Int64, ofMemory id: Int64, receiverID: Int64, unlocked: Bool) async throws -> CareFile? {
        try await files(ofMemory: id, receiverID: receiverID, unlocked: unlocked).first { $0.id == fileID }
    }

    /// Removes one of her memory's files.
    func removeFile(_ fileID: Int64, ofMemory id: Int64, receiverID: Int64, unlocked: Bool) async throws {
        guard try await file(fileID, ofMemory: id, receiverID: receiverID, unlocked: unlocked) != nil else { throw APIError.notFound }
        let stored = try await portal.database.transaction { db in
            let stored = try await CareFileRepository().delete(ids: [fileID], receiverID: receiverID, on: db)
            try await touchMemory(id, receiverID: receiverID, on: db)
            return stored
        }
        for upload in stored { try? await fileStore.remove(upload) }
    }

    /// The file's bytes as a response: a picture shown in place, a PDF downloaded (a PDF shown by the browser
    /// inside the portal's pages could run its scripts there). A sealed file is opened with her key first.
    func response(for file: CareFile, receiverID: Int64, request: Request, context: some RequestContext) async throws -> Response {
        let filename = (file.name ?? "file").replacingOccurrences(of: "\"", with: "'").filter { $0.isASCII && !$0.isNewline }
        let disposition = "\(file.type == .pdf ? "attachment" : "inline"); filename=\"\(filename.isEmpty ? "file" : filename)\""
        if !file.sealed, var response = try await fileStore.response(for: file.stored, request: request, context: context, downloadName: "file") {
            response.headers[.contentDisposition] = disposition
            response.headers[.cacheControl] = "private, no-store"
            return response
        }
        guard file.sealed else { throw APIError.notFound }
        let sealer = try await portal.database.read { db in try await readSealer(receiverID: receiverID, on: db) }
        guard let sealer, let base64 = try await openedBase64(file, with: sealer), let bytes = Data(base64Encoded: base64) else {
            throw APIError.notFound
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: file.type.rawValue, .contentLength: String(bytes.count), .cacheControl: "private, no-store",
                .contentDisposition: disposition
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// A file's bytes in base64 (her export's form of them): a sealed one's opened with her `sealer`, which
    /// sealed them as base64. Nil when the stored bytes are gone, or are sealed and there is no sealer.
    func base64(of file: CareFile, with sealer: Sealer?) async throws -> String? {
        if !file.sealed { return try await fileStore.read(file.stored).map { Data($0).base64EncodedString() } }
        guard let sealer else { return nil }
        return try await openedBase64(file, with: sealer)
    }

    private func openedBase64(_ file: CareFile, with sealer: Sealer) async throws -> String? {
        guard let sealedBytes = try await fileStore.read(file.stored) else { return nil }
        return try sealer.open(String(decoding: sealedBytes, as: UTF8.self), for: CareFileRules.purpose)
    }

    /// The files of her memory `id` for a caregiver who sees it whole (its category is shared with him; never
    /// a secured one); the read goes into her access log. 404 otherwise.
    func sharedFiles(ofMemory id: Int64, of link: CareLink) async throws -> [CareFile] {
        let (_, whole) = try await sharedMemory(id, of: link)
        guard whole else { throw APIError.notFound }
        return try await visibleFiles(ofMemory: id, receiverID: link.receiverID)
    }

    /// A plain memory's files (a sealed one is never among them), for a caller who has checked and logged the read.
    func visibleFiles(ofMemory id: Int64, receiverID: Int64) async throws -> [CareFile] {
        try await portal.database.read { db in
            try await CareFileRepository().files(memoryID: id, receiverID: receiverID, on: db).filter { !$0.sealed }.map { try opened($0, with: nil) }
        }
    }

    // MARK: Contacts' photos

    /// 404 unless the contact is hers and not deleted.
    private func requireContact(_ id: Int64, receiverID: Int64) async throws {
        let contact = try await portal.database.read { db in try await repository.contact(id: id, receiverID: receiverID, on: db) }
        guard let contact, contact.deletedAt == nil else { throw APIError.notFound }
    }

    func photo(ofContact id: Int64, receiverID: Int64) async throws -> CareFile? {
        try await requireContact(id, receiverID: receiverID)
        return try await portal.database.read { db in
            try await CareFileRepository().photo(contactID: id, receiverID: receiverID, on: db).map { try opened($0, with: nil) }
        }
    }

    /// Sets (or replaces) her contact's photo.
    func setPhoto(_ file: MultipartForm.File?, ofContact id: Int64, receiverID: Int64) async throws -> CareFile {
        try await requireContact(id, receiverID: receiverID)
        guard let file else { throw CareFileRefused(message: "Choose a photo") }
        let type: UploadType
        switch CareFileRules.photo.check(file.bytes) {
        case .success(let checked): type = checked
        case .failure(let problem): throw CareFileRefused(message: problem.message)
        }
        let former = try await portal.database.read { db in try await CareFileRepository().stored(receiverID: receiverID, contactID: id, on: db) }
        let photo = try await keep(
            file.bytes,
            type: type,
            name: CareFileRules.name(file.filename),
            receiverID: receiverID,
            memoryID: nil,
            contactID: id,
            sealed: false
        )
        try await removeFiles(former, receiverID: receiverID)
        return photo
    }

    func removePhoto(ofContact id: Int64, receiverID: Int64) async throws {
        try await requireContact(id, receiverID: receiverID)
        let ids = try await portal.database.read { db in try await CareFileRepository().stored(receiverID: receiverID, contactID: id, on: db) }
        try await removeFiles(ids, receiverID: receiverID)
    }

    /// Removes these files' rows, then their bytes.
    func removeFiles(_ ids: [Int64], receiverID: Int64) async throws {
        guard !ids.isEmpty else { return }
        let stored = try await portal.database.transaction { db in try await CareFileRepository().delete(ids: ids, receiverID: receiverID, on: db) }
        for upload in stored { try? await fileStore.remove(upload) }
    }
}
