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
        videoPage(nil, values: ["source": "link"], errors: FormErrors(), context: context)
    }

    @Sendable func editVideo(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let video = try await portal.database.read({ db in try await content.video(id: id, program: library.program.id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        var values = [
            "title": video.title, "description": video.description, "category": video.category, "length": video.lengthText,
            "stage": video.stage.code, "status": video.status.rawValue
        ]
        if case .weeks(let from, let to) = video.stage {
            values["week_from"] = String(from)
            values["week_to"] = String(to)
        }
        switch video.source {
        case .link(let url): (values["source"], values["url"]) = ("link", url)
        case .file: values["source"] = "file"
        }
        return videoPage(video, values: values, errors: FormErrors(), context: context)
    }

    private func videoPage(_ video: LearningVideo?, values: [String: String], errors: FormErrors, context: PortalContext) -> Response {
        var fields = [
            FormField("title", label: "Title", value: values["title"] ?? "", width: 30),
            FormField("category", label: "Category", value: values["category"] ?? "", hint: library.categoryHint, width: 20),
            FormField(
                "length",
                label: "Length",
                value: values["length"] ?? "",
                hint: "Minutes and seconds, like 4:30, or hours, minutes and seconds",
                width: 10
            )
        ]
        errors.apply(to: &fields)
        var description = FormField(
            "description",
            label: "Description",
            value: values["description"] ?? "",
            hint: "Plain text, up to \(LearningRules.descriptionMaximumLength) characters.",
            type: "4"
        )
        description.error = errors["description"]
        var url = FormField(
            "url",
            label: "Address of the video",
            value: values["url"] ?? "",
            hint: "Starting with https://. The app opens it there; it is never embedded.",
            type: "url",
            width: 30
        )
        url.error = errors["url"]
        var hasFile = false
        if let video, case .file = video.source { hasFile = true }
        var file = FormField(
            "file",
            label: hasFile ? "Replace the file (optional)" : "Video file",
            hint: "An MP4 or WebM video smaller than \(LearningRules.videoRules.maximumSizeText). Choose it again if the form shows a problem.",
            type: "file"
        )
        file.error = errors["file"]
        let heading = video.map { "Change \($0.title)" } ?? "Add a video"
        return portal.pages.response(
            LearningVideoPage(
                layout: portal.layout(heading, context: context, current: library.current),
                errors: errors.items,
                heading: heading,
                action: (video.map { library.videoURL($0.id) } ?? library.newURL).path,
                fields: fields,
                description: description,
                sourceLink: values["source"] == "link",
                sourceFile: values["source"] == "file",
                sourceError: errors["source"],
                url: url,
                file: file,
                currentFile: hasFile ? "\(video!.title) (\(video!.lengthText))" : nil,
                currentFilePath: hasFile ? library.fileURL(video!.id).path : nil,
                target: LearningTargetFields(values: values, errors: errors, asksStage: library.asksStage),
                maximumSize: LearningRules.videoRules.maximumSizeText,
                backPath: library.listURL.path
            ),
            status: errors.isEmpty ? .ok : .unprocessableContent
        )
    }

    @Sendable func createVideo(request: Request, context: PortalContext) async throws -> Response {
        try await saveVideo(nil, request: request, context: context)
    }

    @Sendable func updateVideo(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let video = try await portal.database.read({ db in try await content.video(id: id, program: library.program.id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return try await saveVideo(video, request: request, context: context)
    }

    private func saveVideo(_ existing: LearningVideo?, request: Request, context: PortalContext) async throws -> Response {
        let store = videoFiles
        // The file is written to disk as it arrives; every path below that does not record it removes it.
        let form = try await request.streamedUploadForm(fileField: "file", store: store, rules: LearningRules.videoRules)
        var values = form.fields.mapValues(\.trimmed)
        if !library.asksStage { values["stage"] = LearningStage.all.code }
        var uploaded: StoredUpload?
        if case .success(let stored) = form.upload { uploaded = stored }
        var errors = FormErrors()
        let title = values["title"] ?? "", category = values["category"] ?? "", description = values["description"] ?? ""
        if let problem = LearningRules.lineProblem(title, name: "the video’s title", maximumLength: LearningRules.titleMaximumLength) {
            errors.add("title", problem)
        }
        if let problem = LearningRules.lineProblem(category, name: "a category", maximumLength: LearningRules.categoryMaximumLength) {
            errors.add("category", problem)
        }
        let length = LearningRules.length(values["length"] ?? "")
        if length == nil { errors.add("length", "Enter the length as minutes and seconds, like 4:30") }
        if let problem = LearningRules.textProblem(description, name: "a description", maximumLength: LearningRules.descriptionMaximumLength) {
            errors.add("description", problem)
        }
        var source: LearningVideo.Source?
        switch values["source"] {
        case "link":
            if let url = LearningRules.httpsURL(values["url"] ?? "") {
                source = .link(url)
            } else {
                errors.add("url", "Enter the video’s address, starting with https://")
            }
        case "file":
            switch form.upload {
            case .success(let stored): source = .file(stored, size: try await store.size(of: stored) ?? 0)
            case .failure(let problem): errors.add("file", problem.message)
            case nil:
                if let existing, case .file = existing.source { source = existing.source } else { errors.add("file", "Choose the video file") }
            }
        default:
            errors.add("source", "Choose where the video is")
        }
        let target = LearningContentController.target(values, errors: &errors)
        guard errors.isEmpty, let length, let source, let (stage, status) = target else {
            if let uploaded { try? await store.remove(uploaded) }
            values["url"] = values["url"] ?? ""
            return videoPage(existing, values: values, errors: errors, context: context)
        }
        let video = LearningVideo(
            id: existing?.id ?? 0,
            title: title,
            description: description,
            category: category,
            lengthSeconds: length,
            source: source,
            stage: stage,
            status: status
        )
        let now = portal.now
        do {
            try await portal.database.transaction { db in
                let id = try await content.save(video, program: library.program.id, now: now, on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: context.auditActor,
                        action: existing == nil ? .learningVideoAdded : .learningVideoChanged,
                        recordType: "learning_video",
                        recordID: String(id),
                        origin: portal.origin(of: request, context: context),
                        detail: uploaded.map { "file \($0.type.rawValue), \(video.fileSize ?? 0) bytes" } ?? "\(status.rawValue)"
                    ),
                    on: db
                )
            }
        } catch {
            if let uploaded { try? await store.remove(uploaded) }
            throw error
        }
        // The replaced file goes only once the new source is recorded.
        if let existing, case .file(let old, _) = existing.source, source != existing.source {
            try? await store.remove(old)
        }
        try await portal.flash(Flash(.success, "\(title) is saved."), context: context)
        return seeOther(library.listURL)
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
