import Foundation
import PortalPlatform

/// A module's form: the values typed (or the module's own, to change it), and the module they make or what
/// to fix beside each field.
struct LearningModuleForm: Sendable {
    private static let trimmedFields = ["title", "category", "position", "summary", "links", "week_from", "week_to", "video_id"]

    private(set) var values: [String: String]

    /// The form as sent, its one-line fields trimmed.
    init(sent: [String: String]) {
        values = sent
        for key in Self.trimmedFields { values[key] = values[key]?.trimmed }
    }

    /// The form filled with a module's own values.
    init(_ module: LearningModule) {
        values = [
            "title": module.title, "summary": module.summary, "body": module.bodySource, "category": module.category,
            "position": String(module.position), "stage": module.stage.code, "status": module.status.rawValue,
            "video_id": module.videoID.map(String.init) ?? "", "links": LearningRules.linksText(module.links)
        ]
        for group in module.moodGroups { values["after_\(group.rawValue)"] = "yes" }
        if case .weeks(let from, let to) = module.stage {
            values["week_from"] = String(from)
            values["week_to"] = String(to)
        }
    }

    /// An empty form for a new module.
    init() {
        values = ["position": "0"]
    }

    /// Whether the form asks only to see its text rendered, not to save it.
    var asksForPreview: Bool { values["intent"] == "preview" }

    /// The module the form describes, keeping `existing`'s number and first publication; nil with every
    /// problem by its field when something must be fixed. `videos` are the library's, one of which it may show.
    func module(existing: LearningModule?, videos: [LearningVideo], now: Date) -> (LearningModule?, FormErrors) {
        var errors = FormErrors()
        let title = values["title"] ?? "", category = values["category"] ?? "", summary = values["summary"] ?? ""
        LearningRules.checkTitle(title, category: category, of: "module", into: &errors)
        let position = Int(values["position"] ?? "")
        if position.map(LearningRules.positionRange.contains) != true {
            errors.add(
                "position",
                "Enter the order as a whole number from \(LearningRules.positionRange.lowerBound) to \(LearningRules.positionRange.upperBound)"
            )
        }
        if let problem = LearningRules.textProblem(summary, name: "a summary", maximumLength: LearningRules.summaryMaximumLength) {
            errors.add("summary", problem)
        }
        var body: (source: String, html: String)?
        switch LearningRules.body(values["body"] ?? "") {
        case .success(let rendered): body = (values["body"]!, rendered.html)
        case .failure(let problem): errors.add("body", problem.message)
        }
        let videoID = (values["video_id"] ?? "").isEmpty ? nil : Int64(values["video_id"]!)
        if let videoID, !videos.contains(where: { $0.id == videoID }) { errors.add("video_id", "Choose a video from the list") }
        var links: [ModuleLink] = []
        switch LearningRules.links(values["links"] ?? "") {
        case .success(let parsed): links = parsed
        case .failure(let problem): errors.add("links", problem.message)
        }
        let target = LearningRules.target(values, errors: &errors)
        guard errors.isEmpty, let body, let position, let (stage, status) = target else { return (nil, errors) }
        let module = LearningModule(
            id: existing?.id ?? 0,
            title: title,
            summary: summary,
            bodySource: body.source,
            bodyHTML: body.html,
            category: category,
            stage: stage,
            position: position,
            status: status,
            videoID: videoID,
            links: links,
            publishedAt: existing?.publishedAt,
            updatedAt: now,
            moodGroups: Set(LearningModulePage.moodChoices.filter { values["after_\($0.rawValue)"] == "yes" })
        )
        return (module, errors)
    }
}

/// A quiz question's form: the values typed (or the question's own), and the question they make or what to fix.
struct QuizQuestionForm: Sendable {
    private(set) var values: [String: String]

    /// The form as sent, trimmed; a ticked answer left without text is unticked (and reported).
    init(sent: [String: String]) {
        values = sent.mapValues(\.trimmed)
    }

    /// The form filled with a question's own values.
    init(_ question: QuizQuestion) {
        values = ["prompt": question.prompt, "explanation": question.explanation]
        for (index, choice) in question.choices.enumerated() {
            values["choice_\(index + 1)"] = choice.text
            if choice.isCorrect { values["correct_\(index + 1)"] = "yes" }
        }
    }

    /// An empty form for a new question.
    init() {
        values = [:]
    }

