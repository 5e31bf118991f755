import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The participant's pages in the people's web app (`/app/study`), over the same domain code as the
/// study API (`ParticipantDay`). She signs in with the username and one-time password made at enrolment,
/// and chooses her own password before anything else, as the app asks her to.
struct ParticipantAppController {
    let portal: Portal

    static let forgottenPassword = "Forgotten your password? Ask the study team: they can send you a link to set a new one."

    func addRoutes(to routes: inout PortalRoutes) {
        routes.appPageSessions(
            .participant,
            help: Self.forgottenPassword,
            links: [
                AppSignInPages.Link(
                    lead: "Were you emailed a claim token?",
                    title: "Claim your account",
                    path: SiteURL.appStudyClaim.path
                )
            ]
        )
        routes.get(SiteURL.appStudyClaim.pattern, access: .everyone, claimStart)
        routes.post(SiteURL.appStudyClaim.pattern, access: .everyone, claim)
        routes.get(SiteURL.appStudyToday.pattern, access: .participantPages, today)
        routes.post(SiteURL.pattern(SiteURL.appStudyTodo), access: .participantPages, markDone)
        routes.get(SiteURL.appStudyProgress.pattern, access: .participantPages, progress)
        routes.get(SiteURL.appStudyFeedback.pattern, access: .participantPages, feedback)
        routes.post(SiteURL.appStudyFeedback.pattern, access: .participantPages, sendFeedback)
        routes.get(SiteURL.appStudyContact.pattern, access: .participantPages, contact)
        routes.get(SiteURL.appStudyLocations.pattern, access: .participantPages, locations)
        routes.get(SiteURL.appStudyVideos.pattern, access: .participantPages, videos)
        routes.get(SiteURL.pattern(SiteURL.appStudyVideo), access: .participantPages, video)
        routes.get(SiteURL.pattern(SiteURL.appStudyVideoFile), access: .participantPages, videoFile)
        let gate = self
        var openings = AppRecordOpeningsPages(
            portal: portal,
            openings: .studyParticipant,
            kind: .participant,
            url: .appStudyRecordOpenings,
            navigation: .participant
        )
        openings.refuse = { context in try await gate.ready(context) == nil ? gate.choosePassword : nil }
        openings.addRoutes(to: &routes)
        routes.get(SiteURL.appStudyPassword.pattern, access: .participantPages, password)
        routes.post(SiteURL.appStudyPassword.pattern, access: .participantPages, changePassword)
    }

    private func layout(_ title: String, _ context: PortalContext, _ url: SiteURL) -> Layout {
        portal.appLayout(title, context: context, navigation: .participant, currentPath: url.path)
    }

