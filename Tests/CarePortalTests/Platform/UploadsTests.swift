import Foundation
import Crypto
import HTTPTypes
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The one way files are uploaded, stored and served: type by content, a size limit per use, server-chosen
/// names under DATA_DIR, nothing half-stored, and byte ranges for players that seek.
@Suite struct UploadsTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(0..<92)
    static let mp4: [UInt8] = [0, 0, 0, 0x18] + Array("ftypisom".utf8) + Array(repeating: 5, count: 100)
    static let webm: [UInt8] =
        [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84] + Array("webm".utf8) + Array(repeating: 3, count: 50)
    static let mkv: [UInt8] =
        [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88] + Array("matroska".utf8) + Array(repeating: 3, count: 50)
    static let quickTime: [UInt8] = [0, 0, 0, 0x14] + Array("ftypqt  ".utf8) + Array(repeating: 5, count: 60)

    static func temporaryStore(_ folder: String = "videos") -> (UploadStore, String) {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-uploads-\(UUID().uuidString)").path
        return (UploadStore(dataDirectory: data, folder: folder, randomBytes: Dependencies.systemRandomBytes), data)
    }

    @Test func theTypeComesFromTheBytesNeverFromTheName() {
        #expect(UploadType.detect(Self.png) == .png)
        #expect(UploadType.detect(Self.mp4) == .mp4)
        #expect(UploadType.detect(Self.webm) == .webm)
        #expect(UploadType.detect(Self.mkv) == nil, "a Matroska file that is not WebM is refused")
        #expect(UploadType.detect(Self.quickTime) == nil, "QuickTime is not MP4")
        #expect(UploadType.detect(Array("<html><script>alert(1)</script>".utf8)) == nil)
        #expect(UploadType.detect([]) == nil)
        #expect(UploadType.describe(UploadType.videos) == "an MP4 or WebM video")
        #expect(UploadType.describe(UploadType.pictures) == "a PNG, JPEG or WebP picture")
    }

    @Test func eachUseHasItsLimitAndClearMessages() {
        let rules = UploadRules(types: UploadType.videos, maximumSize: 150, noun: "video")
        #expect(rules.check(Self.mp4) == .success(.mp4))
        #expect(
            rules.check(Self.png) == .failure(UploadProblem(message: "The video must be an MP4 or WebM video")),
            "a picture called .mp4 is still a picture"
        )
        #expect(rules.check([]) == .failure(UploadProblem(message: "The selected video file is empty")))
        #expect(rules.check(Self.mp4 + Array(repeating: 0, count: 100)) == .failure(UploadProblem(message: "The video must be smaller than 0 MB")))
        #expect(UploadRules(types: UploadType.videos, maximumSize: 200 * 1024 * 1024, noun: "video").maximumSizeText == "200 MB")
    }

    /// What the store holds for its use, finished or not: file names in its folder (a partial file starts with
    /// a dot), or in the database the stored names of its finished files, `.<id>.partial` for unfinished
    /// ones, and `part of <id>` for parts whose file is gone.
    static func kept(_ store: UploadStore) async throws -> [String] {
        switch store.place {
        case .folder(let directory):
            return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        case .database(let database):
            return try await database.read { db in
                let files = try await db.select().columns("id", "type", "finished_at").from("uploaded_files").where("folder", .equal, store.folder)
                    .all()
                var names = try files.map { row -> String in
                    let id = try row.decode(column: "id", as: String.self)
                    guard try row.decode(column: "finished_at", as: Int64?.self) != nil,
                        let type = UploadType(rawValue: try row.decode(column: "type", as: String.self))
                    else { return ".\(id).partial" }
                    return "\(id).\(type.fileExtension)"
                }
                let orphans = try await db.raw(
                    "SELECT DISTINCT file_id FROM uploaded_file_parts WHERE file_id NOT IN (SELECT id FROM uploaded_files)"
                ).all()
                names += try orphans.map { "part of \(try $0.decode(column: "file_id", as: String.self))" }
                return names.sorted()
            }
        }
    }

    /// Every store a use's files can be in: a folder, and the database of each engine, in parts of 16 bytes
    /// so that a file of a few hundred bytes spans many parts.
    static func eachStore(_ body: @escaping @Sendable (UploadStore) async throws -> Void) async throws {
        let (folder, data) = temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try await body(folder)
        for engine in TestEngines.all {
            try await TestPortal.run(engine) { portal in
                try await body(
                    UploadStore(
                        database: portal.database,
                        folder: "videos",
                        randomBytes: Dependencies.systemRandomBytes,
                        now: { portal.clock.now },
                        partSize: 16
                    )
                )
            }
        }
    }

    @Test func aRefusedUploadLeavesNothingBehind() async throws {
        try await Self.eachStore { store in
            let rules = UploadRules(types: UploadType.videos, maximumSize: 150, noun: "video")
            // Wrong type, found from the first bytes while it is still arriving.
            let wrong = try await store.writer(rules: rules)
            #expect(try await wrong.append(Array(repeating: UInt8(ascii: "a"), count: 80)) == rules.wrongType)
            #expect(try await wrong.finish() == .failure(rules.wrongType))
            // Too large, found as it grows.
            let large = try await store.writer(rules: rules)
            #expect(try await large.append(Self.mp4) == nil)
            #expect(try await large.append(Array(repeating: 0, count: 100)) == rules.tooLarge)
            // Empty.
            let empty = try await store.writer(rules: rules)
            #expect(try await empty.finish() == .failure(rules.empty))
            // Abandoned half-way, as when the connection drops.
            let dropped = try await store.writer(rules: rules)
            #expect(try await dropped.append(Self.mp4.prefix(70)) == nil)
            await dropped.abandon()
            #expect(try await Self.kept(store).isEmpty)

            // Short files are typed when they are complete; a good one is named by the server.
            let short = try await store.writer(rules: rules)
            #expect(try await short.append(Self.webm.prefix(20)) == nil)
            let stored = try await short.finish().get()
            #expect(stored.type == .webm && UploadStore.isStoredName(stored.fileName) && stored.fileName.hasSuffix(".webm"))
            #expect(try await Self.kept(store) == [stored.fileName])
            #expect(try await store.read(stored) == Array(Self.webm.prefix(20)))
            #expect(try await store.read(StoredUpload(fileName: stored.fileName, type: .mp4)) == nil, "the name's extension matches its type")
            try await store.remove(stored)
            #expect(try await Self.kept(store).isEmpty)
            let (read, size) = (try await store.read(stored), try await store.size(of: stored))
            #expect(read == nil && size == nil)
        }
    }

    @Test func aFileInTheDatabaseIsWrittenInPartsAndReadBackByAnyRange() async throws {
        let bytes = Self.mp4 + (0..<200).map { UInt8($0) }
        let checksum = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        try await Self.eachStore { store in
            guard case .database(let database) = store.place else { return }
            let writer = try await store.writer(rules: UploadRules(types: UploadType.videos, maximumSize: 1_000, noun: "video"))
            // Pieces of 7 bytes: parts fill across pieces, and the type is known once 64 bytes are in.
            for start in stride(from: 0, to: bytes.count, by: 7) {
                #expect(try await writer.append(bytes[start..<min(bytes.count, start + 7)]) == nil)
            }
            let arriving = try await Self.kept(store)
            #expect(arriving.count == 1 && arriving[0].hasSuffix(".partial"), "unfinished, and never served")
            let stored = try await writer.finish().get()
            let file = try #require(try await store.file(stored))
            #expect(file.size == bytes.count && file.partSize == 16 && file.sha256 == checksum)
            #expect(try await store.checksum(of: file) == checksum)
            let parts = try await database.read { db in try await db.count(in: "uploaded_file_parts") }
            #expect(parts == (bytes.count + 15) / 16)
            #expect(try await store.read(stored) == bytes)
            for range in [0...0, 15...16, 5...100, 16...31, 300...(bytes.count - 1), 0...(bytes.count - 1)] {
                var read: [UInt8] = []
                try await store.read(file, range: range) { read += $0.readableBytesView }
                #expect(read == Array(bytes[range]), "bytes \(range)")
            }
            try await store.remove(stored)
            #expect(try await Self.kept(store).isEmpty)
        }
    }

    @Test(arguments: TestEngines.all)
    func anUploadAServerStoppedInTheMiddleOfIsSweptADayLater(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let store = UploadStore(
                database: portal.database,
                folder: "videos",
                randomBytes: Dependencies.systemRandomBytes,
                now: { portal.clock.now },
                partSize: 16
            )
            let finished = try await store.save(Self.mp4, type: .mp4)
            let stopped = try await store.writer(rules: UploadRules(types: UploadType.videos, maximumSize: 1_000, noun: "video"))
            #expect(try await stopped.append(Self.mp4) == nil)
            #expect(try await Self.kept(store).count == 2)
            try await portal.database.write { db in
                try await DatabaseUploads.forgetUnfinished(now: portal.clock.now.addingTimeInterval(3_600), on: db)
            }
            #expect(try await Self.kept(store).count == 2, "an upload still arriving is kept")
            try await portal.database.write { db in
                try await DatabaseUploads.forgetUnfinished(now: portal.clock.now.addingTimeInterval(25 * 3_600), on: db)
            }
            #expect(try await Self.kept(store) == [finished.fileName])
        }
    }

    @Test func storedNamesAreOnlyTheOnesTheServerMakes() {
        #expect(UploadStore.isStoredName("0123456789abcdef0123456789abcdef.mp4"))
        #expect(!UploadStore.isStoredName("0123456789ABCDEF0123456789ABCDEF.mp4"))
        #expect(!UploadStore.isStoredName("../careportal.sqlite"))
        #expect(!UploadStore.isStoredName("0123456789abcdef0123456789abcdef.mp4.sh"))
        #expect(!UploadStore.isStoredName(".0123456789abcdef0123456789abcdef.partial"))
        let (store, _) = Self.temporaryStore()
        #expect(
            store.path(of: StoredUpload(fileName: "0123456789abcdef0123456789abcdef.png", type: .mp4)) == nil,
            "the name's extension matches its type"
        )
    }

    @Test func rangeHeadersAreReadAsHTTPSaysWithOneRangeServed() {
        #expect(ByteRange.parse(nil, size: 100) == .whole)
        #expect(ByteRange.parse("bytes=0-9", size: 100) == .part(0...9))
        #expect(ByteRange.parse("bytes=40-59", size: 100) == .part(40...59))
        #expect(ByteRange.parse("bytes=90-", size: 100) == .part(90...99))
        #expect(ByteRange.parse("bytes=90-500", size: 100) == .part(90...99), "an end past the file is the file's end")
        #expect(ByteRange.parse("bytes=-10", size: 100) == .part(90...99))
        #expect(ByteRange.parse("bytes=-500", size: 100) == .part(0...99))
        #expect(ByteRange.parse("bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-0", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-", size: 0) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=9-3", size: 100) == .whole, "a range that is not valid is ignored")
        #expect(ByteRange.parse("bytes=0-1,5-6", size: 100) == .whole, "several ranges: the whole file")
        #expect(ByteRange.parse("items=0-1", size: 100) == .whole)
        #expect(ByteRange.parse("bytes=a-b", size: 100) == .whole)
    }

    @Test(arguments: TestEngines.all)
    func storedFilesAreServedWithTheirTypeAndByteRanges(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            try await admin.get("/catalogue/exercises/new")
            let saved = try await admin.postMultipart(
                "/catalogue/exercises/new",
                fields: [("name", "Walking"), ("description", "Walk tall.")],
                file: ("illustration", "walking.mp4", "video/mp4", Self.png)
            )
            #expect(saved.location == "/catalogue")
            let exercise = try #require(try await portal.database.read { db in try await CatalogueRepository().exercises(on: db) }.first)
            let path = "/catalogue/exercises/\(exercise.id)/illustration"

            let whole = try await admin.get(path)
            #expect(whole.status == .ok && whole.headers[.contentType] == "image/png" && whole.headers[.acceptRanges] == "bytes")
            #expect(whole.headers[.contentLength] == "100" && Array(whole.body.readableBytesView) == Self.png)

            let first = try await admin.get(path, headers: [.range: "bytes=0-7"])
            #expect(first.status == .partialContent && first.headers[.contentRange] == "bytes 0-7/100")
            #expect(Array(first.body.readableBytesView) == Array(Self.png[0...7]))
            let middle = try await admin.get(path, headers: [.range: "bytes=40-59"])
            #expect(middle.status == .partialContent && middle.headers[.contentRange] == "bytes 40-59/100" && middle.headers[.contentLength] == "20")
            #expect(Array(middle.body.readableBytesView) == Array(Self.png[40...59]))
            let open = try await admin.get(path, headers: [.range: "bytes=95-"])
            #expect(open.headers[.contentRange] == "bytes 95-99/100" && Array(open.body.readableBytesView) == Array(Self.png[95...]))
            let suffix = try await admin.get(path, headers: [.range: "bytes=-3"])
            #expect(suffix.status == .partialContent && Array(suffix.body.readableBytesView) == Array(Self.png.suffix(3)))
            let outside = try await admin.get(path, headers: [.range: "bytes=100-"])
            #expect(outside.status == .rangeNotSatisfiable && outside.headers[.contentRange] == "bytes */100")
            #expect(outside.body.readableBytes == 0)
        }
    }
}
