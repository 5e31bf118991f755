import Foundation
import HTTPTypes
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The study's videos by category (seed 001 §14) are the learning centre's video part serving the study's
/// own library: its staff keep them, participants watch the published ones, and neither program's pages,
/// API or files reach the other's videos.
@Suite struct StudyVideosTests {
    static func fields(
        title: String = "Ten-minute stretch",
        category: String = "Fitness",
        status: String = "published",
        source: String = "file",
        url: String = ""
    ) -> [(String, String)] {
        [
            ("title", title), ("category", category), ("length", "10:00"), ("description", "Gentle stretches for every morning."),
            ("status", status), ("source", source), ("url", url)
        ]
    }

    @Test(arguments: TestEngines.all)
    func theStudysStaffKeepItsVideosByCategoryAndParticipantsWatchThePublishedOnes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (researcher, _) = try await portal.signedIn(.researcher)
            let empty = try await researcher.get(SiteURL.studyVideos.path)
            #expect(empty.status == .ok && empty.text.contains("No videos yet") && !empty.text.contains(">For<"))
            let form = try await researcher.get(SiteURL.newStudyVideo.path)
            #expect(!form.text.contains("Who it is for"), "a study's video is for every participant: no stage of pregnancy is asked")
            #expect(form.text.contains("Breastfeeding, Fitness or Health"))

            // Every problem beside its field, nothing kept of a refused form.
            let refused = try await researcher.postMultipart(SiteURL.newStudyVideo.path, fields: Self.fields(title: "", category: ""), file: nil)
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorSummary == ["Enter the video’s title", "Enter a category", "Choose the video file"])
            #expect(try await portal.database.read { db in try await db.count(in: "learning_videos") } == 0)

            let uploaded = try await researcher.postMultipart(
                SiteURL.newStudyVideo.path,
                fields: Self.fields(),
                file: ("file", "stretch.mp4", "video/mp4", LearningContentTests.mp4)
            )
            #expect(uploaded.location == SiteURL.studyVideos.path)
            #expect(
                try await researcher.postMultipart(
                    SiteURL.newStudyVideo.path,
                    fields: Self.fields(
                        title: "Feeding positions",
                        category: "Breastfeeding",
                        source: "link",
                        url: "https://videos.example.org/feeding"
                    ),
                    file: nil
                ).location == SiteURL.studyVideos.path
            )
            #expect(
                try await researcher.postMultipart(
                    SiteURL.newStudyVideo.path,
                    fields: Self.fields(
                        title: "Draft about sleep",
                        category: "Health",
                        status: "draft",
                        source: "link",
                        url: "https://videos.example.org/sleep"
                    ),
                    file: nil
                ).location == SiteURL.studyVideos.path
            )
            let library = try await portal.database.read { db in
                try await LearningContentRepository().videos(program: VideoLibrary.study.program.id, on: db)
            }
            #expect(library.map(\.title) == ["Feeding positions", "Ten-minute stretch", "Draft about sleep"])
            #expect(library.allSatisfy { $0.stage == .all })
            let stretch = try #require(library.first { $0.title == "Ten-minute stretch" })
            let draft = try #require(library.first { $0.status == .draft })
            #expect(try await portal.auditEntries(action: .learningVideoAdded).filter { $0.actorRole == "researcher" }.count == 3)
            #expect(try await researcher.get(SiteURL.studyVideoFile(stretch.id).path).status == .ok, "staff can check the file")

            // The perinatal program's library is its own both ways.
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(!(try await admin.get(SiteURL.learningVideos.path).text.contains("Ten-minute stretch")))
            #expect(try await admin.get(SiteURL.learningVideo(stretch.id).path).status == .notFound)
            #expect(try await admin.get(SiteURL.learningVideoFile(stretch.id).path).status == .notFound)
            #expect(
                try await admin.postMultipart(SiteURL.learningVideo(stretch.id).path, fields: Self.fields() + [("stage", "all")], file: nil).status
                    == .notFound
            )
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            #expect((try await wren.get(SiteURL.apiLearning.path).object["categories"] as? [Any])?.isEmpty == true)
            #expect(try await wren.get(SiteURL.apiLearningVideoFile(stretch.id).path).status == .notFound)

            // The participant's app: the published videos by category, the file streamed with ranges; drafts and others' not at all.
            let (app, _) = try await StudyFixtures.participant(portal, code: "NU-301")
            let read = try await app.get(SiteURL.apiStudyVideos.path)
            let categories = try #require(read.object["categories"] as? [[String: Any]])
            #expect(categories.map { $0["name"] as? String } == ["Breastfeeding", "Fitness"])
            let listed = try #require((categories[1]["videos"] as? [[String: Any]])?.first)
            #expect(listed["title"] as? String == "Ten-minute stretch" && listed["kind"] as? String == "file")
            #expect(listed["url"] as? String == SiteURL.apiStudyVideoFile(stretch.id).path && listed["content_type"] as? String == "video/mp4")
            #expect((categories[0]["videos"] as? [[String: Any]])?.first?["url"] as? String == "https://videos.example.org/feeding")
            let part = try await app.send(.get, SiteURL.apiStudyVideoFile(stretch.id).path, headers: [.range: "bytes=0-11"])
            #expect(part.status == .partialContent && Array(part.response.body.readableBytesView) == Array(LearningContentTests.mp4[0...11]))
            #expect(try await app.get(SiteURL.apiStudyVideoFile(draft.id).path).status == .notFound)
            #expect(try await AppClient(portal: portal).get(SiteURL.apiStudyVideos.path).status == .unauthorized)

            // Her web pages: the list by category and a page with the player; a draft is not found.
            var browser = Visitor(portal: portal)
            try await browser.signInToApp(.participant, identifier: "nu-301", password: StudyFixtures.password)
            let page = try await browser.get(SiteURL.appStudyVideos.path)
            #expect(page.text.contains("Breastfeeding") && page.text.contains("Ten-minute stretch") && !page.text.contains("Draft about sleep"))
            let watch = try await browser.get(SiteURL.appStudyVideo(stretch.id).path)
            #expect(
                watch.status == .ok && watch.text.contains(#"src="\#(SiteURL.appStudyVideoFile(stretch.id).path)""#)
                    && !watch.text.contains("I watched it")
            )
            #expect(try await browser.get(SiteURL.appStudyVideoFile(stretch.id).path).status == .ok)
            #expect(try await browser.get(SiteURL.appStudyVideo(draft.id).path).status == .notFound)

            // Archived by the staff, it is no longer hers to watch.
            #expect(
                try await researcher.postMultipart(SiteURL.studyVideo(stretch.id).path, fields: Self.fields(status: "archived"), file: nil).location
                    == SiteURL.studyVideos.path
            )
            #expect(try await app.get(SiteURL.apiStudyVideoFile(stretch.id).path).status == .notFound)
            #expect(try await browser.get(SiteURL.appStudyVideo(stretch.id).path).status == .notFound)
        }
    }
}
