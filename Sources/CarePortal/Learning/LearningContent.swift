import Foundation
import PortalPlatform
import SafeHTML

/// Which members a module or video is for, by the week of pregnancy each is in today, worked out from
/// her due date (`BabyWeek.week`). Trimesters: weeks 1–13 the first, 14–27 the second, 28 onwards the third.
/// A member before week 1 counts as week 1 and one past her due date as week 42, so no one falls outside.
enum LearningStage: Sendable, Equatable {
    case all
    case trimester(Int)
    case weeks(Int, Int)

    static let memberWeeks = 1...42

    static func trimesterWeeks(_ trimester: Int) -> ClosedRange<Int> {
        switch trimester {
        case 1: 1...13
        case 2: 14...27
        default: 28...memberWeeks.upperBound
        }
    }

    /// The week of pregnancy she counts as today.
    static func memberWeek(dueDate: CalendarDate, today: CalendarDate) -> Int {
        min(max(BabyWeek.week(dueDate: dueDate, today: today), memberWeeks.lowerBound), memberWeeks.upperBound)
    }

    var weeks: ClosedRange<Int> {
        switch self {
        case .all: Self.memberWeeks
        case .trimester(let number): Self.trimesterWeeks(number)
        case .weeks(let from, let to): from...to
        }
    }

    /// Stored in `stage`: `all`, `trimester_1`…`trimester_3`, `weeks`.
    var code: String {
        switch self {
        case .all: "all"
        case .trimester(let number): "trimester_\(number)"
        case .weeks: "weeks"
        }
    }

    init?(code: String, from: Int?, to: Int?) {
        switch code {
        case "all": self = .all
        case "trimester_1": self = .trimester(1)
        case "trimester_2": self = .trimester(2)
        case "trimester_3": self = .trimester(3)
        case "weeks":
            guard let from, let to, Self.memberWeeks.contains(from), Self.memberWeeks.contains(to), from <= to else { return nil }
            self = .weeks(from, to)
        default: return nil
        }
    }

    var title: String {
        switch self {
        case .all: "Every member"
        case .trimester(let number):
            "\(BabyWeek.trimesterTitle(number)) (weeks \(Self.trimesterWeeks(number).lowerBound)–\(number == 3 ? "birth" : String(Self.trimesterWeeks(number).upperBound)))"
        case .weeks(let from, let to): from == to ? "Week \(from)" : "Weeks \(from)–\(to)"
        }
    }

    static let choices: [(code: String, title: String)] = [
        ("all", "Every member"),
        ("trimester_1", "First trimester (weeks 1–13)"),
        ("trimester_2", "Second trimester (weeks 14–27)"),
        ("trimester_3", "Third trimester (week 28 to birth)"),
        ("weeks", "A range of weeks")
    ]
}

/// Whether members see it: a draft is being written, published is shown, archived is kept but hidden.
enum LearningStatus: String, Sendable, CaseIterable {
    case draft, published, archived

    var title: String {
        switch self {
        case .draft: "Draft"
        case .published: "Published"
        case .archived: "Archived"
        }
    }

    var tagTone: TableRows.TagTone {
        switch self {
        case .draft: .yellow
        case .published: .green
        case .archived: .grey
        }
    }

    var tagClass: String { tagTone.tagClass }
}

/// A link a module points to for more reading.
struct ModuleLink: Sendable, Equatable {
    var title: String
    var url: String
}

/// A learning module: what administrators write for members to read, watch and be quizzed on.
struct LearningModule: Sendable, Equatable, Identifiable {
    var id: Int64
    var title: String
    var summary: String
    var bodySource: String
    var bodyHTML: String
    var category: String
    var stage: LearningStage
    var position: Int
    var status: LearningStatus
    var videoID: Int64?
    var links: [ModuleLink]
    var publishedAt: Date?
    var updatedAt: Date
    /// The moods after which it is recommended to a member in its stage (a neutral or a negative day).
    var moodGroups: Set<Mood.Group> = []
}

/// A video: a link to one hosted elsewhere, or a file uploaded to the portal.
struct LearningVideo: Sendable, Equatable, Identifiable {
    enum Source: Sendable, Equatable {
        case link(String)
        case file(StoredUpload, size: Int)
    }

    var id: Int64
    var title: String
    var description: String
    var category: String
    var lengthSeconds: Int
    var source: Source
    var stage: LearningStage
    var status: LearningStatus

    /// "4:05", "1:02:00".
    var lengthText: String { LearningRules.lengthText(lengthSeconds) }
    /// The uploaded file's size in bytes; nil for a link.
    var fileSize: Int? {
        guard case .file(_, let size) = source else { return nil }
        return size
    }
}

/// A multiple-choice question of a module's quiz; one or more of its choices are correct.
struct QuizQuestion: Sendable, Equatable, Identifiable {
    struct Choice: Sendable, Equatable, Identifiable {
        var id: Int64
        var text: String
        var isCorrect: Bool
    }

    var id: Int64
    var moduleID: Int64
    var prompt: String
    var explanation: String
    var choices: [Choice]

    var correctChoiceIDs: Set<Int64> { Set(choices.filter(\.isCorrect).map(\.id)) }
}

/// A quiz as submitted, scored: a question counts as correct when exactly its correct choices were chosen.
struct QuizScore: Sendable, Equatable {
    struct Result: Sendable, Equatable {
        let questionID: Int64
        let isCorrect: Bool
        let correctChoiceIDs: [Int64]
        let explanation: String
    }

