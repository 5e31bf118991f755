import Foundation
import Hummingbird
import PortalPlatform

/// The study's videos by category (seed 001 §14: breastfeeding, fitness, health…): the learning centre's
/// video part serving the study's own library, kept by the study's staff and watched by participants in
/// their app and on their web pages, uploaded files streamed with byte ranges.
extension VideoLibrary {
    static let study = VideoLibrary(
        program: .researchStudy,
        access: .studyStaff,
        title: "Study videos",
        introduction:
            "A video is a link to one hosted elsewhere, which the app opens there, or a file uploaded here. Participants see the published videos, grouped by category.",
        categoryHint: "Videos are grouped by it in the app, like Breastfeeding, Fitness or Health",
        asksStage: false,
        current: .studyVideos,
        backPath: SiteURL.studies.path,
        backTitle: "Study",
        otherLink: nil,
        listURL: .studyVideos,
        newURL: .newStudyVideo,
        videoURL: SiteURL.studyVideo,
        fileURL: SiteURL.studyVideoFile
    )
}

enum StudyVideosAPI {
    struct Category: Encodable, Sendable {
        let name: String
        let videos: [LearningCenterAPI.VideoListing]
    }

    struct List: Encodable, Sendable {
        let categories: [Category]

        init(_ videos: [LearningVideo]) {
            categories = StudyVideos.byCategory(videos).map { name, videos in
                Category(name: name, videos: videos.map { LearningCenterAPI.VideoListing($0, fileURL: SiteURL.apiStudyVideoFile) })
            }
        }
    }
}

/// What participants may watch: the study library's published videos.
struct StudyVideos: Sendable {
    let portal: Portal
    let content = LearningContentRepository()

    func published() async throws -> [LearningVideo] {
        try await portal.database.read { db in try await content.publishedVideos(program: VideoLibrary.study.program.id, on: db) }
    }

    /// A published video of the study's library, or nil (a draft, an archived one or another program's).
    func published(_ id: Int64) async throws -> LearningVideo? {
        let video = try await portal.database.read { db in try await content.video(id: id, program: VideoLibrary.study.program.id, on: db) }
        return video?.status == .published ? video : nil
    }

    /// The uploaded file of a published video, with byte ranges; nil when there is none to stream.
    func file(_ id: Int64, request: Request, context: PortalContext) async throws -> Response? {
        guard let video = try await published(id), case .file(let stored, _) = video.source else { return nil }
        return try await VideoLibrary.files(of: portal).response(for: stored, request: request, context: context, downloadName: "video-\(id)")
    }

    /// The categories in name order, each with its videos in the library's order (by title).
    static func byCategory(_ videos: [LearningVideo]) -> [(name: String, videos: [LearningVideo])] {
        Dictionary(grouping: videos, by: \.category).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

extension TemplateName {
    static let appStudyVideos = TemplateName("app/study/videos")
}

/// The study's videos on her phone, by category.
struct ParticipantVideosPage: Page {
    static let template = TemplateName.appStudyVideos

    struct Item: Encodable, Sendable {
        let title: String
        let summary: String
        let path: String
    }

    struct Category: Encodable, Sendable {
        let name: String
        let videos: [Item]
    }

    let layout: Layout
    let categories: [Category]

    init(layout: Layout, videos: [LearningVideo]) {
        self.layout = layout
        categories = StudyVideos.byCategory(videos).map { name, videos in
            Category(
                name: name,
                videos: videos.map {
                    Item(title: $0.title, summary: "\($0.lengthText) · \($0.description)", path: SiteURL.appStudyVideo($0.id).path)
                }
            )
        }
    }
}
