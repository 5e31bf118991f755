import Foundation
import Hummingbird
import NIOCore
import SQLKit

#if canImport(Glibc)
    import Glibc
#endif

/// Uploaded files of one use (illustrations, videos, …), each under a random name the server chose; the
/// uploader's file name is never used. Where they live depends on the database: on SQLite, in files under
/// `DATA_DIR/<folder>`, beside the database, so a backup of DATA_DIR holds them; on PostgreSQL, in the
/// database itself (`DatabaseUploads`), so every server behind a load balancer serves every file and the
/// database's backup holds them. Either way a file is written as it arrives and read back in pieces, never
/// whole in memory.
package struct UploadStore: Sendable {
    package enum Place: Sendable {
        /// Files under this folder.
        case folder(String)
        /// Rows of this database (`DatabaseUploads`).
        case database(Database)
    }

    /// The use's name: its folder under DATA_DIR, or its files' `folder` in the database.
    package let folder: String
    package let place: Place
    /// The queries of files kept in the database.
    package let rows: DatabaseUploads
    let randomBytes: @Sendable (Int) -> [UInt8]
    let now: @Sendable () -> Date

    /// Files under `DATA_DIR/<folder>`.
    package init(dataDirectory: String, folder: String, randomBytes: @escaping @Sendable (Int) -> [UInt8]) {
        self.folder = folder
        place = .folder("\(dataDirectory)/\(folder)")
        rows = DatabaseUploads(folder: folder)
        self.randomBytes = randomBytes
        now = { Date() }
    }

    /// Files in the database.
    package init(
        database: Database,
        folder: String,
        randomBytes: @escaping @Sendable (Int) -> [UInt8],
        now: @escaping @Sendable () -> Date,
        partSize: Int = DatabaseUploads.defaultPartSize
    ) {
        self.folder = folder
        place = .database(database)
        rows = DatabaseUploads(folder: folder, partSize: partSize)
        self.randomBytes = randomBytes
        self.now = now
    }

    /// Where a use's files live with this database: in it on PostgreSQL, so every server serves every file;
    /// under `DATA_DIR/<folder>` on SQLite.
    package static func of(
        _ folder: String,
        database: Database,
        dataDirectory: String,
        randomBytes: @escaping @Sendable (Int) -> [UInt8],
        now: @escaping @Sendable () -> Date
    ) -> UploadStore {
        switch database.engine {
        case .postgres: UploadStore(database: database, folder: folder, randomBytes: randomBytes, now: now)
        case .sqlite: UploadStore(dataDirectory: dataDirectory, folder: folder, randomBytes: randomBytes)
        }
    }

    /// The folder on disk, or nil when the files are in the database.
    package var directory: String? {
        guard case .folder(let directory) = place else { return nil }
        return directory
    }

    package struct WriteFailed: Error, CustomStringConvertible {
        package let description: String
    }

    /// Writes bytes already checked against the use's rules durably and returns their stored name.
    package func save(_ bytes: [UInt8], type: UploadType) async throws -> StoredUpload {
        let writer = try await UploadWriter(store: self, rules: UploadRules(types: [type], maximumSize: max(bytes.count, 1), noun: "file"))
        do {
            if let problem = try await writer.append(bytes) { throw WriteFailed(description: problem.message) }
            switch try await writer.finish() {
            case .success(let stored): return stored
            case .failure(let problem): throw WriteFailed(description: problem.message)
            }
        } catch {
            await writer.abandon()
            throw error
        }
    }

    /// The same, for a small file written with the records that name it: in the database, in the caller's
    /// transaction `db` (the demo's pictures); under DATA_DIR as `save(_:type:)` writes it otherwise.
    package func save(_ bytes: [UInt8], type: UploadType, on db: any SQLDatabase) async throws -> StoredUpload {
        guard case .database = place else { return try await save(bytes, type: type) }
        let id = newID()
        try await rows.start(id: id, now: now(), on: db)
        for (part, start) in stride(from: 0, to: bytes.count, by: rows.partSize).enumerated() {
            try await rows.write(id: id, part: part, bytes: bytes[start..<min(bytes.count, start + rows.partSize)], on: db)
        }
        var digest = FileDigest()
        digest.update(Data(bytes))
        try await rows.finish(id: id, type: type, size: bytes.count, sha256: digest.finalize(), now: now(), on: db)
        return StoredUpload(fileName: "\(id).\(type.fileExtension)", type: type)
    }

    /// A name for a new file: 32 hexadecimal digits, before its type's extension.
    func newID() -> String {
        randomBytes(16).map { String(format: "%02x", $0) }.joined()
    }

    /// Starts writing an upload that arrives in pieces; see `UploadWriter`.
    package func writer(rules: UploadRules) async throws -> UploadWriter {
        try await UploadWriter(store: self, rules: rules)
    }

    /// A writer that keeps a stored name already in use (a file moved from a folder into the database).
    package func writer(rules: UploadRules, keeping upload: StoredUpload) async throws -> UploadWriter {
        guard Self.names(upload) else { throw WriteFailed(description: "\(upload.fileName) is not a name the server makes") }
        return try await UploadWriter(store: self, rules: rules, keeping: DatabaseUploads.id(of: upload.fileName))
    }

    /// The file's path on disk, or nil when the files are in the database or the name is not one the
    /// server makes, so no stored value can point elsewhere.
    package func path(of upload: StoredUpload) -> String? {
        guard let directory, Self.names(upload) else { return nil }
        return "\(directory)/\(upload.fileName)"
    }

    /// Whether the stored name is one the server makes, with its type's extension.
    static func names(_ upload: StoredUpload) -> Bool {
        isStoredName(upload.fileName) && upload.fileName.hasSuffix("." + upload.type.fileExtension)
    }

    /// The stored file's size in bytes, or nil when it is gone or the name is not one the server makes.
    package func size(of upload: StoredUpload) async throws -> Int? {
        switch place {
        case .folder:
            guard let path = path(of: upload) else { return nil }
            var status = stat()
            return stat(path, &status) == 0 ? Int(status.st_size) : nil
        case .database:
            return try await file(upload)?.size
        }
    }

    /// The stored file's bytes, or nil when it is gone or the name is not one the server makes. For small
    /// files (pictures); videos are served in pieces by `response`.
    package func read(_ upload: StoredUpload) async throws -> [UInt8]? {
        switch place {
        case .folder:
            return path(of: upload).flatMap { FileManager.default.contents(atPath: $0) }.map(Array.init)
        case .database:
            guard let file = try await file(upload) else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(file.size)
            try await read(file, range: file.size == 0 ? nil : 0...(file.size - 1)) { bytes += $0.readableBytesView }
            return bytes
        }
    }

    package func remove(_ upload: StoredUpload) async throws {
        switch place {
        case .folder:
            guard let path = path(of: upload) else { return }
            unlink(path)
        case .database:
            guard Self.names(upload) else { return }
            try await remove(id: DatabaseUploads.id(of: upload.fileName))
        }
    }

    /// Names the server makes: 32 hexadecimal digits and a known extension.
    package static func isStoredName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 32 && parts[0].allSatisfy { $0.isHexDigit && !$0.isUppercase }
            && UploadType.allCases.contains { $0.fileExtension == parts[1] }
    }

    /// The stored file as a response with its type, streamed from disk or the database, honouring a single
    /// `Range` so players can seek: 206 with Content-Range, 416 when the range is outside the file.
    package func response(
        for upload: StoredUpload,
        request: Request,
        context: some RequestContext,
        downloadName: String
    ) async throws -> Response? {
        guard let size = try await size(of: upload) else { return nil }
        var headers: HTTPFields = [
            .contentType: upload.type.rawValue,
            .contentDisposition: "inline; filename=\"\(downloadName).\(upload.type.fileExtension)\"",
            .acceptRanges: "bytes"
        ]
        let range: ClosedRange<Int>
        let status: HTTPResponse.Status
        switch ByteRange.parse(request.headers[.range], size: size) {
        case .whole:
            headers[.contentLength] = String(size)
            guard size > 0 else { return Response(status: .ok, headers: headers, body: .init()) }
            range = 0...(size - 1)
            status = .ok
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentType] = nil
            headers[.contentDisposition] = nil
            return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
        case .part(let part):
            range = part
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = String(range.count)
        }
        switch place {
        case .folder:
            guard let path = path(of: upload) else { return nil }
            return Response(status: status, headers: headers, body: try await FileIO().loadFile(path: path, range: range, context: context))
        case .database:
            guard let file = try await file(upload) else { return nil }
            return Response(
                status: status,
                headers: headers,
                body: ResponseBody(contentLength: range.count) { writer in
                    try await read(file, range: range) { try await writer.write($0) }
                    try await writer.finish(nil)
                }
            )
        }
    }
}

