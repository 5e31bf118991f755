import Foundation
import PortalPlatform

/// The eight moods of a check-in, each in its group.
enum Mood: String, Sendable, CaseIterable, Encodable {
    case excited, happy, love, indifferent, sad, angry, sick, overwhelmed

    enum Group: String, Sendable, Encodable {
        case positive, neutral, negative
    }

    var title: String {
        switch self {
        case .excited: "Excited"
        case .happy: "Happy"
        case .love: "Loved"
        case .indifferent: "Indifferent"
        case .sad: "Sad"
        case .angry: "Angry"
        case .sick: "Sick"
        case .overwhelmed: "Overwhelmed or frustrated"
        }
    }

    var group: Group {
        switch self {
        case .excited, .happy, .love: .positive
        case .indifferent: .neutral
        case .sad, .angry, .sick, .overwhelmed: .negative
        }
    }

    /// What the room reads when she shares it.
    var roomText: String { "is feeling \(title.lowercased())" }

    /// What the app says next, and her feed keeps: nothing after a positive mood.
    var followUpMessage: String? {
        switch group {
        case .positive: nil
        case .neutral: "Something to read when you have a moment."
        case .negative: "You don't have to go through this alone. If you are in danger or thinking of hurting yourself, call or text 988 now."
        }
    }
}

/// How long a room's messages stay visible; the only choices an administrator has.
enum ChatRetention: Int, Sendable, CaseIterable {
    case oneHour = 1, twoHours = 2, oneDay = 24, twoDays = 48

    static let programDefault = ChatRetention.oneDay

    var hours: Int { rawValue }
    var duration: TimeInterval { TimeInterval(rawValue) * 3_600 }

    var title: String {
        switch self {
        case .oneHour: "1 hour"
        case .twoHours: "2 hours"
        case .oneDay: "24 hours"
        case .twoDays: "48 hours"
        }
    }
}

/// A cohort's room as its retention applies to it.
struct ChatRoom: Sendable, Equatable {
    let cohort: Cohort
    /// The cohort's own choice, or nil for the program's default.
    let override: ChatRetention?
    let retention: ChatRetention

    /// The oldest instant a message may have been posted at to be shown at `now` (exclusive).
    func visibleAfter(_ now: Date) -> Date { now.addingTimeInterval(-retention.duration) }
}

/// A message in a room, or a mood shared there.
struct ChatMessage: Sendable, Equatable {
    enum Kind: String, Sendable {
        case text, mood
    }

    let id: Int64
    let cohortID: Int64
    let kind: Kind
    let author: Author
    /// As she wrote it (plain text).
    let body: String
    /// SafeHTML's plain-text rendering: escaped, links made clickable.
    let bodyHTML: String
    let mood: Mood?
    let postedAt: Date
    let removal: Removal?

    struct Author: Sendable, Equatable {
        let memberID: Int64
        let pseudonym: String
        let avatar: Avatar
    }

    struct Removal: Sendable, Equatable {
        let at: Date
        let reason: String
    }
}

/// A message members reported, with every open report of it.
struct ReportedMessage: Sendable {
    let message: ChatMessage
    let cohort: Cohort
    let reasons: [String]
    let firstReportedAt: Date
}

/// A member who may read but not post.
struct ChatMute: Sendable, Equatable {
    let memberID: Int64
    /// Nil: until an administrator unmutes her.
    let until: Date?
    let reason: String

    func isInForce(at now: Date) -> Bool { until.map { $0 > now } ?? true }
}

/// A room on the administrators' list.
struct ChatRoomSummary: Sendable {
    let room: ChatRoom
    let memberCount: Int
    let messageCount: Int
    let openReports: Int
}

/// What a neutral mood recommends until the learning center chooses modules itself.
struct RecommendedReading: Sendable, Equatable {
    var title: String
    var url: String
}