    /// The question the form describes for `moduleID` (keeping `existing`'s number), or nil with every problem
    /// by its field. The form's values lose the ticks of answers left empty, so the page shown again has none.
    mutating func question(moduleID: Int64, existing: QuizQuestion?) -> (QuizQuestion?, FormErrors) {
        var errors = FormErrors()
        let prompt = values["prompt"] ?? "", explanation = values["explanation"] ?? ""
        if let problem = LearningRules.textProblem(prompt, name: "the question", maximumLength: LearningRules.promptMaximumLength) {
            errors.add("prompt", problem)
        }
        var choices: [QuizQuestion.Choice] = []
        var markedEmpty = false
        for number in 1...LearningRules.maximumChoices {
            let text = values["choice_\(number)"] ?? ""
            let isCorrect = values["correct_\(number)"] == "yes"
            if text.isEmpty {
                if isCorrect { markedEmpty = true }
                values["correct_\(number)"] = nil
                continue
            }
            if text.count > LearningRules.choiceMaximumLength {
                errors.add("choices", "Each answer must be \(LearningRules.choiceMaximumLength) characters or fewer")
            }
            choices.append(QuizQuestion.Choice(id: 0, text: text, isCorrect: isCorrect))
        }
        if choices.count < 2 {
            errors.add("choices", "Enter at least two answers")
        } else if markedEmpty {
            errors.add("choices", "An answer ticked as correct has no text")
        } else if !choices.contains(where: \.isCorrect) {
            errors.add("choices", "Tick at least one correct answer")
        }
        if let problem = LearningRules.textProblem(explanation, name: "an explanation", maximumLength: LearningRules.explanationMaximumLength) {
            errors.add("explanation", problem)
        }
        guard errors.isEmpty else { return (nil, errors) }
        return (QuizQuestion(id: existing?.id ?? 0, moduleID: moduleID, prompt: prompt, explanation: explanation, choices: choices), errors)
    }
}

extension LearningRules {
    /// A module's or a video's title and category, each one line of a limited length.
    static func checkTitle(_ title: String, category: String, of noun: String, into errors: inout FormErrors) {
        if let problem = lineProblem(title, name: "the \(noun)’s title", maximumLength: titleMaximumLength) { errors.add("title", problem) }
        if let problem = lineProblem(category, name: "a category", maximumLength: categoryMaximumLength) { errors.add("category", problem) }
    }

    /// The stage and status typed into a module's or a video's form, or what to fix.
    static func target(_ values: [String: String], errors: inout FormErrors) -> (LearningStage, LearningStatus)? {
        let code = values["stage"] ?? ""
        var stage: LearningStage?
        if code == "weeks" {
            let weeks = LearningStage.memberWeeks
            let from = Int(values["week_from"] ?? ""), to = Int(values["week_to"] ?? "")
            if from.map(weeks.contains) != true {
                errors.add("week_from", "Enter the first week, a number from \(weeks.lowerBound) to \(weeks.upperBound)")
            }
            if to.map(weeks.contains) != true {
                errors.add("week_to", "Enter the last week, a number from \(weeks.lowerBound) to \(weeks.upperBound)")
            }
            if let from, let to, weeks.contains(from), weeks.contains(to) {
                if from > to { errors.add("week_to", "The last week must be the same as or after the first week") }
                stage = LearningStage(code: code, from: from, to: to)
            }
        } else {
            stage = LearningStage(code: code, from: nil, to: nil)
            if stage == nil { errors.add("stage", "Choose who it is for") }
        }
        let status = LearningStatus(rawValue: values["status"] ?? "")
        if status == nil { errors.add("status", "Choose a status") }
        guard let stage, let status else { return nil }
        return (stage, status)
    }
}

/// A video's form: the values typed (or the video's own), and the video they make or what to fix.
struct LearningVideoForm: Sendable {
    private(set) var values: [String: String]

    /// The form as sent, trimmed; a library that does not ask for a stage makes every video for everyone.
    init(sent: [String: String], asksStage: Bool) {
        values = sent.mapValues(\.trimmed)
        if !asksStage { values["stage"] = LearningStage.all.code }
        values["url"] = values["url"] ?? ""
    }

    /// The form filled with a video's own values.
    init(_ video: LearningVideo) {
        values = [
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
    }

    /// An empty form for a new video, a link until a file is chosen.
    init() {
        values = ["source": "link"]
    }

    /// The video the form describes, keeping `existing`'s number (and its file when no other came);
    /// `upload` is the file that came with the form, `uploadedSize` its size. Nil with every problem by its field.
    func video(existing: LearningVideo?, upload: Result<StoredUpload, UploadProblem>?, uploadedSize: Int) -> (LearningVideo?, FormErrors) {
        var errors = FormErrors()
        let title = values["title"] ?? "", category = values["category"] ?? "", description = values["description"] ?? ""
        LearningRules.checkTitle(title, category: category, of: "video", into: &errors)
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
            switch upload {
            case .success(let stored): source = .file(stored, size: uploadedSize)
            case .failure(let problem): errors.add("file", problem.message)
            case nil:
                if let existing, case .file = existing.source { source = existing.source } else { errors.add("file", "Choose the video file") }
            }
        default:
            errors.add("source", "Choose where the video is")
        }
        let target = LearningRules.target(values, errors: &errors)
        guard errors.isEmpty, let length, let source, let (stage, status) = target else { return (nil, errors) }
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
        return (video, errors)
    }
}