    let results: [Result]
    var correctCount: Int { results.filter(\.isCorrect).count }
    var questionCount: Int { results.count }
    /// Out of 100, rounded down; 100 for a module with no questions.
    var percent: Int { questionCount == 0 ? 100 : correctCount * 100 / questionCount }

    /// Scores `answers` (question id → chosen choice ids) against `questions`.
    static func score(_ questions: [QuizQuestion], answers: [Int64: Set<Int64>]) -> QuizScore {
        QuizScore(
            results: questions.map { question in
                let correct = question.correctChoiceIDs
                return Result(
                    questionID: question.id,
                    isCorrect: answers[question.id] == correct,
                    correctChoiceIDs: question.choices.filter(\.isCorrect).map(\.id),
                    explanation: question.explanation
                )
            }
        )
    }
}

/// The checks on what administrators type into the learning center.
enum LearningRules {
    static let titleMaximumLength = 120
    static let summaryMaximumLength = 300
    static let categoryMaximumLength = 60
    static let descriptionMaximumLength = 1_000
    static let promptMaximumLength = 500
    static let choiceMaximumLength = 200
    static let explanationMaximumLength = 1_000
    static let linkTitleMaximumLength = 120
    static let urlMaximumLength = 500
    static let maximumLinks = 10
    static let maximumChoices = 6
    static let positionRange = 0...9_999
    static let longestVideo = 4 * 60 * 60
    /// The largest uploaded video: about 25 minutes of phone-quality (720p) video.
    static let videoMaximumSize = 200 * 1024 * 1024
    static let videoRules = UploadRules(types: UploadType.videos, maximumSize: videoMaximumSize, noun: "video")
    /// A video form's whole body: the largest video, its text fields and the form's boundaries. A file a
    /// little too large is still read, so the form can say why beside the field.
    static let videoUploadLimit = videoMaximumSize + 4 * 1024 * 1024

    static func lineProblem(_ text: String, name: String, maximumLength: Int, required: Bool = true) -> String? {
        if text.isEmpty { return required ? "Enter \(name)" : nil }
        if text.count > maximumLength { return "\(name.prefix(1).uppercased() + name.dropFirst()) must be \(maximumLength) characters or fewer" }
        if text.contains(where: \.isNewline) { return "\(name.prefix(1).uppercased() + name.dropFirst()) must be on one line" }
        return nil
    }

    static func textProblem(_ text: String, name: String, maximumLength: Int) -> String? {
        if text.isEmpty { return "Enter \(name)" }
        if text.count > maximumLength { return "\(name.prefix(1).uppercased() + name.dropFirst()) must be \(maximumLength) characters or fewer" }
        return nil
    }

    /// An https address with a host and no spaces, or nil.
    static func httpsURL(_ text: String) -> String? {
        guard text.count <= urlMaximumLength, !text.contains(where: \.isWhitespace), let url = URL(string: text),
            url.scheme?.lowercased() == "https", !(url.host ?? "").isEmpty
        else { return nil }
        return text
    }

    /// Links typed one per line as "Title | https://…", or what to fix.
    static func links(_ text: String) -> Result<[ModuleLink], LinkProblem> {
        var links: [ModuleLink] = []
        for (index, line) in text.split(whereSeparator: \.isNewline).map({ String($0).trimmed }).enumerated() where !line.isEmpty {
            let parts = line.split(separator: "|", maxSplits: 1).map { String($0).trimmed }
            guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= linkTitleMaximumLength else {
                return .failure(
                    LinkProblem(message: "Write link \(index + 1) as a title, a bar and its address, like NHS advice | https://www.nhs.uk")
                )
            }
            guard let url = httpsURL(parts[1]) else {
                return .failure(LinkProblem(message: "Link \(index + 1) must be a web address that starts with https://"))
            }
            links.append(ModuleLink(title: parts[0], url: url))
        }
        if links.count > maximumLinks { return .failure(LinkProblem(message: "Enter \(maximumLinks) links or fewer")) }
        return .success(links)
    }

    struct LinkProblem: Error {
        let message: String
    }

    static func linksText(_ links: [ModuleLink]) -> String {
        links.map { "\($0.title) | \($0.url)" }.joined(separator: "\n")
    }

    /// "4:30" or "1:05:00" as seconds.
    static func length(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        let numbers = parts.map { $0! }
        guard numbers.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
        let seconds = numbers.reduce(0) { $0 * 60 + $1 }
        return (1...longestVideo).contains(seconds) ? seconds : nil
    }

    static func lengthText(_ seconds: Int) -> String {
        let hours = seconds / 3600, minutes = seconds / 60 % 60, rest = seconds % 60
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }

    /// The Markdown body as HTML through SafeHTML, or what to fix.
    static func body(_ source: String) -> Result<SanitizedText, LinkProblem> {
        if source.trimmed.isEmpty { return .failure(LinkProblem(message: "Enter the module’s text")) }
        do {
            let rendered = try SafeHTML.renderMarkdown(source)
            if rendered.plainText.trimmed.isEmpty { return .failure(LinkProblem(message: "Enter the module’s text")) }
            return .success(rendered)
        } catch {
            return .failure(LinkProblem(message: "The text must be \(SafeHTML.maximumInputBytes / 1024) KB or less"))
        }
    }
}
