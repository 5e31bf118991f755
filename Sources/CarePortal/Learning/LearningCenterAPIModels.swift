import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The member app's learning center: what is published for her stage, a module's content, its quiz, and
/// the videos, with the points and events each completion earns.
enum LearningCenterAPI {
    struct Score: Encodable, Sendable {
        let correct: Int
        let questions: Int
    }

    /// A module in her learning center, as every member of her week sees it; `completed` and her
    /// `best_score` are added per member (see `LearningCenterCache.Listing`).
    struct ModuleSummary: Encodable, Sendable {
        let id: Int64
        let title: String
        let summary: String
        let category: String
        let questionCount: Int
        let videoId: Int64?
    }

    struct Video: Encodable, Sendable {
        let id: Int64
        let title: String
        let description: String
        let category: String
        let lengthSeconds: Int
        /// "4:30".
        let length: String
        /// `link`: open `url` in the browser. `file`: play `url` (this API, with byte ranges) as `content_type`.
        let kind: String
        let url: String
        let contentType: String?
        let watched: Bool

        init(_ video: LearningVideo, watched: Bool) {
            id = video.id
            title = video.title
            description = video.description
            category = video.category
            lengthSeconds = video.lengthSeconds
            length = video.lengthText
            switch video.source {
            case .link(let address):
                (kind, url, contentType) = ("link", address, nil)
            case .file(let stored, _):
                (kind, url, contentType) = ("file", SiteURL.apiLearningVideoFile(video.id).path, stored.type.rawValue)
            }
            self.watched = watched
        }
    }

    /// A video in her learning center, as every member of her week sees it; `watched` is added per member.
    struct VideoListing: Encodable, Sendable {
        let id: Int64
        let title: String
        let description: String
        let category: String
        let lengthSeconds: Int
        let length: String
        let kind: String
        let url: String
        let contentType: String?

        /// `fileURL` is where this API streams an uploaded file: the member's learning centre's, or a study participant's.
        init(_ video: LearningVideo, fileURL: (Int64) -> SiteURL = SiteURL.apiLearningVideoFile) {
            (id, title, description, category, lengthSeconds, length) = (
                video.id, video.title, video.description, video.category, video.lengthSeconds, video.lengthText
            )
            switch video.source {
            case .link(let address): (kind, url, contentType) = ("link", address, nil)
            case .file(let stored, _): (kind, url, contentType) = ("file", fileURL(video.id).path, stored.type.rawValue)
            }
        }
    }

    struct Link: Encodable, Sendable {
        let title: String
        let url: String
    }

    struct Choice: Encodable, Sendable {
        let id: Int64
        let text: String
    }

    struct Question: Encodable, Sendable {
        let id: Int64
        let prompt: String
        /// How many answers are correct, so the app can say "choose 2".
        let correctCount: Int
        let choices: [Choice]
    }

    struct Module: Encodable, Sendable {
        let id: Int64
        let title: String
        let summary: String
        let category: String
        /// The text as HTML made safe by SafeHTML.
        let bodyHtml: String
        let links: [Link]
        let video: Video?
        let questions: [Question]
        let completed: Bool
        let bestScore: Score?
    }

    struct Answer: Decodable, Sendable {
        var questionId: Int64?
        var choiceIds: [Int64]?
    }

    struct Attempt: Decodable, Sendable {
        var answers: [Answer]?
    }

    struct Result: Encodable, Sendable {
        let questionId: Int64
        let correct: Bool
        let correctChoiceIds: [Int64]
        let explanation: String
    }

    struct Scored: Encodable, Sendable {
        let correct: Int
        let questions: Int
        let percent: Int
        let results: [Result]
        /// Points this completion earned: none when the module already earned them this month.
        let pointsAwarded: Int
    }

    struct Watched: Encodable, Sendable {
        let pointsAwarded: Int
    }
}