    /// The participant signed in; nil while she still has the one-time password, when every page but the
    /// password page sends her there.
    private func ready(_ context: PortalContext) async throws -> StudyParticipant? {
        let holder = try context.requireParticipant()
        guard let participant = try await portal.database.read({ db in try await StudyRepository().participant(id: holder.accountID, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return participant.mustChangePassword ? nil : participant
    }

    private var choosePassword: Response { seeOther(SiteURL.appStudyPassword.path) }

    @Sendable func today(request: Request, context: PortalContext) async throws -> Response {
        guard let participant = try await ready(context) else { return choosePassword }
        let today = try await ParticipantDay.load(participant, portal: portal)
        let settings = portal.programSettings.current
        let closes = "Today’s list closes at midnight (\(ProgramTimeZone.title(of: settings.timeZoneID)) time)."
        let notice: String? =
            switch request.query("notice") {
            case "closed": "That list closed at midnight, so it was not marked. This is today’s list."
            case "password": "Your new password is saved."
            default: nil
            }
        return portal.pages.response(
            ParticipantTodayPage(layout: layout("Today", context, .appStudyToday), today: today, closesText: closes, notice: notice)
        )
    }

    private struct MarkForm: Decodable {
        var day: String?
    }

    @Sendable func markDone(request: Request, context: PortalContext) async throws -> Response {
        guard let participant = try await ready(context) else { return choosePassword }
        guard let itemID = context.parameters.get("id").flatMap(Int64.init) else { throw HTTPError(.notFound) }
        let form = try await request.form(MarkForm.self, context: context)
        guard let day = form.day.flatMap(CalendarDate.init(iso:)) else { throw HTTPError(.badRequest) }
        do {
            _ = try await ParticipantDay.mark(participant, itemID: itemID, day: day, portal: portal)
            return seeOther("\(SiteURL.appStudyToday.path)#item-\(itemID)")
        } catch ParticipantDay.MarkRefusal.dayClosed, ParticipantDay.MarkRefusal.dayNotStarted {
            return seeOther("\(SiteURL.appStudyToday.path)?notice=closed")
        } catch ParticipantDay.MarkRefusal.noSuchItem {
            throw HTTPError(.notFound)
        }
    }

    @Sendable func progress(request: Request, context: PortalContext) async throws -> Response {
        guard let participant = try await ready(context) else { return choosePassword }
        let figures = try await ParticipantDay.statistics(participant, portal: portal)
        return portal.pages.response(
            ParticipantProgressPage(
                layout: layout("Progress", context, .appStudyProgress),
                participant: participant,
                figures: figures
            ) { portal.pages.html($0) }
        )
    }

    private static let team = "the study team"

    @Sendable func feedback(request: Request, context: PortalContext) async throws -> Response {
        guard try await ready(context) != nil else { return choosePassword }
        return portal.pages.response(
            AppFeedbackPage(
                layout: layout("Feedback", context, .appStudyFeedback),
                action: .appStudyFeedback,
                teamName: Self.team,
                offersKind: false,
                sent: request.query("sent") != nil
            )
        )
    }

    private struct FeedbackForm: Decodable {
        var message: String?
    }

    @Sendable func sendFeedback(request: Request, context: PortalContext) async throws -> Response {
        guard let participant = try await ready(context) else { return choosePassword }
        let message = (try await request.form(FeedbackForm.self, context: context).message ?? "").trimmed
        if let problem = FeedbackRules.problem(message) {
            return portal.pages.response(
                AppFeedbackPage(
                    layout: layout("Feedback", context, .appStudyFeedback),
                    action: .appStudyFeedback,
                    teamName: Self.team,
                    offersKind: false,
                    message: message,
                    problem: problem
                ),
                status: .unprocessableContent
            )
        }
        _ = try await ParticipantDay.sendFeedback(message, participant: participant, portal: portal)
        return seeOther("\(SiteURL.appStudyFeedback.path)?sent=1")
    }

    @Sendable func contact(request: Request, context: PortalContext) async throws -> Response {
        guard try await ready(context) != nil else { return choosePassword }
        let contact = try await portal.database.read { db in try await StudyRepository().contact(on: db) }
        let html = contact?.html.trimmed
        return portal.pages.response(
            ParticipantContactPage(
                layout: layout("Contact", context, .appStudyContact),
                html: html?.isEmpty == false ? html.map(RenderedHTML.init(sanitizedHTML:)) : nil
            )
        )
    }

    @Sendable func videos(request: Request, context: PortalContext) async throws -> Response {
        guard try await ready(context) != nil else { return choosePassword }
        let videos = try await StudyVideos(portal: portal).published()
        return portal.pages.response(ParticipantVideosPage(layout: layout("Videos", context, .appStudyVideos), videos: videos))
    }

    @Sendable func video(request: Request, context: PortalContext) async throws -> Response {
        guard try await ready(context) != nil else { return choosePassword }
        guard let video = try await StudyVideos(portal: portal).published(try context.parameters.recordID()) else { throw HTTPError(.notFound) }
        return portal.pages.response(
            LearningAppVideoPage(
                layout: layout(video.title, context, .appStudyVideos),
                video: video,
                watched: false,
                points: nil,
                watchedAction: nil,
                fileURL: SiteURL.appStudyVideoFile,
                backPath: SiteURL.appStudyVideos.path,
                backTitle: "All videos"
            )
        )
    }

    /// A published video's uploaded file, with byte ranges so the browser's player can seek.
    @Sendable func videoFile(request: Request, context: PortalContext) async throws -> Response {
        guard try await ready(context) != nil else { throw HTTPError(.notFound) }
        guard let response = try await StudyVideos(portal: portal).file(try context.parameters.recordID(), request: request, context: context) else {
            throw HTTPError(.notFound)
        }
        return response
    }

    @Sendable func locations(request: Request, context: PortalContext) async throws -> Response {
        guard try await ready(context) != nil else { return choosePassword }
        let locations = try await HelpDirectory(portal: portal, list: .study).everyone(kinds: DirectoryList.study.kinds)
        return portal.pages.response(AppHelpPage.studyLocations(locations, layout: layout("Care locations", context, .appStudyLocations)))
    }

    @Sendable func password(request: Request, context: PortalContext) async throws -> Response {
        let isFirst = try await ready(context) == nil
        return portal.pages.response(
            ParticipantPasswordPage(
                layout: layout(isFirst ? "Choose your password" : "Change your password", context, .appStudyPassword),
                isFirst: isFirst
            )
        )
    }

    private struct PasswordForm: Decodable {
        var current_password: String?
        var new_password: String?
        var new_password_confirmation: String?
    }

    @Sendable func changePassword(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireParticipant()
        let isFirst = try await ready(context) == nil
        let form = try await request.form(PasswordForm.self, context: context)
        let new = form.new_password ?? ""
        var problems: [String: String]
        if !new.isEmpty, new != (form.new_password_confirmation ?? "") {
            problems = ["new_password_confirmation": "Enter the same new password twice"]
        } else {
            problems = try await ParticipantDay.changePassword(
                holder: holder,
                current: form.current_password ?? "",
                new: new,
                actor: context.auditActor,
                origin: portal.origin(of: request, context: context),
                portal: portal
            )
        }
        guard problems.isEmpty else {
            var errors = FormErrors()
            for field in ["current_password", "new_password", "new_password_confirmation"] {
                if let problem = problems[field] { errors.add(field, problem) }
            }
            return portal.pages.response(
                ParticipantPasswordPage(
                    layout: layout(isFirst ? "Choose your password" : "Change your password", context, .appStudyPassword),
                    isFirst: isFirst,
                    errors: errors
                ),
                status: .unprocessableContent
            )
        }
        return seeOther("\(SiteURL.appStudyToday.path)?notice=password")
    }

    // MARK: Claiming her account

    @Sendable func claimStart(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(ParticipantClaimPage(layout: portal.appLayout("Claim your account", context: context)))
    }

    private struct ClaimForm: Decodable {
        var claim_token: String?
        var password: String?
        var password_confirmation: String?
    }

    @Sendable func claim(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(ClaimForm.self, context: context)
        let typed = form.claim_token ?? "", password = form.password ?? ""
        var errors = FormErrors()
        if !password.isEmpty, password != (form.password_confirmation ?? "") {
            errors.add("password_confirmation", "Enter the same password twice")
        } else {
            do {
                let (_, token, _) = try await ParticipantClaim.claim(
                    token: typed,
                    password: password,
                    origin: portal.origin(of: request, context: context),
                    portal: portal
                )
                var response = seeOther(SiteURL.appStudyToday.path)
                response.setCookie(portal.appPageCookies.session(kind: .participant, token: token))
                return response
            } catch let error as APIError {
                if error.status == .tooManyRequests {
                    errors.add("claim_token", "Too many wrong tokens from this network. Wait 15 minutes, then try again.")
                } else {
                    for field in ["claim_token", "password"] {
                        if let problem = error.fields[field] { errors.add(field, problem) }
                    }
                    if errors.isEmpty { throw error }
                }
            }
        }
        return portal.pages.response(
            ParticipantClaimPage(layout: portal.appLayout("Claim your account", context: context), token: typed.trimmed, errors: errors),
            status: .unprocessableContent
        )
    }
}