/// The queries of a store whose files are in the database, each on a connection of its own (a file is
/// written as it arrives, part by part, outside any transaction of the request's).
extension UploadStore {
    private var database: Database {
        guard case .database(let database) = place else { preconditionFailure("the files of \(folder) are not in the database") }
        return database
    }

    /// The finished file in the database, or nil when there is none or the name is not one the server makes.
    package func file(_ upload: StoredUpload) async throws -> DatabaseUploads.File? {
        guard Self.names(upload) else { return nil }
        return try await database.read { db in try await rows.file(upload, on: db) }
    }

    /// Hands `range`'s bytes of the file (none when nil) to `body`, a part at a time, reading a few parts per query.
    package func read(_ file: DatabaseUploads.File, range: ClosedRange<Int>?, _ body: (ByteBuffer) async throws -> Void) async throws {
        guard let range, file.size > 0 else { return }
        var part = range.lowerBound / file.partSize
        let lastPart = range.upperBound / file.partSize
        while part <= lastPart {
            let parts = part...min(lastPart, part + DatabaseUploads.partsPerRead - 1)
            let pieces = try await database.read { db in try await rows.parts(parts, of: file, cutTo: range, on: db) }
            for piece in pieces { try await body(piece) }
            part = parts.upperBound + 1
        }
    }

