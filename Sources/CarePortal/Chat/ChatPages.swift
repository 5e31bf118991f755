import Foundation
import PortalPlatform
import SQLKit

struct ChatRoomsPage: Page {
    struct Row: Sendable, Encodable {
        let name: String
        let path: String
        let members: Int
        let messages: Int
        let openReports: Int
        let retention: String
        let isDefault: Bool

        init(_ summary: ChatRoomSummary) {
            name = summary.room.cohort.name
            path = SiteURL.chatRoom(summary.room.cohort.id).path
            members = summary.memberCount
            messages = summary.messageCount
            openReports = summary.openReports
            retention = summary.room.retention.title
            isDefault = summary.room.override == nil
        }
    }

    static let template = TemplateName.chatRooms
    let layout: Layout
    let rooms: [Row]
    let openReports: Int
    let reportsPath = SiteURL.chatReports.path
    let settingsPath = SiteURL.chatSettings.path
}

/// A room's messages as administrators see them, with the actions on each: the part of the room's
/// page its script fetches again every few seconds. Its buttons name the page's form, which carries
/// the CSRF token.
struct ChatMessageList: Fragment {
    struct Row: Sendable, Hashable, Encodable {
        let id: Int64
        let pseudonym: String
        let avatarPath: String
        let postedAt: String
        let bodyHTML: RenderedHTML?
        let moodTitle: String?
        let removalReason: String?
        let removePath: String
        let mutePath: String
        let unmutePath: String
        let mutedUntil: String?
    }

    static let template = TemplateName.chatMessages
    let rows: [Row]
    let isEmpty: Bool
    let retention: String

    init(room: ChatRoom, messages: [ChatMessage], mutes: [Int64: ChatMute], clock: ProgramClock) {
        rows = messages.map { message in
            let mute = mutes[message.author.memberID]
            return Row(
                id: message.id,
                pseudonym: message.author.pseudonym,
                avatarPath: message.author.avatar.path,
                postedAt: clock.dateTime(message.postedAt),
                bodyHTML: message.removal == nil && message.kind == .text ? RenderedHTML(sanitizedHTML: message.bodyHTML) : nil,
                moodTitle: message.removal == nil ? message.mood?.title.lowercased() : nil,
                removalReason: message.removal?.reason,
                removePath: SiteURL.chatMessageRemove(message.id).path,
                mutePath: SiteURL.chatMemberMute(message.author.memberID).path,
                unmutePath: SiteURL.chatMemberUnmute(message.author.memberID).path,
                mutedUntil: mute.map { $0.until.map(clock.dateTime) ?? "until unmuted" }
            )
        }
        isEmpty = messages.isEmpty
        retention = room.retention.title
    }
}

struct ChatRoomPage: Page {
    static let template = TemplateName.chatRoom
    let layout: Layout
    let name: String
    let retention: String
    /// The rendered `ChatMessageList`.
    let messages: RenderedHTML
    let livePath: String
    let refreshPath: String
    let roomsPath = SiteURL.chat.path
}

struct RemoveChatMessagePage: Page {
    static let template = TemplateName.chatRemoveMessage
    let layout: Layout
    let author: String
    let text: String
    let action: String
    let cancelPath: String
    let returnTo: String
    let reason: String
    let errors: [FormErrors.Item]
    let reasonError: String?
}

struct MuteMemberPage: Page {
    static let template = TemplateName.chatMuteMember
    let layout: Layout
    let pseudonym: String
    let action: String
    let cancelPath: String
    let lengths: [FilterOption]
    let reason: String
    let errors: [FormErrors.Item]
    let lengthError: String?
    let reasonError: String?
}

struct ChatReportsPage: Page {
    struct Row: Sendable, Encodable {
        let room: String
        let roomPath: String
        let pseudonym: String
        let text: String
        let reasons: [String]
        let reported: String
        let firstReported: String
        let removePath: String
        let keepPath: String

        init(_ message: ChatMessage, room: ChatRoom, reasons: [String], firstReportedAt: Date, clock: ProgramClock) {
            self.room = room.cohort.name
            roomPath = SiteURL.chatRoom(room.cohort.id).path
            pseudonym = message.author.pseudonym
            text = message.body
            self.reasons = reasons
            reported = reasons.count == 1 ? "Reported once:" : "Reported \(reasons.count) times:"
            firstReported = clock.dateTime(firstReportedAt)
            removePath = SiteURL.chatMessageRemove(message.id).path + "?return=reports"
            keepPath = SiteURL.chatReportKeep(message.id).path
        }
    }

    static let template = TemplateName.chatReports
    let layout: Layout
    let rows: [Row]
    let roomsPath = SiteURL.chat.path
}

/// The chat settings as typed.
struct ChatSettingsForm: Sendable {
    var defaultHours: String
    /// Each cohort's choice: hours, or empty for the program's default.
    var overrides: [Int64: String]
    var readingTitle: String
    var readingURL: String

