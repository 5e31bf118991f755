import Foundation
import SQLKit
import SQLiteNIO
import Synchronization
import Testing
import ZIPFoundation
@testable import CarePortal
@testable import PortalPlatform

/// `careportal backup` and `restore`. The backup copies a SQLite file, so these run on SQLite only;
/// on PostgreSQL the command refuses (the last test), and the README gives pg_dump's commands.
@Suite struct BackupTests {
    /// A SQLite database inside its own DATA_DIR, as `script/server` lays them out.
    struct Place {
        let folder: String
        /// What `remove` deletes: the folder itself, or the fresh folder made to hold it.
        var root: String?
        var databasePath: String { "\(folder)/careportal.sqlite" }
        var settings: Settings {
            var settings = Settings()
            settings.databaseURL = "sqlite://\(databasePath)"
            settings.dataDirectory = folder
            settings.logLevel = .error
            return settings
        }

        /// A folder that does not exist yet, to restore into.
        static func fresh() -> Place {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-restore-\(UUID().uuidString)").path
            return Place(folder: "\(root)/data", root: root)
        }

        func remove() {
            try? FileManager.default.removeItem(atPath: root ?? folder)
        }
    }

    /// What the writers had been told was saved.
    struct Acknowledged {
        var members: [(id: Int64, pseudonym: String)] = []
        var uploads: [(fileName: String, bytes: [UInt8])] = []
    }

    /// Shared by the writers and the test: what they have saved, and when to stop.
    final class Writers: Sendable {
        let log = Mutex(Acknowledged())
        let stop = Atomic(false)
        var stopped: Bool { stop.load(ordering: .relaxed) }
    }

