import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The study app's JSON API under `/api/v1/study/`. Described in `api/openapi.json`.
struct StudyAPIController {
    let portal: Portal
    let studies = StudyRepository()
    let events = MemberEvents()

    static let withdrawn = APIError(
        status: .forbidden,
        code: "withdrawn",
        message: "You have been withdrawn from the study, so this app no longer signs in. Contact the study team with any questions."
    )
    static let passwordChangeRequired = APIError(
        status: .forbidden,
        code: "password_change_required",
        message: "Choose your own password before using the app: send your one-time password and a new one to POST /api/v1/study/me/password."
    )

    func addRoutes(to routes: inout PortalRoutes) {
        routes.appSessions(.participant) { [studies] issued, db in
            guard let participant = try await studies.participant(id: issued.accountID, on: db) else { throw APIError.unauthorized }
            return StudyAPI.Session(
                token: issued.token,
                expiresAt: issued.expiresAt,
                studyId: participant.studyCode,
                mustChangePassword: participant.mustChangePassword
            )
        }
        routes.post(SiteURL.apiStudyClaim.pattern, access: .everyone, claim)
        routes.post(SiteURL.apiStudyPassword.pattern, access: .participant, changePassword)
        routes.get(SiteURL.apiStudyTodos.pattern, access: .participant, todos)
        routes.put(SiteURL.pattern(SiteURL.apiStudyTodo), access: .participant, markDone)
        routes.get(SiteURL.apiStudyStatistics.pattern, access: .participant, statistics)
        routes.post(SiteURL.apiStudyOpens.pattern, access: .participant, recordOpen)
        routes.post(SiteURL.apiStudyFeedback.pattern, access: .participant, sendFeedback)
        routes.get(SiteURL.apiStudyContact.pattern, access: .participant, contact)
        routes.get(SiteURL.apiStudyLocations.pattern, access: .participant, locations)
        routes.get(SiteURL.apiStudyVideos.pattern, access: .participant, videos)
        routes.get(SiteURL.pattern(SiteURL.apiStudyVideoFile), access: .participant, videoFile)
        routes.get(SiteURL.apiStudyRecordOpenings.pattern, access: .participant) { [portal] request, context in
            try await portal.recordOpeningsResponse(.studyParticipant, of: try context.requireParticipant(), request: request)
        }
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
        let problems = try await ParticipantDay.changePassword(
            holder: holder,
            current: body.currentPassword ?? "",
            new: body.newPassword ?? "",
            actor: context.auditActor,
            origin: portal.origin(of: request, context: context),
            portal: portal
        )
        guard problems.isEmpty else { throw APIError.validation(problems) }
        return .noContent
    }

    /// `GET /api/v1/study/todos`: today's items and which are done.
    @Sendable func todos(request: Request, context: PortalContext) async throws -> Response {
        let today = try await ParticipantDay.load(try await participant(context), portal: portal)
        return .json(
            StudyAPI.Todos(
                day: today.day.iso,
                closesAt: today.closesAt,
                items: today.items.map { .init(id: $0.item.id, title: $0.item.title, done: $0.done) }
            )
        )
    }

    /// `PUT /api/v1/study/todos/{id}` with `{"day": "YYYY-MM-DD"}`: marks an item done today; again changes nothing.
    /// A day that has closed answers 409, so a list left open past midnight is not counted for the wrong day.
    @Sendable func markDone(request: Request, context: PortalContext) async throws -> Response {
        let participant = try await participant(context)
        guard let text = context.parameters.get("id"), let itemID = Int64(text) else { throw APIError.notFound }
        let body = try await request.json(StudyAPI.MarkBody.self)
        guard let dayText = body.day, !dayText.isEmpty else { throw APIError.validation(["day": "Give the day the list is for, as YYYY-MM-DD"]) }
        guard let day = CalendarDate(iso: dayText) else { throw APIError.validation(["day": "Give the day as YYYY-MM-DD"]) }
        let recorded: Bool
        do {
            recorded = try await ParticipantDay.mark(participant, itemID: itemID, day: day, portal: portal)
        } catch ParticipantDay.MarkRefusal.dayClosed {
            throw APIError(status: .conflict, code: "day_closed", message: "That day closed at midnight: only today's list can be marked.")
        } catch ParticipantDay.MarkRefusal.dayNotStarted {
            throw APIError(status: .conflict, code: "day_not_started", message: "Only today's list can be marked.")
        } catch ParticipantDay.MarkRefusal.noSuchItem {
            throw APIError.notFound
        }
        return .json(
            StudyAPI.TodoItem(
                id: itemID,
                title: try await portal.database.read { db in try await studies.item(id: itemID, on: db)?.title ?? "" },
                done: true
            ),
            status: recorded ? .created : .ok
        )
    }

    /// `GET /api/v1/study/statistics`: her counts over time and current streak (the app draws its plant from these).
    @Sendable func statistics(request: Request, context: PortalContext) async throws -> Response {
        let participant = try await participant(context)
        let figures = try await ParticipantDay.statistics(participant, portal: portal)
        return .json(
            StudyAPI.Statistics(
                studyId: participant.studyCode,
                enrolledOn: participant.enrolledOn.iso,
                daysInStudy: figures.closedDays,
                daysAllDone: figures.allDoneDays,
                currentStreak: figures.currentStreak,
                items: figures.items.map { .init(id: $0.item.id, title: $0.item.title, doneDays: $0.doneDays, offeredDays: $0.offeredDays) }
            )
        )
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
        if let problem = FeedbackRules.problem(message) { throw APIError.validation(["message": problem]) }
        let now = portal.now
        let id = try await ParticipantDay.sendFeedback(message, participant: participant, portal: portal)
        return .json(FeedbackMessage.Received(id: id, submittedAt: now), status: .created)
    }

    /// `GET /api/v1/study/contact`: the study's contact and appointments page.
    @Sendable func contact(request: Request, context: PortalContext) async throws -> Response {
        _ = try await participant(context)
        let contact = try await portal.database.read { db in try await studies.contact(on: db) }
        return .json(StudyAPI.Contact(html: contact?.html ?? "", updatedAt: contact?.updatedAt))
    }

    /// `GET /api/v1/study/videos`: the study's published videos by category.
    @Sendable func videos(request: Request, context: PortalContext) async throws -> Response {
        _ = try await participant(context)
        return .json(StudyVideosAPI.List(try await StudyVideos(portal: portal).published()))
    }

    /// `GET /api/v1/study/videos/{id}/file`: a published video's uploaded file, with byte ranges so she can seek.
    @Sendable func videoFile(request: Request, context: PortalContext) async throws -> Response {
        _ = try await participant(context)
        guard let response = try await StudyVideos(portal: portal).file(try context.parameters.apiRecordID(), request: request, context: context)
        else {
            throw APIError.notFound
        }
        return response
    }

    /// `GET /api/v1/study/locations`: the study's care locations, each with its pin where one is given.
    @Sendable func locations(request: Request, context: PortalContext) async throws -> Response {
        _ = try await participant(context)
        let directory = HelpDirectory(portal: portal, list: .study)
        let locations = try await directory.everyone(kinds: try HelpDirectoryAPIController.kinds(request, of: .study))
        return .json(StudyCareLocationsAPI.List(locations: locations.map(HelpDirectoryAPI.Entry.init)))
    }
}
