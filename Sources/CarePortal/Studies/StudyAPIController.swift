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

    struct FeedbackReceived: Encodable, Sendable {
        let id: Int64
        let submittedAt: Date
    }

    struct Contact: Encodable, Sendable {
        /// Made safe by SafeHTML; empty until the study team writes the page.
        let html: String
        let updatedAt: Date?
    }
}

/// The study app's JSON API under `/api/v1/study/`. Described in `api/openapi.json`.
struct StudyAPIController {
    let portal: Portal
    let studies = StudyRepository()
    let events = MemberEvents()
    let tokens = AppAccountKind.participant.bearerTokens

    static let withdrawn = APIError(
        status: .forbidden, code: "withdrawn",
        message: "You have been withdrawn from the study, so this app no longer signs in. Contact the study team with any questions."
    )
    static let passwordChangeRequired = APIError(
        status: .forbidden, code: "password_change_required",
        message: "Choose your own password before using the app: send your one-time password and a new one to POST /api/v1/study/me/password."
    )

    func addRoutes(to routes: inout PortalRoutes) {
        routes.appSessions(.participant) { [studies] issued, db in
            guard let participant = try await studies.participant(id: issued.accountID, on: db) else { throw APIError.unauthorized }
            return StudyAPI.Session(token: issued.token, expiresAt: issued.expiresAt, studyId: participant.studyCode,
                                    mustChangePassword: participant.mustChangePassword)
        }
        routes.post(SiteURL.apiStudyClaim.pattern, access: .everyone, claim)
        routes.post(SiteURL.apiStudyPassword.pattern, access: .participant, changePassword)
        routes.get(SiteURL.apiStudyTodos.pattern, access: .participant, todos)
        routes.put(SiteURL.pattern(SiteURL.apiStudyTodo), access: .participant, markDone)
        routes.get(SiteURL.apiStudyStatistics.pattern, access: .participant, statistics)
        routes.post(SiteURL.apiStudyOpens.pattern, access: .participant, recordOpen)
        routes.post(SiteURL.apiStudyFeedback.pattern, access: .participant, sendFeedback)
        routes.get(SiteURL.apiStudyContact.pattern, access: .participant, contact)
    }

    /// The participant behind the token, once she has chosen her own password.
    private func participant(_ context: PortalContext) async throws -> StudyParticipant {
        let holder = try context.requireParticipant()
        guard let participant = try await portal.database.read({ db in try await studies.participant(id: holder.accountID, on: db) }) else {
            throw APIError.unauthorized
        }
        guard !participant.mustChangePassword else { throw Self.passwordChangeRequired }
        return participant
    }

    /// `POST /api/v1/study/me/password`: replaces the one-time password (or her own); other devices sign in again.
    @Sendable func changePassword(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireParticipant()
        let body = try await request.json(StudyAPI.PasswordChange.self)
        let current = body.currentPassword ?? "", new = body.newPassword ?? ""
        let participant = try await portal.database.read { db in try await studies.participant(id: holder.accountID, on: db) }
        guard let participant else { throw APIError.unauthorized }
        var problems: [String: String] = [:]
        if current.isEmpty { problems["current_password"] = "Enter your current password" }
        if let problem = AppAccountKind.participant.passwordProblem(new, participant.username, portal.passwordPolicy) {
            problems["new_password"] = problem
        } else if new == current {
            problems["new_password"] = "Choose a password different from your current one"
        }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let stored = try await portal.database.read { db in try await studies.passwordHash(id: holder.accountID, on: db) }
        guard try await portal.passwords.verify(current, againstStored: stored) else {
            throw APIError.validation(["current_password": "Your current password is not right"])
        }
        let hash = try await portal.passwords.hash(new)
        let now = portal.now
        try await portal.database.transaction { db in
            try await studies.setPassword(id: holder.accountID, hash: hash, now: now, on: db)
            try await tokens.revokeAll(ownerID: holder.accountID, keeping: holder.tokenHash, on: db)
            try await portal.audit.record(AuditEvent(
                actor: context.auditActor, action: .passwordChanged, recordType: "participant", recordID: "\(holder.accountID)",
                origin: portal.origin(of: request, context: context)
            ), on: db)
        }
        return .noContent
    }

    /// `GET /api/v1/study/todos`: today's items and which are done.
    @Sendable func todos(request: Request, context: PortalContext) async throws -> Response {
        let participant = try await participant(context)
        let clock = portal.programSettings.current.clock
        let today = clock.date(of: portal.now)
        let (schedule, marks) = try await portal.database.read { db in
            (try await studies.schedule(on: db), try await studies.marks(participantID: participant.id, on: db))
        }
        let items = participant.days(through: today)?.contains(today.dayNumber) == true ? schedule.items(on: today) : []
        return .json(StudyAPI.Todos(
            day: today.iso, closesAt: clock.instant(startOf: today.nextDay),
            items: items.map { .init(id: $0.id, title: $0.title, done: marks[StudyMark(itemID: $0.id, dayNumber: today.dayNumber)] != nil) }
        ))
    }