    static func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    /// A PNG's signature and then noise: enough for the uploads to take it as a picture.
    static func picture() -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + randomBytes(Int.random(in: 2_000...40_000))
    }

    static func archivePath() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-backups-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("backup.zip").path
    }

    /// A member and her audit entry in one transaction, as registration writes them.
    static func register(_ pseudonym: String, on database: Database) async throws -> Int64 {
        try await database.transaction { db in
            let members = MemberRepository()
            let cohort = try await members.cohort(dueMonth: "2027-04", now: Date(), on: db)
            let member = try await members.create(
                NewMember(
                    pseudonym: pseudonym,
                    passwordHash: "not-a-real-hash",
                    avatarID: Avatar.memberSet[0].id,
                    dueDate: CalendarDate(iso: "2027-04-15")!,
                    recoveryEmail: "\(pseudonym)@example.invalid",
                    securityQuestion: "First pet?",
                    securityAnswerHash: "not-a-real-hash",
                    usState: nil,
                    zipCode: nil,
                    bio: ""
                ),
                cohort: cohort,
                now: Date(),
                on: db
            )
            try await AuditLog(now: Date.init).record(
                AuditEvent(
                    actor: .system,
                    action: .accountCreated,
                    recordType: "member",
                    recordID: "\(member.id)",
                    origin: .commandLine
                ),
                on: db
            )
            return member.id
        }
    }

    /// Opens a database file directly and returns what `integrity_check` and `foreign_key_check` say.
    static func consistency(of path: String) throws -> (integrity: [String], foreignKeyProblems: Int) {
        let handle = try SQLiteHandle(path: path, mustExist: true)
        defer { handle.close() }
        var integrity: [String] = []
        try handle.run("PRAGMA integrity_check", []) { row in
            if case .text(let text) = row.values.first { integrity.append(text) }
        }
        var problems = 0
        try handle.run("PRAGMA foreign_key_check", []) { _ in problems += 1 }
        return (integrity, problems)
    }

    @Test func sqliteBackupTakenWhileWritesGoOnRestoresEveryAcknowledgedWriteAndUpload() async throws {
        // setup: a running database with a second factor sealed under DATA_DIR's key
        let url = try await TestDatabase.make(.sqlite)
        let place = Place(folder: DataBackup.parent(of: String(url.dropFirst("sqlite://".count))))
        let restored = Place.fresh()
        let archive = try Self.archivePath()
        defer {
            place.remove()
            restored.remove()
            try? FileManager.default.removeItem(atPath: DataBackup.parent(of: archive))
        }
        let sealed = try SecondFactorSealer(sealer: try Sealer.load(place.settings)).seal("JBSWY3DPEHPK3PXP")
        let uploads = UploadStore(dataDirectory: place.folder, folder: "illustrations", randomBytes: Self.randomBytes)
        // A half-written upload is never backed up.
        let folder = try #require(uploads.directory)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: "\(folder)/.0123456789abcdef0123456789abcdef.partial", contents: Data([1, 2, 3]))

        let database = try Database(url: url, logger: TestDatabase.logger)
        // Eight megabytes that do not compress, so the backup takes long enough for writes to go on during it.
        let setup = try Database(url: url, logger: TestDatabase.logger)
        try await setup.whileRunning {
            try await setup.transaction { db in
                try await db.raw("CREATE TABLE backup_ballast (bytes BLOB NOT NULL)").run()
                for _ in 0..<8 { try await db.raw("INSERT INTO backup_ballast (bytes) VALUES (randomblob(1048576))").run() }
            }
        }
        let writers = Writers()
        let (beforeBackup, report, writtenDuringBackup) = try await database.whileRunning {
            try await withThrowingTaskGroup(of: Void.self, returning: (Acknowledged, BackupReport, Int).self) { group in
                // Two writers, as two requests at once would be: members (with their audit entries) and uploads.
                group.addTask {
                    var index = 0
                    while !writers.stopped {
                        let pseudonym = "backup\(index)"
                        let id = try await Self.register(pseudonym, on: database)
                        writers.log.withLock { $0.members.append((id, pseudonym)) }
                        index += 1
                    }
                }
                group.addTask {
                    while !writers.stopped {
                        let bytes = Self.picture()
                        let stored = try await uploads.save(bytes, type: .png)
                        writers.log.withLock { $0.uploads.append((stored.fileName, bytes)) }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
                while writers.log.withLock({ $0.members.count < 40 || $0.uploads.count < 10 }) {
                    try await Task.sleep(for: .milliseconds(10))
                }
                // MUT: everything acknowledged up to now must be in the backup
                let before = writers.log.withLock { $0 }
                let report = try await Commands.backup(settings: place.settings, to: archive)
                let atEnd = writers.log.withLock { $0.members.count }
                // The writers go on after the backup: it never stopped them.
                while writers.log.withLock({ $0.members.count < atEnd + 20 }) {
                    try await Task.sleep(for: .milliseconds(10))
                }
                writers.stop.store(true, ordering: .relaxed)
                try await group.waitForAll()
                return (before, report, atEnd - before.members.count)
            }
        }
        let restoredReport = try await Commands.restore(settings: restored.settings, from: archive)

        // validate: the writers were not held up while the database was copied and archived
        #expect(writtenDuringBackup > 0)
        // the archive is private and lists the key, the uploads and no half-written file
        let archiveMode = try FileManager.default.attributesOfItem(atPath: archive)[.posixPermissions] as? Int
        #expect(archiveMode == 0o600)
        #expect(restoredReport.manifest == report.manifest)
        #expect(report.manifest.schemaVersion == SchemaHistory.latestVersion)
        let listed = Set(report.manifest.files.map(\.path))
        #expect(listed.contains("data/sealing.key"))
        #expect(!listed.contains { $0.hasSuffix(".partial") || $0.contains("careportal.sqlite") })
        #expect(report.manifest.files.first { $0.path == "data/sealing.key" }?.mode == 0o600)

        // every acknowledged write, in a database SQLite finds whole
        let consistency = try Self.consistency(of: restored.databasePath)
        #expect(consistency.integrity == ["ok"])
        #expect(consistency.foreignKeyProblems == 0)
        let reopened = try Database(url: restored.settings.databaseURL, logger: TestDatabase.logger)
        let (found, membersWithoutAudit, restoredCount, backupEntries) = try await reopened.whileRunning {
            try await reopened.read { db in
                var found: [Int64: String] = [:]
                for member in beforeBackup.members {
                    if let restored = try await MemberRepository().find(id: member.id, on: db) { found[member.id] = restored.pseudonym }
                }
                let orphans = try await db.raw(
                    """
                    SELECT COUNT(*) AS orphans FROM members m WHERE NOT EXISTS (
                        SELECT 1 FROM audit_log a WHERE a.record_type = 'member' AND a.record_id = CAST(m.id AS TEXT))
                    """
                ).first()?.decode(column: "orphans", as: Int.self)
                let backups = try await db.raw("SELECT action FROM audit_log WHERE record_type = 'backup' ORDER BY id").all()
                    .map { try $0.decode(column: "action", as: String.self) }
                return (found, orphans, try await MemberRepository().count(on: db), backups)
            }
        }
        #expect(found.count == beforeBackup.members.count)
        #expect(beforeBackup.members.allSatisfy { found[$0.id] == $0.pseudonym })
        // A transaction is in the copy whole or not at all: no member without her audit entry.
        #expect(membersWithoutAudit == 0)
        #expect(restoredCount >= beforeBackup.members.count)
        // The backup was recorded before the copy (so the copy holds it), and the restore in the restored log.
        #expect(backupEntries == ["backup_taken", "backup_restored"])

        // every acknowledged upload with its bytes, and the key that opens the second factor
        for upload in beforeBackup.uploads {
            let bytes = FileManager.default.contents(atPath: "\(restored.folder)/illustrations/\(upload.fileName)")
            #expect(bytes.map { [UInt8]($0) } == upload.bytes, "\(upload.fileName)")
        }
        #expect(try SecondFactorSealer(sealer: try Sealer.load(restored.settings)).open(sealed) == "JBSWY3DPEHPK3PXP")
        let keyMode = try FileManager.default.attributesOfItem(atPath: "\(restored.folder)/sealing.key")[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        // Nothing of the restore's own is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: restored.folder).allSatisfy { !$0.hasPrefix(".careportal-") })
    }

    /// A database with a few members, an upload and the key, backed up; returns the archive's path.
    static func smallBackup(of place: Place) async throws -> (archive: String, upload: [UInt8]) {
        let database = try Database(url: place.settings.databaseURL, logger: TestDatabase.logger)
        try await database.whileRunning {
            for index in 0..<3 { _ = try await Self.register("small\(index)", on: database) }
        }
        _ = try SecondFactorSealer(sealer: try Sealer.load(place.settings)).seal("JBSWY3DPEHPK3PXP")
        let upload = Self.picture()
        _ = try await UploadStore(dataDirectory: place.folder, folder: "deals", randomBytes: Self.randomBytes).save(upload, type: .png)
        let archive = try Self.archivePath()
        _ = try await Commands.backup(settings: place.settings, to: archive)
        return (archive, upload)
    }

    static func sourcePlace() async throws -> Place {
        let url = try await TestDatabase.make(.sqlite)
        return Place(folder: DataBackup.parent(of: String(url.dropFirst("sqlite://".count))))
    }

    /// Every file under a folder, with its bytes, to prove a refused restore changed nothing.
    static func snapshot(of folder: String) -> [String: Data] {
        var files: [String: Data] = [:]
        guard let names = FileManager.default.enumerator(atPath: folder) else { return files }
        for case let name as String in names {
            if let data = FileManager.default.contents(atPath: "\(folder)/\(name)") { files[name] = data }
        }
        return files
    }

    @Test func sqliteRestoreRefusesAnExistingDatabaseOrADataFolderWithAnythingInIt() async throws {
        let source = try await Self.sourcePlace()
        defer { source.remove() }
        let (archive, _) = try await Self.smallBackup(of: source)
        defer { try? FileManager.default.removeItem(atPath: DataBackup.parent(of: archive)) }

        // Into the very place it came from: the database exists.
        let before = Self.snapshot(of: source.folder)
        await #expect(throws: BackupRefused.self) { _ = try await Commands.restore(settings: source.settings, from: archive) }
        #expect(Self.snapshot(of: source.folder) == before)

        // An empty database file elsewhere is a database all the same.
        let emptyDatabase = Place.fresh()
        defer { emptyDatabase.remove() }
        try FileManager.default.createDirectory(atPath: emptyDatabase.folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: emptyDatabase.databasePath, contents: Data())
        await #expect(throws: BackupRefused.self) { _ = try await Commands.restore(settings: emptyDatabase.settings, from: archive) }
        #expect(Self.snapshot(of: emptyDatabase.folder) == ["careportal.sqlite": Data()])

        // A data folder holding one upload folder: refused, and nothing added, the database included.
        let occupied = Place.fresh()
        defer { occupied.remove() }
        try FileManager.default.createDirectory(atPath: "\(occupied.folder)/videos", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: "\(occupied.folder)/videos/kept.mp4", contents: Data("old".utf8))
        let error = await #expect(throws: BackupRefused.self) { _ = try await Commands.restore(settings: occupied.settings, from: archive) }
        #expect(error?.description.contains("not empty") == true)
        #expect(Self.snapshot(of: occupied.folder) == ["videos/kept.mp4": Data("old".utf8)])

        // An empty folder is fine.
        let empty = Place.fresh()
        defer { empty.remove() }
        try FileManager.default.createDirectory(atPath: empty.folder, withIntermediateDirectories: true)
        let report = try await Commands.restore(settings: empty.settings, from: archive)
        #expect(report.fileCount == 2)
        #expect(FileManager.default.fileExists(atPath: empty.databasePath))
    }

    @Test func sqliteRestoreRefusesADamagedArchiveAndWritesNothing() async throws {
        let source = try await Self.sourcePlace()
        defer { source.remove() }
        let (archive, upload) = try await Self.smallBackup(of: source)
        defer { try? FileManager.default.removeItem(atPath: DataBackup.parent(of: archive)) }
        let original = try Data(contentsOf: URL(fileURLWithPath: archive))
        // The upload is stored as it is: find its bytes in the archive.
        let uploadAt = try #require(original.range(of: Data(upload[100..<164]))?.lowerBound)
        // The manifest's compressed bytes follow its name in its local header.
        let manifestAt = try #require(original.range(of: Data(BackupManifest.entryName.utf8))?.upperBound)

        // A byte flipped in the database's compressed bytes, in the upload's bytes, and in the manifest's.
        for offset in [200, uploadAt + 10, manifestAt + 10] {
            var damaged = original
            damaged[offset] ^= 0x5A
            let damagedPath = DataBackup.parent(of: archive) + "/damaged-\(offset).zip"
            try damaged.write(to: URL(fileURLWithPath: damagedPath))
            let target = Place.fresh()
            defer { target.remove() }
            await #expect(throws: BackupRefused.self, "a byte flipped at \(offset)") {
                _ = try await Commands.restore(settings: target.settings, from: damagedPath)
            }
            #expect(!FileManager.default.fileExists(atPath: target.folder), "nothing written for a byte flipped at \(offset)")
        }

        // A manifest whose checksum is not the file's, in an archive ZIP itself finds sound.
        let tampered = DataBackup.parent(of: archive) + "/tampered.zip"
        try Self.rewrite(archive, to: tampered) { manifest in
            manifest.files[0].sha256 = String(repeating: "0", count: 64)
        }
        let target = Place.fresh()
        defer { target.remove() }
        let error = await #expect(throws: BackupRefused.self) { _ = try await Commands.restore(settings: target.settings, from: tampered) }
        #expect(error?.description.contains("checksum does not match") == true)
        #expect(!FileManager.default.fileExists(atPath: target.folder))
        #expect(!FileManager.default.fileExists(atPath: target.databasePath))

        // A manifest naming a file outside the data folder.
        let escaping = DataBackup.parent(of: archive) + "/escaping.zip"
        try Self.rewrite(archive, to: escaping) { manifest in
            manifest.files[0].path = "data/../../outside"
        }
        await #expect(throws: BackupRefused.self) { _ = try await Commands.restore(settings: target.settings, from: escaping) }
        #expect(!FileManager.default.fileExists(atPath: target.folder))

        // The untouched archive restores.
        let report = try await Commands.restore(settings: target.settings, from: archive)
        #expect(report.fileCount == 2)
    }

    /// Copies an archive entry by entry, changing its manifest on the way.
    static func rewrite(_ path: String, to copy: String, _ change: (inout BackupManifest) -> Void) throws {
        let source = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        let target = try Archive(url: URL(fileURLWithPath: copy), accessMode: .create)
        for entry in source {
            var bytes = Data()
            _ = try source.extract(entry) { bytes.append($0) }
            if entry.path == BackupManifest.entryName {
                var manifest = try JSONDecoder().decode(BackupManifest.self, from: bytes)
                change(&manifest)
                bytes = try manifest.encoded()
            }
            let content = bytes
            try target.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(content.count)) { position, size in
                content.subdata(in: Int(position)..<Int(position) + size)
            }
        }
    }

    @Test func sqliteBackupRefusesAnArchiveThatExistsOrLiesInsideTheDataFolder() async throws {
        let source = try await Self.sourcePlace()
        defer { source.remove() }
        let (archive, _) = try await Self.smallBackup(of: source)
        defer { try? FileManager.default.removeItem(atPath: DataBackup.parent(of: archive)) }
        let before = try Data(contentsOf: URL(fileURLWithPath: archive))
        await #expect(throws: BackupRefused.self) { _ = try await Commands.backup(settings: source.settings, to: archive) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: archive)) == before)
        await #expect(throws: BackupRefused.self) { _ = try await Commands.backup(settings: source.settings, to: "\(source.folder)/backup.zip") }
        #expect(!FileManager.default.fileExists(atPath: "\(source.folder)/backup.zip"))
        // No working folder is left beside the archive.
        #expect(try FileManager.default.contentsOfDirectory(atPath: DataBackup.parent(of: archive)) == ["backup.zip"])
    }

    @Test(.enabled(if: TestEngines.postgresURL != nil))
    func onPostgreSQLTheBackupIsADumpBesideDataDirAndRestoresIntoAnEmptyDatabaseOnly() async throws {
        // setup: a database with members and an uploaded picture (in the database), and a file in DATA_DIR
        let sourceURL = try await TestDatabase.make(.postgres)
        let emptyURL = try await TestDatabase.emptyDatabaseURL(.postgres)
        let source = Place(folder: FileManager.default.temporaryDirectory.appendingPathComponent("careportal-pg-\(UUID().uuidString)").path)
        let restored = Place.fresh()
        let archive = try Self.archivePath()
        defer { source.remove(); restored.remove(); try? FileManager.default.removeItem(atPath: DataBackup.parent(of: archive)) }
        var settings = source.settings
        settings.databaseURL = sourceURL
        let database = try Database(url: sourceURL, logger: TestDatabase.logger)
        let picture = Self.picture()
        let (members, stored) = try await database.whileRunning {
            var members: [Int64] = []
            for index in 0..<3 { members.append(try await Self.register("pg\(index)", on: database)) }
            let store = UploadStore(database: database, folder: "deals", randomBytes: Self.randomBytes, now: Date.init)
            return (members, try await store.save(picture, type: .png))
        }
        try FileManager.default.createDirectory(atPath: "\(source.folder)/notes", withIntermediateDirectories: true)
        try Data("kept beside the database".utf8).write(to: URL(fileURLWithPath: "\(source.folder)/notes/readme.txt"))

        // backup: pg_dump's dump and DATA_DIR's file, each with its checksum
        let report = try await Commands.backup(settings: settings, to: archive)
        #expect(report.manifest.database.path == BackupManifest.postgresDumpEntryName)
        #expect(report.manifest.schemaVersion == SchemaHistory.latestVersion)
        #expect(report.manifest.files.map(\.path) == ["data/notes/readme.txt"])

        // restore: refused into a database that has tables, and into SQLite, with nothing written
        var intoFull = restored.settings
        intoFull.databaseURL = sourceURL
        let full = await #expect(throws: BackupRefused.self) { _ = try await Commands.restore(settings: intoFull, from: archive) }
        #expect(full?.description.contains("empty") == true)
        let intoSQLite = await #expect(throws: BackupRefused.self) { _ = try await Commands.restore(settings: restored.settings, from: archive) }
        #expect(intoSQLite?.description.contains("PostgreSQL") == true)
        #expect(!FileManager.default.fileExists(atPath: restored.folder))
        // An archive whose dump is not the one its manifest names is refused before pg_restore runs: the empty
        // database stays empty.
        let damaged = try Self.archivePath()
        defer { try? FileManager.default.removeItem(atPath: DataBackup.parent(of: damaged)) }
        try Self.rewrite(archive, to: damaged) { manifest in
            manifest.database.sha256 = String(repeating: "0", count: 64)
        }
        var intoEmpty = restored.settings
        intoEmpty.databaseURL = emptyURL
        await #expect(throws: BackupRefused.self) { _ = try await Commands.restore(settings: intoEmpty, from: damaged) }
        let stillEmpty = try Database(url: emptyURL, logger: TestDatabase.logger)
        #expect(try await stillEmpty.whileRunning { try await Migrator(database: stillEmpty, logger: TestDatabase.logger).tableCount() } == 0)

        // restore into the empty database: the members, the picture with its checksum, the file
        _ = try await Commands.restore(settings: intoEmpty, from: archive)
        let empty = try Database(url: emptyURL, logger: TestDatabase.logger)
        try await empty.whileRunning {
            let ids = try await empty.read { db in
                try await db.select().column("id").from("members").orderBy("id").all().map { try $0.decode(column: "id", as: Int64.self) }
            }
            #expect(ids == members)
            let store = UploadStore(database: empty, folder: "deals", randomBytes: Self.randomBytes, now: Date.init)
            #expect(try await store.read(stored) == picture)
            let file = try #require(try await store.file(stored))
            #expect(try await store.checksum(of: file) == file.sha256)
            let restoredEntry = try await empty.read { db in
                try await db.select().column("detail").from("audit_log").where("action", .equal, "backup_restored").all()
            }
            #expect(restoredEntry.count == 1)
        }
        #expect(try String(contentsOfFile: "\(restored.folder)/notes/readme.txt", encoding: .utf8) == "kept beside the database")
        #expect(try FileManager.default.contentsOfDirectory(atPath: restored.folder) == ["notes"], "no dump or working folder is left behind")
        try await TestDatabase.drop(sourceURL)
        try await TestDatabase.drop(emptyURL)
    }
}
