import Foundation
import SQLiteNIO
import ZIPFoundation

#if canImport(Glibc)
    import Glibc
#endif

/// `careportal backup`: a running database and its data folder in one ZIP archive. A SQLite database is
/// copied with SQLite's online backup API; a PostgreSQL one is dumped by `pg_dump` (its custom format), which
/// reads one snapshot while the servers go on writing.
///
/// ZIP rather than tar: any `unzip` lists it or takes one file out without CarePortal, it keeps a
/// table of contents so the manifest is found without reading the rest, and ZIPFoundation (ZIP64 for
/// files over 4 GB) is already a dependency. The database is deflated; uploads are stored as they are,
/// since pictures and videos are compressed already.
///
/// With the embedded default the archive holds `DATA_DIR/sealing.key`: without it no sealed value (two-factor
/// secrets, waiting mail) opens after a restore. So an archive is as secret as the database and the key
/// together; it is written with mode 0600. A key given by `SEALING_KEY_FILE` elsewhere is not in it.
package enum DataBackup {
    /// The database a backup copies.
    package enum Source {
        /// The SQLite database file at this path.
        case sqlite(path: String)
        /// The PostgreSQL database these tools reach, at this schema version.
        case postgres(PostgresTools, schemaVersion: Int)
    }

    /// Copies the database while it may be in use, then the files under `dataDirectory`, into a new archive
    /// at `archivePath`, which must not exist yet. Blocks while it works.
    package static func create(_ source: Source, dataDirectory: String, archivePath: String, now: Date) throws -> BackupReport {
        var database: String?
        if case .sqlite(let path) = source { database = absolute(path) }
        let data = absolute(dataDirectory)
        let archive = absolute(archivePath)
        try refuseUnlessPossible(databasePath: database, dataDirectory: data, archivePath: archive)
        let folder = parent(of: archive)

        // Everything is made in a private folder beside the archive and moved into place once complete.
        let work = "\(folder)/.careportal-backup-\(UUID().uuidString.lowercased())"
        guard mkdir(work, 0o700) == 0 else { throw BackupRefused("Could not make a working folder in \(folder): \(describe(errno)).") }
        defer { try? FileManager.default.removeItem(atPath: work) }

        let copy: (path: String, entryName: String, compression: CompressionMethod)
        let schemaVersion: Int
        switch source {
        case .sqlite(let path):
            copy = ("\(work)/database.sqlite", BackupManifest.databaseEntryName, .deflate)
            schemaVersion = try snapshot(absolute(path), into: copy.path)
            // The copy keeps the permissions of the database it was taken from, and is restored with them.
            var status = stat()
            if stat(absolute(path), &status) == 0 { chmod(copy.path, status.st_mode & 0o777) }
        case .postgres(let tools, let version):
            // Compressed by pg_dump already.
            copy = ("\(work)/database.pgdump", BackupManifest.postgresDumpEntryName, .none)
            try tools.dump(to: copy.path)
            chmod(copy.path, 0o600)
            schemaVersion = version
        }
        // Only after the database: every upload a copied row names was synced and named before that row
        // was committed, so it is on disk now.
        let files = try dataFiles(in: data, leavingOut: database)

        let partial = "\(work)/archive.zip"
        let manifest = try writeArchive(
            at: partial,
            database: copy,
            dataDirectory: data,
            files: files,
            schemaVersion: schemaVersion,
            now: now
        )
        try sync(partial)
        // A link, not a rename, so an archive someone made meanwhile under the same name is never replaced.
        guard link(partial, archive) == 0 else {
            let reason = errno == EEXIST ? "it appeared while the backup was made" : describe(errno)
            throw BackupRefused("Could not write \(archive): \(reason) (nothing was backed up).")
        }
        syncFolder(folder)
        return BackupReport(archivePath: archive, manifest: manifest)
    }

    /// Refuses, before anything is done, a missing SQLite database (nil for PostgreSQL), an archive that
    /// exists already or would lie inside `DATA_DIR`, and a folder for it that does not exist.
    package static func refuseUnlessPossible(databasePath: String?, dataDirectory: String, archivePath: String) throws {
        let data = absolute(dataDirectory)
        let archive = absolute(archivePath)
        if let databasePath {
            let database = absolute(databasePath)
            guard FileManager.default.fileExists(atPath: database) else {
                throw BackupRefused("There is no SQLite database at \(database) (DATABASE_URL): nothing was backed up.")
            }
        }
        guard !FileManager.default.fileExists(atPath: archive) else {
            throw BackupRefused("\(archive) already exists: give a new file name (nothing was backed up).")
        }
        let folder = parent(of: archive)
        guard isFolder(folder) else {
            throw BackupRefused("The folder \(folder) does not exist: make it first (nothing was backed up).")
        }
        // A backup inside DATA_DIR would be lost with it, and every later backup would hold the earlier ones.
        guard !isInside(resolved(folder), resolved(data)) else {
            throw BackupRefused("\(archive) is inside DATA_DIR (\(data)): write the backup somewhere else (nothing was backed up).")
        }
    }

    /// Copies the database with SQLite's online backup API and checks the copy; returns its schema version.
    private static func snapshot(_ database: String, into copy: String) throws -> Int {
        do {
            let source = try SQLiteHandle(path: database, mustExist: true)
            defer { source.close() }
            try source.run("PRAGMA busy_timeout = 10000", []) { _ in }
            let destination = try SQLiteHandle(path: copy)
            defer { destination.close() }
            try source.backup(into: destination)
            try checkIntegrity(of: destination, named: "The copy of the database")
            let version = try schemaVersion(of: destination)
            // The copy stands alone, without a write-ahead log beside it; the server turns WAL on again when it opens it.
            try destination.run("PRAGMA journal_mode = DELETE", []) { _ in }
            return version
        } catch let failure as SQLiteHandle.Failure {
            throw BackupRefused("SQLite could not copy \(database): \(failure.message) (nothing was backed up).")
        }
    }

    /// Throws unless SQLite's `integrity_check` finds nothing wrong.
    package static func checkIntegrity(of handle: SQLiteHandle, named name: String) throws {
        var problems: [String] = []
        try handle.run("PRAGMA integrity_check", []) { row in
            if case .text(let text) = row.values.first, text != "ok" { problems.append(text) }
        }
        guard problems.isEmpty else {
            throw BackupRefused("\(name) fails SQLite's integrity check: \(problems.prefix(3).joined(separator: "; ")).")
        }
    }

    /// The highest migration applied to the database, or a refusal when it has never been migrated.
    package static func schemaVersion(of handle: SQLiteHandle) throws -> Int {
        var version: Int?
        do {
            try handle.run("SELECT MAX(version) AS version FROM schema_migrations", []) { row in
                if case .integer(let value) = row.values.first { version = value }
            }
        } catch is SQLiteHandle.Failure {
            version = nil
        }
        guard let version else { throw BackupRefused("The database has no CarePortal schema (no schema_migrations table).") }
        return version
    }

    /// The files under `dataDirectory` a backup holds, as paths relative to it, in order: every regular
    /// file except the SQLite database's own (copied through SQLite instead), half-written uploads and the
    /// working folders of a backup or restore. Symbolic links are not followed.
    package static func dataFiles(in dataDirectory: String, leavingOut database: String?) throws -> [String] {
        guard isFolder(dataDirectory) else { return [] }
        let databaseFiles = Set(database.map { database in ["", "-wal", "-shm", "-journal"].map { resolved(database) + $0 } } ?? [])
        var found: [String] = []
        func walk(_ relative: String) throws {
            let folder = relative.isEmpty ? dataDirectory : "\(dataDirectory)/\(relative)"
            for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
                if name.hasPrefix(".careportal-") || (name.hasPrefix(".") && name.hasSuffix(".partial")) { continue }
                let path = relative.isEmpty ? name : "\(relative)/\(name)"
                var status = stat()
                guard lstat("\(dataDirectory)/\(path)", &status) == 0 else { continue }
                switch status.st_mode & 0o170000 {
                case 0o040000: try walk(path)
                case 0o100000 where !databaseFiles.contains(resolved("\(dataDirectory)/\(path)")): found.append(path)
                default: continue
                }
            }
        }
        try walk("")
        return found
    }

    private static func writeArchive(
        at path: String,
        database: (path: String, entryName: String, compression: CompressionMethod),
        dataDirectory: String,
        files: [String],
        schemaVersion: Int,
        now: Date
    ) throws -> BackupManifest {
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        // Before anything is in it: the archive holds the database and the sealing key.
        guard chmod(path, 0o600) == 0 else { throw BackupRefused("Could not make \(path) private: \(describe(errno)).") }
        guard let databaseEntry = try add(database.path, as: database.entryName, to: archive, compression: database.compression, now: now) else {
            throw BackupRefused("The copy of the database disappeared while the archive was written.")
        }
        var entries: [BackupManifest.File] = []
        for file in files {
            // A file removed since the folder was read is left out: its row was deleted after the copy.
            if let entry = try add("\(dataDirectory)/\(file)", as: BackupManifest.dataFolderPrefix + file, to: archive, compression: .none, now: now)
            {
                entries.append(entry)
            }
        }
        let manifest = BackupManifest(schemaVersion: schemaVersion, createdAt: now, database: databaseEntry, files: entries)
        let bytes = try manifest.encoded()
        try archive.addEntry(
            with: BackupManifest.entryName,
            type: .file,
            uncompressedSize: Int64(bytes.count),
            modificationDate: now,
            permissions: 0o600,
            compressionMethod: .deflate
        ) { position, size in
            bytes.subdata(in: Int(position)..<Int(position) + size)
        }
        return manifest
    }

    /// Adds one file, reading it once for the archive and its SHA-256; nil when it is gone.
    private static func add(
        _ path: String,
        as name: String,
        to archive: Archive,
        compression: CompressionMethod,
        now: Date
    ) throws -> BackupManifest.File? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw BackupRefused("Could not read \(path): \(describe(errno)) (nothing was backed up).")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw BackupRefused("Could not read \(path): \(describe(errno)).") }
        let size = Int64(status.st_size)
        let mode = Int(status.st_mode & 0o777)
        var digest = FileDigest()
        try archive.addEntry(
            with: name,
            type: .file,
            uncompressedSize: size,
            modificationDate: now,
            permissions: UInt16(mode),
            compressionMethod: compression,
            bufferSize: chunkSize
        ) { _, count in
            let bytes = try handle.read(upToCount: count) ?? Data()
            digest.update(bytes)
            return bytes
        }
        guard digest.size == size else {
            throw BackupRefused("\(path) changed size while it was copied (nothing was backed up); try again.")
        }
        return BackupManifest.File(path: name, size: size, sha256: digest.finalize(), mode: mode)
    }

    // MARK: Files

    package static let chunkSize = 256 * 1024

    package static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The path with symbolic links resolved, as far as it exists.
    package static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }

    /// The folder holding `path`.
    package static func parent(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    /// Whether `path` is `folder` or lies under it.
    package static func isInside(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    package static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Flushes a file's bytes to the disk.
    package static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw BackupRefused("Could not open \(path) to sync it: \(describe(errno)).") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw BackupRefused("Could not sync \(path) to the disk: \(describe(errno)).") }
    }

    /// Flushes a folder's names (a file just linked or renamed into it) to the disk.
    package static func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    package static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
