import Crypto
import Foundation

/// What a backup archive holds, written into it as `manifest.json`: the format, the schema the
/// database was at, when it was taken, and every file with its size and SHA-256.
public struct BackupManifest: Codable, Sendable, Equatable {
    /// The name of the manifest inside the archive.
    package static let entryName = "manifest.json"
    /// Where the database lies inside the archive, whatever its file was called: a SQLite database file, or
    /// PostgreSQL's dump of its database (`pg_dump`'s custom format).
    package static let databaseEntryName = "database/careportal.sqlite"
    package static let postgresDumpEntryName = "database/careportal.pgdump"
    /// Where the data folder's files lie inside the archive, under their paths in `DATA_DIR`.
    package static let dataFolderPrefix = "data/"
    package static let formatName = "careportal-backup"
    /// Raised whenever a restore of this build could not read what a newer one writes.
    package static let currentFormatVersion = 1

    /// One file of the archive.
    public struct File: Codable, Sendable, Equatable {
        /// Its name inside the archive.
        public var path: String
        public var size: Int64
        /// SHA-256 of its bytes, in lower-case hexadecimal.
        public var sha256: String
        /// Its permission bits in `DATA_DIR` (0600 for the sealing key), restored with it.
        public var mode: Int

        package init(path: String, size: Int64, sha256: String, mode: Int) {
            self.path = path
            self.size = size
            self.sha256 = sha256
            self.mode = mode
        }
    }

    public var format: String
    public var formatVersion: Int
    /// The highest applied migration of the database copy.
    public var schemaVersion: Int
    /// When the database was copied, UTC, e.g. `2026-11-25T05:01:02.345Z`.
    public var createdAt: String
    public var database: File
    /// The data folder's files (uploads, the sealing key), each named `data/<path in DATA_DIR>`.
    public var files: [File]

    enum CodingKeys: String, CodingKey {
        case format
        case formatVersion = "format_version"
        case schemaVersion = "schema_version"
        case createdAt = "created_at"
        case database
        case files
    }

    package init(schemaVersion: Int, createdAt: Date, database: File, files: [File]) {
        format = Self.formatName
        formatVersion = Self.currentFormatVersion
        self.schemaVersion = schemaVersion
        self.createdAt = Self.timestamp(createdAt)
        self.database = database
        self.files = files
    }

    package static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// SHA-256 and size of bytes that arrive in pieces.
package struct FileDigest {
    private var hash = SHA256()
    package private(set) var size: Int64 = 0

    package init() {}

    package mutating func update(_ bytes: Data) {
        hash.update(data: bytes)
        size += Int64(bytes.count)
    }

    package func finalize() -> String {
        hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// Why a backup or a restore did not happen, in words for the operator who ran it. Nothing was
/// written when one of these is thrown (the archive, or the restored database and files).
public struct BackupRefused: Error, CustomStringConvertible {
    public let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// What `careportal backup` or `restore` did.
public struct BackupReport: Sendable, Equatable {
    public var archivePath: String
    public var manifest: BackupManifest

    /// How many files of the data folder the archive holds.
    public var fileCount: Int { manifest.files.count }
    /// The bytes of the database and the files, before compression.
    public var totalSize: Int64 { manifest.files.reduce(manifest.database.size) { $0 + $1.size } }
}