    /// `PUT /api/v1/study/todos/{id}` with `{"day": "YYYY-MM-DD"}`: marks an item done today; again changes nothing.
    /// A day that has closed answers 409, so a list left open past midnight is not counted for the wrong day.
    @Sendable func markDone(request: Request, context: PortalContext) async throws -> Response {
        let participant = try await participant(context)
        guard let text = context.parameters.get("id"), let itemID = Int64(text) else { throw APIError.notFound }
        let body = try await request.json(StudyAPI.MarkBody.self)
        guard let dayText = body.day, !dayText.isEmpty else { throw APIError.validation(["day": "Give the day the list is for, as YYYY-MM-DD"]) }
        guard let day = CalendarDate(iso: dayText) else { throw APIError.validation(["day": "Give the day as YYYY-MM-DD"]) }
        let now = portal.now
        let today = portal.programSettings.current.clock.date(of: now)
        guard day == today else {
            throw APIError(status: .conflict, code: day < today ? "day_closed" : "day_not_started",
                           message: day < today ? "That day closed at midnight: only today's list can be marked." : "Only today's list can be marked.")
        }
        let recorded = try await portal.database.transaction { db -> Bool in
            guard let item = try await studies.item(id: itemID, on: db), item.applies(on: today),
                  participant.days(through: today)?.contains(today.dayNumber) == true
            else { throw APIError.notFound }
            let recorded = try await studies.mark(participantID: participant.id, itemID: itemID, day: today, now: now, on: db)
            if recorded {
                try await events.record(ParticipantEvent(kind: .studyTodoDone, participantID: participant.id, occurredAt: now, number: itemID), on: db)
            }
            return recorded
        }
        return .json(StudyAPI.TodoItem(id: itemID, title: try await portal.database.read { db in try await studies.item(id: itemID, on: db)?.title ?? "" },
                                       done: true), status: recorded ? .created : .ok)
    }

    /// `GET /api/v1/study/statistics`: her counts over time and current streak (the app draws its plant from these).
    @Sendable func statistics(request: Request, context: PortalContext) async throws -> Response {
        let participant = try await participant(context)
        let today = portal.programSettings.current.clock.date(of: portal.now)
        let (schedule, marks) = try await portal.database.read { db in
            (try await studies.schedule(on: db), try await studies.marks(participantID: participant.id, on: db))
        }
        let figures = schedule.statistics(days: participant.days(through: today), today: today, marks: Set(marks.keys))
        return .json(StudyAPI.Statistics(
            studyId: participant.studyCode, enrolledOn: participant.enrolledOn.iso, daysInStudy: figures.closedDays,
            daysAllDone: figures.allDoneDays, currentStreak: figures.currentStreak,
            items: figures.items.map { .init(id: $0.item.id, title: $0.item.title, doneDays: $0.doneDays, offeredDays: $0.offeredDays) }
        ))
    }

    /// `POST /api/v1/study/opens`: one call per open of the app; a second within a minute is counted once.
    @Sendable func recordOpen(request: Request, context: PortalContext) async throws -> Response {
        let participant = try await participant(context)
        let now = portal.now
        let day = portal.programSettings.current.clock.date(of: now)
        let recorded = try await portal.database.transaction { db in
            let recorded = try await studies.recordOpen(participantID: participant.id, day: day, now: now, on: db)
            if recorded {
                try await events.record(ParticipantEvent(kind: .studyAppOpened, participantID: participant.id, occurredAt: now), on: db)
            }
            return recorded
        }
        return .json(StudyAPI.OpenRecorded(recorded: recorded), status: recorded ? .created : .ok)
    }

    /// `POST /api/v1/study/feedback`: her message to the study team, kept as plain text.
    @Sendable func sendFeedback(request: Request, context: PortalContext) async throws -> Response {
        let participant = try await participant(context)
        let message = (try await request.json(StudyAPI.FeedbackBody.self).message ?? "").trimmed
        if message.isEmpty { throw APIError.validation(["message": "Write your feedback"]) }
        if message.count > StudyRules.feedbackMaximumLength {
            throw APIError.validation(["message": "Feedback must be \(StudyRules.feedbackMaximumLength) characters or fewer"])
        }
        let now = portal.now
        let id = try await portal.database.transaction { db in
            let id = try await studies.addFeedback(participantID: participant.id, body: message, now: now, on: db)
            try await events.record(ParticipantEvent(kind: .studyFeedbackSent, participantID: participant.id, occurredAt: now), on: db)
            return id
        }
        return .json(StudyAPI.FeedbackReceived(id: id, submittedAt: now), status: .created)
    }

    /// `GET /api/v1/study/contact`: the study's contact and appointments page.
    @Sendable func contact(request: Request, context: PortalContext) async throws -> Response {
        _ = try await participant(context)
        let contact = try await portal.database.read { db in try await studies.contact(on: db) }
        return .json(StudyAPI.Contact(html: contact?.html ?? "", updatedAt: contact?.updatedAt))
    }
}
