import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `careportal move-uploads-into-database`: the uploaded files a server on PostgreSQL kept under `DATA_DIR`
/// before they were kept in the database, moved into it under the names their records already use. Each file
/// is streamed in, read back from the database and compared with the file's SHA-256, and only then removed
/// from the folder; a file that differs, or that is not what its name says, stays where it is and is named
/// in the report. Run again, it finishes what an interrupted run left and moves nothing twice.
public enum UploadMove {
    public struct Report: Sendable, Equatable {
        /// Files moved in and removed from the folder.
        public var moved = 0
        public var bytes: Int64 = 0
        /// Files the database already held with the same bytes (an earlier run stopped before removing them).
        public var alreadyThere = 0
        /// Files left in the folder, each with the reason.
        public var left: [String] = []
    }

    /// Moves every file with a name the server makes from each folder under `dataDirectory` into `database`.
    package static func move(dataDirectory: String, database: Database, now: @escaping @Sendable () -> Date) async throws -> Report {
        var report = Report()
        let folders = ((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory)) ?? []).sorted()
            .filter { !$0.hasPrefix(".") && DataBackup.isFolder("\(dataDirectory)/\($0)") }
        for folder in folders {
            let store = UploadStore(database: database, folder: folder, randomBytes: Dependencies.systemRandomBytes, now: now)
            let directory = "\(dataDirectory)/\(folder)"
            for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() where UploadStore.isStoredName(name) {
                let type = UploadType.allCases.first { name.hasSuffix(".\($0.fileExtension)") }!
                let upload = StoredUpload(fileName: name, type: type)
                try await move(upload, from: "\(directory)/\(name)", into: store, report: &report)
            }
        }
        return report
    }

    private static func move(_ upload: StoredUpload, from path: String, into store: UploadStore, report: inout Report) async throws {
        let shown = "\(store.folder)/\(upload.fileName)"
        guard let file = FileHandle(forReadingAtPath: path) else {
            report.left.append("\(shown): it could not be read")
            return
        }
        defer { try? file.close() }
        if let there = try await store.file(upload) {
            guard try sha256(of: path) == there.sha256 else {
                report.left.append("\(shown): the database holds a different file under this name")
                return
            }
            unlink(path)
            report.alreadyThere += 1
            return
        }
        // An unfinished copy from a run that stopped midway goes first.
        try await store.remove(id: DatabaseUploads.id(of: upload.fileName))
        let writer = try await store.writer(rules: UploadRules(types: [upload.type], maximumSize: .max, noun: "file"), keeping: upload)
        while let piece = try file.read(upToCount: DataBackup.chunkSize), !piece.isEmpty {
            if let problem = try await writer.append(piece) {
                report.left.append("\(shown): \(problem.message)")
                return
            }
        }
        if case .failure(let problem) = try await writer.finish() {
            report.left.append("\(shown): \(problem.message)")
            return
        }
        // The writer kept the SHA-256 of the file's bytes as it read them; the database's parts must give it again.
        guard let moved = try await store.file(upload), try await store.checksum(of: moved) == moved.sha256 else {
            try await store.remove(id: DatabaseUploads.id(of: upload.fileName))
            report.left.append("\(shown): its copy in the database did not read back the same")
            return
        }
        unlink(path)
        report.moved += 1
        report.bytes += Int64(moved.size)
    }

    private static func sha256(of path: String) throws -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? file.close() }
        var digest = FileDigest()
        while let piece = try file.read(upToCount: DataBackup.chunkSize), !piece.isEmpty { digest.update(piece) }
        return digest.finalize()
    }
}
