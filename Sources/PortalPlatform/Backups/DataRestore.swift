import Foundation
import ZIPFoundation

#if canImport(Glibc)
    import Glibc
#endif

/// `careportal restore`: a backup archive back into an empty place — a SQLite database file that does not
/// exist yet, or an empty PostgreSQL database, and an empty or missing data folder.
///
/// Every file's size and SHA-256 is checked against the manifest before anything is written. The files
/// are then written into a hidden folder inside `DATA_DIR` (the database beside its own path when it
/// lies elsewhere), checked again, and only then moved into place; a failure at any point removes what
/// was written, so a restore is whole or not at all. A PostgreSQL dump is loaded by `pg_restore` in one
/// transaction, once every file is written and checked, and before any is moved into place.
package enum DataRestore {
    /// Where the database goes: a new SQLite file at this path, or the empty PostgreSQL database these
    /// tools reach (the caller has checked that it is empty).
    package enum Target {
        case sqlite(path: String)
        case postgres(PostgresTools)

        var entryName: String {
            switch self {
            case .sqlite: BackupManifest.databaseEntryName
            case .postgres: BackupManifest.postgresDumpEntryName
            }
        }
    }

    /// The manifest is small; a larger one is not ours.
    private static let manifestLimit: Int64 = 64 * 1024 * 1024

    package static func restore(
        archivePath: String,
        into target: Target,
        dataDirectory: String,
        latestSchemaVersion: Int
    ) throws -> BackupReport {
        let source = DataBackup.absolute(archivePath)
        var database = ""
        if case .sqlite(let path) = target { database = DataBackup.absolute(path) }
        let data = DataBackup.absolute(dataDirectory)
        try refuseUnlessEmpty(database: database.isEmpty ? nil : database, dataDirectory: data)

        // 1. Read and check everything; nothing is written.
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: source), accessMode: .read)
        } catch {
            throw BackupRefused("\(source) is not a readable ZIP archive (nothing was restored).")
        }
        let manifest = try readManifest(of: archive, at: source)
        guard manifest.schemaVersion <= latestSchemaVersion else {
            throw BackupRefused(
                """
                \(source) holds a database at schema version \(manifest.schemaVersion); this CarePortal knows versions \
                up to \(latestSchemaVersion). Restore it with the CarePortal that made it, or a newer one (nothing was restored).
                """
            )
        }
        let entries = try matchEntries(of: archive, to: manifest, databaseEntry: target.entryName, at: source)
        for (file, entry) in entries {
            try extract(entry, of: archive, checkedAgainst: file, source: source) { _ in }
        }

        // 2. Write into place beside the targets, checking every byte again as it is written.
        let relativeDatabase = !database.isEmpty && DataBackup.isInside(database, data) ? String(database.dropFirst(data.count + 1)) : nil
        var written = Written(dataDirectory: data)
        do {
            written.createdDataDirectory = !FileManager.default.fileExists(atPath: data)
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            let staging = "\(data)/.careportal-restore-\(UUID().uuidString.lowercased())"
            guard mkdir(staging, 0o700) == 0 else {
                throw BackupRefused("Could not make a working folder in \(data): \(DataBackup.describe(errno)).")
            }
            written.staging = staging
            var stagedDatabase = ""
            for (file, entry) in entries {
                let path: String
                if file.path == target.entryName {
                    if case .postgres = target {
                        // Beside the staging folder, so it is never moved into DATA_DIR; removed once loaded.
                        path = "\(data)/.careportal-restore-\(UUID().uuidString.lowercased()).pgdump"
                        written.outsideDatabase = path
                    } else if let relativeDatabase {
                        path = "\(staging)/\(relativeDatabase)"
                    } else {
                        let folder = DataBackup.parent(of: database)
                        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                        path = "\(folder)/.careportal-restore-\(UUID().uuidString.lowercased()).sqlite"
                        written.outsideDatabase = path
                    }
                    stagedDatabase = path
                } else {
                    path = "\(staging)/\(file.path.dropFirst(BackupManifest.dataFolderPrefix.count))"
                }
                try writeFile(entry, of: archive, checkedAgainst: file, to: path, source: source)
            }
            switch target {
            case .sqlite:
                try checkRestoredDatabase(at: stagedDatabase, manifest: manifest)
            case .postgres(let tools):
                try tools.restore(from: stagedDatabase)
                unlink(stagedDatabase)
                written.outsideDatabase = nil
            }

            // 3. Move into place: names only, nothing left to check.
            for name in try FileManager.default.contentsOfDirectory(atPath: staging).sorted() {
                try moveNew("\(staging)/\(name)", to: "\(data)/\(name)")
                written.moved.append("\(data)/\(name)")
            }
            DataBackup.syncFolder(data)
            if let outside = written.outsideDatabase {
                try moveNew(outside, to: database)
                written.outsideDatabase = nil
                written.moved.append(database)
                DataBackup.syncFolder(DataBackup.parent(of: database))
            }
            try? FileManager.default.removeItem(atPath: staging)
        } catch {
            written.undo()
            if let refused = error as? BackupRefused { throw refused }
            throw BackupRefused("The restore stopped and what it had written was removed: \(error).")
        }
        return BackupReport(archivePath: source, manifest: manifest)
    }

    /// Refuses a SQLite database file that exists, or a data folder with anything in it.
    private static func refuseUnlessEmpty(database: String?, dataDirectory: String) throws {
        for suffix in ["", "-wal", "-journal"] where database.map({ FileManager.default.fileExists(atPath: $0 + suffix) }) ?? false {
            let database = database!
            throw BackupRefused(
                """
                \(database + suffix) already exists. A restore never replaces a database: point DATABASE_URL at a new \
                file, or move the old one away first (nothing was restored).
                """
            )
        }
        if FileManager.default.fileExists(atPath: dataDirectory) {
            guard DataBackup.isFolder(dataDirectory) else {
                throw BackupRefused("DATA_DIR (\(dataDirectory)) is a file, not a folder (nothing was restored).")
            }
            let present = (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory)) ?? []
            guard present.isEmpty else {
                throw BackupRefused(
                    """
                    DATA_DIR (\(dataDirectory)) is not empty (it holds \(present.sorted().prefix(3).joined(separator: ", "))\
                    \(present.count > 3 ? ", …" : "")). A restore never replaces uploads: give an empty or new folder (nothing was restored).
                    """
                )
            }
        }
    }

    private static func readManifest(of archive: Archive, at source: String) throws -> BackupManifest {
        guard let entry = archive[BackupManifest.entryName], entry.type == .file else {
            throw BackupRefused("\(source) has no \(BackupManifest.entryName): it is not a CarePortal backup (nothing was restored).")
        }
        guard entry.uncompressedSize <= manifestLimit else {
            throw BackupRefused("\(source)'s manifest is too large to be a CarePortal backup's (nothing was restored).")
        }
        var bytes = Data()
        do {
            _ = try archive.extract(entry, bufferSize: DataBackup.chunkSize) { bytes.append($0) }
        } catch {
            throw damaged(source, "its manifest cannot be read")
        }
        let manifest: BackupManifest
        do {
            manifest = try JSONDecoder().decode(BackupManifest.self, from: bytes)
        } catch {
            throw damaged(source, "its manifest is not a CarePortal backup manifest")
        }
        guard manifest.format == BackupManifest.formatName else {
            throw BackupRefused("\(source) is not a CarePortal backup (nothing was restored).")
        }
        guard manifest.formatVersion <= BackupManifest.currentFormatVersion else {
            throw BackupRefused(
                """
                \(source) was made by a newer CarePortal (backup format \(manifest.formatVersion)); restore it with that \
                version (nothing was restored).
                """
            )
        }
        return manifest
    }

    /// Pairs each file the manifest names with its entry; refuses names that could point outside the
    /// data folder, files missing from the archive and entries the manifest does not name.
    private static func matchEntries(
        of archive: Archive,
        to manifest: BackupManifest,
        databaseEntry: String,
        at source: String
    ) throws -> [(BackupManifest.File, Entry)] {
        guard manifest.database.path == databaseEntry else {
            let other = [BackupManifest.databaseEntryName: "SQLite", BackupManifest.postgresDumpEntryName: "PostgreSQL"][manifest.database.path]
            if let other {
                throw BackupRefused("\(source) is a backup of a \(other) database; DATABASE_URL points at the other kind (nothing was restored).")
            }
            throw damaged(source, "its manifest names the database \(manifest.database.path)")
        }
        var expected: [String: BackupManifest.File] = [manifest.database.path: manifest.database]
        for file in manifest.files {
            guard file.path.hasPrefix(BackupManifest.dataFolderPrefix),
                isSafeRelativePath(String(file.path.dropFirst(BackupManifest.dataFolderPrefix.count))),
                expected.updateValue(file, forKey: file.path) == nil
            else {
                throw damaged(source, "its manifest names a file it may not: \(file.path)")
            }
        }
        var found: [String: Entry] = [:]
        for entry in archive where entry.path != BackupManifest.entryName {
            guard entry.type == .file, expected[entry.path] != nil, found.updateValue(entry, forKey: entry.path) == nil else {
                throw damaged(source, "it holds \(entry.path), which its manifest does not list")
            }
        }
        return try ([manifest.database] + manifest.files).map { file -> (BackupManifest.File, Entry) in
            guard let entry = found[file.path] else { throw damaged(source, "\(file.path) is missing from it") }
            guard entry.uncompressedSize == UInt64(max(0, file.size)) else {
                throw damaged(source, "\(file.path) is \(entry.uncompressedSize) bytes, not the \(file.size) its manifest says")
            }
            return (file, entry)
        }
    }

    /// Components that are neither empty, `.` nor `..`, with no leading slash.
    package static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\0") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// Reads an entry through, handing each piece to `consume`, and refuses it unless its size and
    /// SHA-256 are the manifest's.
    private static func extract(
        _ entry: Entry,
        of archive: Archive,
        checkedAgainst file: BackupManifest.File,
        source: String,
        consume: (Data) throws -> Void
    ) throws {
        var digest = FileDigest()
        do {
            _ = try archive.extract(entry, bufferSize: DataBackup.chunkSize) { bytes in
                digest.update(bytes)
                // A damaged entry that inflates without end is stopped at the size it should have.
                guard digest.size <= file.size else { throw ArchiveCheckFailed() }
                try consume(bytes)
            }
        } catch let refused as BackupRefused {
            throw refused
        } catch {
            throw damaged(source, "\(file.path) cannot be read back as it was written")
        }
        guard digest.size == file.size, digest.finalize() == file.sha256 else {
            throw damaged(source, "\(file.path)'s checksum does not match its manifest")
        }
    }

    private struct ArchiveCheckFailed: Error {}

    /// Writes one entry to a new file at `target` (its folders made as needed), checked as it is written,
    /// with the permissions it had.
    private static func writeFile(
        _ entry: Entry,
        of archive: Archive,
        checkedAgainst file: BackupManifest.File,
        to target: String,
        source: String
    ) throws {
        try FileManager.default.createDirectory(
            atPath: DataBackup.parent(of: target),
            withIntermediateDirectories: true
        )
        let descriptor = open(target, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw BackupRefused("Could not create \(target): \(DataBackup.describe(errno)).") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try extract(entry, of: archive, checkedAgainst: file, source: source) { bytes in
            try handle.write(contentsOf: bytes)
        }
        guard fchmod(descriptor, mode_t(file.mode & 0o777)) == 0, fsync(descriptor) == 0 else {
            throw BackupRefused("Could not write \(target) to the disk: \(DataBackup.describe(errno)).")
        }
        try handle.close()
    }

    /// Opens the restored copy: SQLite must find it whole, at the schema version the manifest says.
    private static func checkRestoredDatabase(at path: String, manifest: BackupManifest) throws {
        do {
            let handle = try SQLiteHandle(path: path, mustExist: true)
            defer { handle.close() }
            try DataBackup.checkIntegrity(of: handle, named: "The restored database")
            let version = try DataBackup.schemaVersion(of: handle)
            guard version == manifest.schemaVersion else {
                throw BackupRefused("The restored database is at schema version \(version), not the \(manifest.schemaVersion) its manifest says.")
            }
        } catch let failure as SQLiteHandle.Failure {
            throw BackupRefused("SQLite cannot open the restored database: \(failure.message).")
        }
    }

    /// Gives an entry its final name, never replacing something that is already there.
    private static func moveNew(_ from: String, to target: String) throws {
        if DataBackup.isFolder(from) {
            // rename replaces only an empty folder; one with something in it makes it fail.
            guard !FileManager.default.fileExists(atPath: target), rename(from, target) == 0 else {
                throw BackupRefused("Could not move the restored \(target) into place: it exists already or \(DataBackup.describe(errno)).")
            }
        } else {
            guard link(from, target) == 0 else {
                throw BackupRefused("Could not move the restored \(target) into place: \(DataBackup.describe(errno)).")
            }
            unlink(from)
        }
    }

    private static func damaged(_ source: String, _ reason: String) -> BackupRefused {
        BackupRefused("\(source) is damaged: \(reason). Nothing was restored.")
    }

    /// What a restore has written so far, to be removed if it cannot finish.
    private struct Written {
        let dataDirectory: String
        var createdDataDirectory = false
        var staging: String?
        var outsideDatabase: String?
        var moved: [String] = []

        func undo() {
            let files = FileManager.default
            for path in moved { try? files.removeItem(atPath: path) }
            if let staging { try? files.removeItem(atPath: staging) }
            if let outsideDatabase { try? files.removeItem(atPath: outsideDatabase) }
            if createdDataDirectory { try? files.removeItem(atPath: dataDirectory) }
        }
    }
}
