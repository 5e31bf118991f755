import Foundation
import Hummingbird
import PortalPlatform

/// One program's library of videos on the learning centre's video part (a hosted link, or an uploaded
/// file streamed with byte ranges): the perinatal program's learning videos, kept by administrators for a
/// stage of pregnancy; the research study's videos by category (seed 001 §14), kept by the study's staff.
struct VideoLibrary: Sendable {
    let program: Program
    let access: Access
    let title: String
    let introduction: String
    let categoryHint: String
    /// Whether a video is for a stage of pregnancy (members by their week); otherwise for everyone in the program.
    let asksStage: Bool
    /// The navigation entry its pages sit under, and the page above the list.
    let current: SiteURL
    let backPath: String
    let backTitle: String
    /// The program's other learning pages, linked beside "Add a video".
    let otherLink: (title: String, path: String)?
    let listURL: SiteURL
    let newURL: SiteURL
    let videoURL: @Sendable (Int64) -> SiteURL
    let fileURL: @Sendable (Int64) -> SiteURL

    static let perinatal = VideoLibrary(
        program: .perinatalCommunity,
        access: .administrators,
        title: "Videos",
        introduction:
            "A video is a link to one hosted elsewhere, which the app opens there, or a file uploaded here. Members see published videos for their stage of pregnancy; a module can show one too.",
        categoryHint: "Videos are grouped by it in the app, like Breastfeeding",
        asksStage: true,
        current: .learning,
        backPath: SiteURL.learning.path,
        backTitle: "Learning",
        otherLink: ("Modules", SiteURL.learningModules.path),
        listURL: .learningVideos,
        newURL: .newLearningVideo,
        videoURL: SiteURL.learningVideo,
        fileURL: SiteURL.learningVideoFile
    )

    /// Where every library's uploaded files are kept: the platform's uploads of the use "videos" (`Portal.uploads`).
    static func files(of portal: Portal) -> UploadStore {
        portal.uploads("videos")
    }
}

/// The library's staff pages: the list, adding and changing a video (its file written to disk as it
/// arrives and removed on every path that does not record it), and the uploaded file to check.
struct VideoLibraryController {
    let portal: Portal
    let library: VideoLibrary
    let content = LearningContentRepository()

    var videoFiles: UploadStore { VideoLibrary.files(of: portal) }

    func addRoutes(to routes: inout PortalRoutes) {
        let access = library.access
        routes.get(library.listURL.pattern, access: access, videos)
        routes.get(library.newURL.pattern, access: access, newVideo)
        routes.post(library.newURL.pattern, access: access, bodyLimit: LearningRules.videoUploadLimit, createVideo)
        routes.get(SiteURL.pattern(library.videoURL), access: access, editVideo)
        routes.post(SiteURL.pattern(library.videoURL), access: access, bodyLimit: LearningRules.videoUploadLimit, updateVideo)
        routes.get(SiteURL.pattern(library.fileURL), access: access, videoFile)
    }

    @Sendable func videos(request: Request, context: PortalContext) async throws -> Response {
        let videos = try await portal.database.read { db in try await content.videos(program: library.program.id, on: db) }
        return portal.pages.response(
            LearningVideosPage(
                layout: portal.layout(library.title, context: context, current: library.current),
                library: library,
                videos: videos.map {
                    let source: String
                    switch $0.source {
                    case .link(let url): source = URL(string: url)?.host ?? url
                    case .file(let stored, let size): source = "Uploaded \(stored.type.fileExtension.uppercased()), \(max(1, size / 1024 / 1024)) MB"
                    }
                    return LearningVideosPage.Row(
                        title: $0.title,
                        category: $0.category,
                        length: $0.lengthText,
                        source: source,
                        stage: $0.stage.title,
                        status: $0.status.title,
                        statusClass: $0.status.tagClass,
                        path: library.videoURL($0.id).path
                    )
                },
            )
        )
    }

    @Sendable func newVideo(request: Request, context: PortalContext) async throws -> Response {
        videoPage(nil, form: LearningVideoForm(), errors: FormErrors(), context: context)
    }

    @Sendable func editVideo(request: Request, context: PortalContext) async throws -> Response {
        let video = try await video(try context.parameters.recordID())
        return videoPage(video, form: LearningVideoForm(video), errors: FormErrors(), context: context)
    }

    private func video(_ id: Int64) async throws -> LearningVideo {
        guard let video = try await portal.database.read({ db in try await content.video(id: id, program: library.program.id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return video
    }

    private func videoPage(_ video: LearningVideo?, form: LearningVideoForm, errors: FormErrors, context: PortalContext) -> Response {
        let page = LearningVideoPage(library: library, video: video, values: form.values, errors: errors) {
            portal.layout($0, context: context, current: library.current)
        }
        return portal.pages.response(page, status: errors.isEmpty ? .ok : .unprocessableContent)
    }

    @Sendable func createVideo(request: Request, context: PortalContext) async throws -> Response {
        try await saveVideo(nil, request: request, context: context)
    }

    @Sendable func updateVideo(request: Request, context: PortalContext) async throws -> Response {
        try await saveVideo(try await video(try context.parameters.recordID()), request: request, context: context)
    }

    private func saveVideo(_ existing: LearningVideo?, request: Request, context: PortalContext) async throws -> Response {
        let store = videoFiles
        // The file is written to disk as it arrives; every path below that does not record it removes it.
        let sent = try await request.streamedUploadForm(fileField: "file", store: store, rules: LearningRules.videoRules)
        var uploaded: StoredUpload?
        if case .success(let stored) = sent.upload { uploaded = stored }
        let size = try await uploaded.asyncMap { try await store.size(of: $0) } ?? nil
        let form = LearningVideoForm(sent: sent.fields, asksStage: library.asksStage)
        let (made, errors) = form.video(existing: existing, upload: sent.upload, uploadedSize: size ?? 0)
        guard let video = made else {
            if let uploaded { try? await store.remove(uploaded) }
            return videoPage(existing, form: form, errors: errors, context: context)
        }
        do {
            try await record(video, existing: existing, uploaded: uploaded, request: request, context: context)
        } catch {
            if let uploaded { try? await store.remove(uploaded) }
            throw error
        }
        // The replaced file goes only once the new source is recorded.
        if let existing, case .file(let old, _) = existing.source, video.source != existing.source {
            try? await store.remove(old)
        }
        try await portal.flash(Flash(.success, "\(video.title) is saved."), context: context)
        return seeOther(library.listURL)
    }

    /// Saves the video in the library, audited in the same transaction.
    private func record(
        _ video: LearningVideo,
        existing: LearningVideo?,
        uploaded: StoredUpload?,
        request: Request,
        context: PortalContext
    )
        async throws
    {
        let now = portal.now
        try await portal.database.transaction { db in
            let id = try await content.save(video, program: library.program.id, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: existing == nil ? .learningVideoAdded : .learningVideoChanged,
                    recordType: "learning_video",
                    recordID: String(id),
                    origin: portal.origin(of: request, context: context),
                    detail: uploaded.map { "file \($0.type.rawValue), \(video.fileSize ?? 0) bytes" } ?? "\(video.status.rawValue)"
                ),
                on: db
            )
        }
    }

    /// The uploaded file, for the library's staff to check; streamed, with byte ranges.
    @Sendable func videoFile(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let video = try await portal.database.read({ db in try await content.video(id: id, program: library.program.id, on: db) }),
            case .file(let stored, _) = video.source,
            let response = try await videoFiles.response(for: stored, request: request, context: context, downloadName: "video-\(id)")
        else { throw HTTPError(.notFound) }
        return response
    }
}