    struct Valid: Sendable {
        let defaultRetention: ChatRetention
        let overrides: [Int64: ChatRetention?]
        let reading: RecommendedReading?

        /// Saves them over what `rooms` had; what changed, for the audit log.
        func save(over rooms: [ChatRoom], repository: ChatRepository, now: Date, on db: any SQLDatabase) async throws -> [String] {
            let before = try await repository.defaultRetention(on: db)
            var changes: [String] = []
            if before != defaultRetention { changes.append("default \(before.title) → \(defaultRetention.title)") }
            try await repository.setDefaultRetention(defaultRetention, now: now, on: db)
            for room in rooms {
                let override = overrides[room.cohort.id] ?? nil
                if override != room.override {
                    changes.append("\(room.cohort.name) \(room.override?.title ?? "default") → \(override?.title ?? "default")")
                }
                try await repository.setOverride(cohortID: room.cohort.id, override, on: db)
            }
            let reading = try await repository.recommendedReading(on: db)
            if reading != self.reading { changes.append("recommended reading") }
            try await repository.setRecommendedReading(self.reading, now: now, on: db)
            return changes
        }
    }

    /// The form as sent, with a choice for each of `rooms`.
    init(fields: [String: String], rooms: [ChatRoom]) {
        self.init(
            defaultHours: fields["default_retention"] ?? "",
            overrides: Dictionary(uniqueKeysWithValues: rooms.map { ($0.cohort.id, fields["cohort_\($0.cohort.id)"] ?? "") }),
            readingTitle: fields["reading_title"]?.trimmed ?? "",
            readingURL: fields["reading_url"]?.trimmed ?? ""
        )
    }

    init(defaultHours: String, overrides: [Int64: String], readingTitle: String, readingURL: String) {
        self.defaultHours = defaultHours
        self.overrides = overrides
        self.readingTitle = readingTitle
        self.readingURL = readingURL
    }

    func validated() -> (Valid?, FormErrors) {
        var errors = FormErrors()
        let fallback = Int(defaultHours).flatMap(ChatRetention.init)
        if fallback == nil { errors.add("default_retention", "Choose how long messages stay visible") }
        var parsed: [Int64: ChatRetention?] = [:]
        for (cohortID, value) in overrides.sorted(by: { $0.key < $1.key }) {
            if value.isEmpty { parsed[cohortID] = .some(nil); continue }
            guard let retention = Int(value).flatMap(ChatRetention.init) else {
                errors.add("cohort_\(cohortID)", "Choose the program's default or one of the listed times")
                continue
            }
            parsed[cohortID] = retention
        }
        var reading: RecommendedReading?
        if !readingTitle.isEmpty || !readingURL.isEmpty {
            if readingTitle.isEmpty || readingTitle.count > 120 { errors.add("reading_title", "Enter the reading's title, up to 120 characters") }
            if !(readingURL.hasPrefix("https://") && URL(string: readingURL)?.host != nil) || readingURL.count > 500 {
                errors.add("reading_url", "Enter a web address starting with https://")
            }
            reading = RecommendedReading(title: readingTitle, url: readingURL)
        }
        guard let fallback, errors.isEmpty else { return (nil, errors) }
        return (Valid(defaultRetention: fallback, overrides: parsed, reading: reading), errors)
    }
}

struct ChatSettingsPage: Page {
    struct CohortRow: Sendable, Encodable {
        let field: String
        let name: String
        let choices: [FilterOption]
        let error: String?
    }

    static let template = TemplateName.chatSettings
    let layout: Layout
    let errors: [FormErrors.Item]
    let defaultChoices: [FilterOption]
    let defaultError: String?
    let cohorts: [CohortRow]
    let readingTitle: String
    let readingURL: String
    let readingTitleError: String?
    let readingURLError: String?
    let action = SiteURL.chatSettings.path
    let roomsPath = SiteURL.chat.path

    init(_ form: ChatSettingsForm, rooms: [ChatRoom], errors: FormErrors, layout: Layout) {
        self.layout = layout
        self.errors = errors.items
        defaultChoices = ChatRetention.allCases.map {
            FilterOption(value: String($0.hours), title: $0.title, isSelected: String($0.hours) == form.defaultHours)
        }
        defaultError = errors["default_retention"]
        cohorts = rooms.map { room in
            let chosen = form.overrides[room.cohort.id] ?? ""
            return CohortRow(
                field: "cohort_\(room.cohort.id)",
                name: room.cohort.name,
                choices: [FilterOption(value: "", title: "The program's default", isSelected: chosen.isEmpty)]
                    + ChatRetention.allCases.map { FilterOption(value: String($0.hours), title: $0.title, isSelected: String($0.hours) == chosen) },
                error: errors["cohort_\(room.cohort.id)"]
            )
        }
        readingTitle = form.readingTitle
        readingURL = form.readingURL
        readingTitleError = errors["reading_title"]
        readingURLError = errors["reading_url"]
    }
}
