import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// `careportal move-uploads-into-database`: files kept under DATA_DIR go into PostgreSQL under the names their
/// records use, each checked by its SHA-256 before its file is removed; nothing else is touched.
@Suite struct UploadMoveTests {
    @Test(.enabled(if: TestEngines.postgresURL != nil))
    func filesUnderDataDirMoveIntoTheDatabaseCheckedAndOnlyOnce() async throws {
        // setup: a video of three parts, a picture, a "picture" that is a video, and a file the server never named
        let url = try await TestDatabase.make(.postgres)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-move-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        var settings = Settings()
        settings.databaseURL = url
        settings.dataDirectory = data
        settings.logLevel = .error
        let video = UploadsTests.mp4 + (0..<(600 * 1024)).map { UInt8($0 % 251) }
        let videoName = "0123456789abcdef0123456789abcdef.mp4", pictureName = "fedcba9876543210fedcba9876543210.png"
        let disguisedName = "00112233445566778899aabbccddeeff.png"
        for (folder, name, bytes) in [
            ("videos", videoName, video), ("deals", pictureName, UploadsTests.png), ("deals", disguisedName, UploadsTests.mp4),
            ("deals", "readme.txt", Array("not an upload".utf8))
        ] {
            try FileManager.default.createDirectory(atPath: "\(data)/\(folder)", withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: "\(data)/\(folder)/\(name)"))
        }

        let report = try await Commands.moveUploadsIntoDatabase(settings: settings)
        #expect(report.moved == 2 && report.bytes == Int64(video.count + UploadsTests.png.count) && report.alreadyThere == 0)
        #expect(report.left == ["deals/\(disguisedName): The file must be a PNG picture"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(data)/videos").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(data)/deals").sorted() == [disguisedName, "readme.txt"])

        let database = try Database(url: url, logger: TestDatabase.logger)
        let (movedVideo, movedPicture, refused, keptVideos) = try await database.whileRunning {
            () async throws -> ([UInt8]?, [UInt8]?, [UInt8]?, [String]) in
            let videos = UploadStore(database: database, folder: "videos", randomBytes: Dependencies.systemRandomBytes, now: Date.init)
            let deals = UploadStore(database: database, folder: "deals", randomBytes: Dependencies.systemRandomBytes, now: Date.init)
            return (
                try await videos.read(StoredUpload(fileName: videoName, type: .mp4)),
                try await deals.read(StoredUpload(fileName: pictureName, type: .png)),
                try await deals.read(StoredUpload(fileName: disguisedName, type: .png)), try await UploadsTests.kept(videos)
            )
        }
        #expect(movedVideo == video && movedPicture == UploadsTests.png && refused == nil)
        #expect(keptVideos == [videoName], "one finished file, no partial left")

        // Again, with the picture back on disk as an interrupted run leaves it: nothing is moved twice.
        try Data(UploadsTests.png).write(to: URL(fileURLWithPath: "\(data)/deals/\(pictureName)"))
        let again = try await Commands.moveUploadsIntoDatabase(settings: settings)
        #expect(again.moved == 0 && again.alreadyThere == 1 && again.left.count == 1)
        #expect(!FileManager.default.fileExists(atPath: "\(data)/deals/\(pictureName)"))
        // A different file under a name the database holds stays where it is.
        try Data(UploadsTests.png + [1]).write(to: URL(fileURLWithPath: "\(data)/deals/\(pictureName)"))
        let different = try await Commands.moveUploadsIntoDatabase(settings: settings)
        #expect(different.left.contains("deals/\(pictureName): the database holds a different file under this name"))
        #expect(FileManager.default.fileExists(atPath: "\(data)/deals/\(pictureName)"))
        try await TestDatabase.drop(url)
    }

    @Test func onSQLiteUploadsStayUnderDataDir() async throws {
        var settings = Settings()
        settings.databaseURL = "sqlite:///tmp/careportal-never-\(UUID().uuidString).sqlite"
        await #expect(throws: Commands.UploadsStayInDataDir.self) { _ = try await Commands.moveUploadsIntoDatabase(settings: settings) }
        #expect(!FileManager.default.fileExists(atPath: String(settings.databaseURL.dropFirst("sqlite://".count))))
    }
}
