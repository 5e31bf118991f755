import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// What the study app receives.
enum StudyAPI {
    struct Session: Encodable, Sendable {
        let token: String
        let tokenType = "Bearer"
        let expiresAt: Date
        let studyId: String
        /// True until she replaces the one-time password: every other call answers `password_change_required`.
        let mustChangePassword: Bool
    }

    struct PasswordChange: Decodable, Sendable {
        var currentPassword: String?
        var newPassword: String?
    }

    struct TodoItem: Encodable, Sendable {
        let id: Int64
        let title: String
        let done: Bool
    }

    struct Todos: Encodable, Sendable {
        /// Today on the study's clock; marks are accepted for this day only.
        let day: String
        /// Midnight at the end of today on the study's clock: after it, an item not marked counts as not done.
        let closesAt: Date
        let items: [TodoItem]
    }

    struct MarkBody: Decodable, Sendable {
        var day: String?
    }

    struct ItemCount: Encodable, Sendable {
        let id: Int64
        let title: String
        let doneDays: Int
        let offeredDays: Int
    }

    struct Statistics: Encodable, Sendable {
        let studyId: String
        let enrolledOn: String
        /// Days in the study that have closed (before today).
        let daysInStudy: Int
        let daysAllDone: Int
        /// Days in a row with every to-do done, back from yesterday, and today once everything today is done.
        let currentStreak: Int
        let items: [ItemCount]
    }

    struct OpenRecorded: Encodable, Sendable {
        /// False when another open was recorded in the minute before: it is counted once.
        let recorded: Bool
    }

    struct FeedbackBody: Decodable, Sendable {
        var message: String?
    }

    struct Contact: Encodable, Sendable {
        /// Made safe by SafeHTML; empty until the study team writes the page.
        let html: String
        let updatedAt: Date?
    }
}
