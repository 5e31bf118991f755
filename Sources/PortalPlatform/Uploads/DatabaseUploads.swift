import Foundation
import NIOCore
import SQLKit

/// Uploaded files kept in the database (on PostgreSQL, so that every server serves every file): a row in
/// `uploaded_files` says what a file is, and its bytes are in `uploaded_file_parts`, in numbered parts of
/// `partSize` bytes, written as the upload arrives and read back a few parts at a time for a byte range
/// (`UploadStore` runs these queries). A file is unfinished (and never served) until its last part is
/// written and its size and SHA-256 recorded.
package struct DatabaseUploads: Sendable {
    /// 256 KB: a 200 MB video is 800 rows, and a player's range read touches a few of them.
    package static let defaultPartSize = 256 * 1024
    /// How many parts one read fetches: 2 MB at the default size, so a long range is a few round trips.
    static let partsPerRead = 8
    /// Unfinished files this old were abandoned by a server that stopped mid-upload.
    package static let unfinishedFor: TimeInterval = 24 * 3600

    package let folder: String
    package let partSize: Int

    package init(folder: String, partSize: Int = Self.defaultPartSize) {
        self.folder = folder
        self.partSize = partSize
    }

    /// A finished file: its id (the stored name without its extension), size and checksum.
    package struct File: Sendable, Equatable {
        package let id: String
        package let type: UploadType
        package let size: Int
        package let sha256: String
        /// The size of its parts, all but the last: each file keeps the size it was written with.
        package let partSize: Int
    }

    /// The id a stored name is kept under: its 32 hexadecimal digits.
    static func id(of fileName: String) -> String { String(fileName.prefix(32)) }

    /// A file's row, unfinished: it is not served until `finish`.
    func start(id: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "uploaded_files").columns("id", "folder", "part_size", "started_at")
            .values(SQLBind(id), SQLBind(folder), SQLBind(partSize), SQLBind(now.millisecondsSince1970)).run()
    }

    func write(id: String, part: Int, bytes: ArraySlice<UInt8>, on db: any SQLDatabase) async throws {
        try await db.insert(into: "uploaded_file_parts").columns("file_id", "part", "bytes")
            .values(SQLBind(id), SQLBind(part), SQLBind(ByteBuffer(bytes: bytes))).run()
    }

    func finish(id: String, type: UploadType, size: Int, sha256: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("uploaded_files")
            .set("type", to: type.rawValue).set("size", to: size).set("sha256", to: sha256).set("finished_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    /// The finished file stored under this name in this folder, with this type, or nil.
    package func file(_ upload: StoredUpload, on db: any SQLDatabase) async throws -> File? {
        let id = Self.id(of: upload.fileName)
        let row = try await db.select().columns("size", "sha256", "part_size").from("uploaded_files")
            .where("id", .equal, id).where("folder", .equal, folder).where("type", .equal, upload.type.rawValue)
            .where("finished_at", .isNot, SQLLiteral.null)
            .first()
        guard let row else { return nil }
        return File(
            id: id,
            type: upload.type,
            size: try row.decode(column: "size", as: Int.self),
            sha256: try row.decode(column: "sha256", as: String.self),
            partSize: try row.decode(column: "part_size", as: Int.self)
        )
    }

    /// The parts numbered `parts` of the file, in order, each cut to `range` (a byte range within the file).
    /// Throws `Missing` if one is gone.
    func parts(_ parts: ClosedRange<Int>, of file: File, cutTo range: ClosedRange<Int>, on db: any SQLDatabase) async throws -> [ByteBuffer] {
        let rows = try await db.select().columns("part", "bytes").from("uploaded_file_parts")
            .where("file_id", .equal, file.id).where("part", .greaterThanOrEqual, parts.lowerBound).where("part", .lessThanOrEqual, parts.upperBound)
            .orderBy("part").all()
        guard rows.count == parts.count else { throw Missing(id: file.id) }
        return try rows.map { row in
            let bytes = try row.decode(column: "bytes", as: ByteBuffer.self)
            let starts = try row.decode(column: "part", as: Int.self) * file.partSize
            let from = max(range.lowerBound, starts) - starts
            let to = min(range.upperBound, starts + bytes.readableBytes - 1) - starts
            guard from <= to, let cut = bytes.getSlice(at: bytes.readerIndex + from, length: to - from + 1) else { throw Missing(id: file.id) }
            return cut
        }
    }

    package struct Missing: Error, CustomStringConvertible {
        let id: String
        package var description: String { "a part of the uploaded file \(id) is missing from the database" }
    }

    /// Removes the file, finished or not, and its parts (run in a transaction).
    func remove(id: String, on db: any SQLDatabase) async throws {
        try await db.delete(from: "uploaded_file_parts").where("file_id", .equal, id).run()
        try await db.delete(from: "uploaded_files").where("id", .equal, id).run()
    }

    /// Files whose upload started over a day ago and never finished (their server stopped mid-upload) go.
    package static func forgetUnfinished(now: Date, on db: any SQLDatabase) async throws {
        let before = now.addingTimeInterval(-unfinishedFor).millisecondsSince1970
        try await db.raw(
            """
            DELETE FROM uploaded_file_parts
            WHERE file_id IN (SELECT id FROM uploaded_files WHERE finished_at IS NULL AND started_at < \(bind: before))
            """
        ).run()
        try await db.delete(from: "uploaded_files").where("finished_at", .is, SQLLiteral.null).where("started_at", .lessThan, before).run()
    }

    /// The stored names of this folder's finished files, for moving and checking.
    package func storedNames(on db: any SQLDatabase) async throws -> Set<String> {
        let rows = try await db.select().columns("id", "type").from("uploaded_files").where("folder", .equal, folder)
            .where("finished_at", .isNot, SQLLiteral.null).all()
        return Set(
            try rows.compactMap { row in
                try UploadType(rawValue: row.decode(column: "type", as: String.self)).map {
                    "\(try row.decode(column: "id", as: String.self)).\($0.fileExtension)"
                }
            }
        )
    }
}