    /// The SHA-256 of the bytes the database holds for the file, worked out again from its parts.
    package func checksum(of file: DatabaseUploads.File) async throws -> String {
        var digest = FileDigest()
        try await read(file, range: file.size == 0 ? nil : 0...(file.size - 1)) { digest.update(Data($0.readableBytesView)) }
        return digest.finalize()
    }

    func start(id: String) async throws {
        try await database.write { db in try await rows.start(id: id, now: now(), on: db) }
    }

    func write(id: String, part: Int, bytes: ArraySlice<UInt8>) async throws {
        try await database.write { db in try await rows.write(id: id, part: part, bytes: bytes, on: db) }
    }

    func finish(id: String, type: UploadType, size: Int, sha256: String) async throws {
        try await database.write { db in try await rows.finish(id: id, type: type, size: size, sha256: sha256, now: now(), on: db) }
    }

    func remove(id: String) async throws {
        try await database.transaction { db in try await rows.remove(id: id, on: db) }
    }
}

/// What a `Range` header asks of a file of a given size. Only one range is served; a header with several,
/// or one that is not understood, is answered with the whole file, as HTTP allows.
package enum ByteRange: Equatable {
    case whole
    case part(ClosedRange<Int>)
    case unsatisfiable

    package static func parse(_ header: String?, size: Int) -> ByteRange {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty) else { return .whole }
        if first.isEmpty {
            // The last n bytes.
            guard let count = Int(last) else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - count)...(size - 1))
        }
        guard let start = Int(first) else { return .whole }
        let end: Int
        if last.isEmpty {
            end = size - 1
        } else {
            guard let given = Int(last), given >= start else { return .whole }
            end = min(given, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .part(start...end)
    }
}
