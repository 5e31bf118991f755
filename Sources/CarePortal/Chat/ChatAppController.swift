import Foundation
import Hummingbird
import PortalPlatform

extension TemplateName {
    static let appMood = TemplateName("app/chat/mood")
    static let appMoodShared = TemplateName("app/chat/mood-shared")
}

/// The daily mood check-in in the member's part of the web app: she chooses how she feels, it is shared
/// with her group as from the app (`Chat.shareMood`), and she is shown the same follow-up the app shows
/// (`Chat.followUp`): nothing more after a good day, something to read after an ordinary one, and where to
/// find help — crisis lines first — after a hard one.
extension Chat {
    /// The member signed in to the web app's page.
    func member(signedInTo context: PortalContext) async throws -> Member {
        guard let holder = context.appAccount, holder.kind == .member else { throw HTTPError(.notFound) }
        return try await member(holder.accountID)
    }
}

struct ChatAppController {
    let portal: Portal
    let chat: Chat

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.appMood.pattern, access: .memberPages, moodForm)
        routes.post(SiteURL.appMood.pattern, access: .memberPages, shareMood)
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        portal.appLayout(title, context: context, navigation: .member, currentPath: SiteURL.appMemberHome.path)
    }

    @Sendable func moodForm(request: Request, context: PortalContext) async throws -> Response {
        _ = try await chat.member(signedInTo: context)
        return portal.pages.response(AppMoodPage(layout: layout("How are you feeling?", context), clientID: UUID().uuidString.lowercased()))
    }

    private struct MoodForm: Decodable {
        var mood: String?
        var client_id: String?
    }

    @Sendable func shareMood(request: Request, context: PortalContext) async throws -> Response {
        let member = try await chat.member(signedInTo: context)
        let form = try await request.form(MoodForm.self, context: context)
        let clientID = form.client_id ?? ""
        guard let mood = form.mood.flatMap(Mood.init(rawValue:)) else {
            var errors = FormErrors()
            errors.add("mood", "Choose how you are feeling")
            return portal.pages.response(
                AppMoodPage(
                    layout: layout("How are you feeling?", context),
                    clientID: clientID.isEmpty ? UUID().uuidString.lowercased() : clientID,
                    errors: errors
                ),
                status: .unprocessableContent
            )
        }
        guard Chat.clientIDProblem(clientID) == nil else { throw HTTPError(.badRequest) }
        _ = try await chat.shareMood(mood, clientID: clientID, by: member)
        let followUp = try await chat.followUp(after: mood, for: member)
        return portal.pages.response(AppMoodSharedPage(layout: layout("Thank you", context), mood: mood, followUp: followUp))
    }
}

struct AppMoodPage: Page {
    static let template = TemplateName.appMood
    let layout: Layout
    let errors: [FormErrors.Item]
    let moods: [AppChoice]
    let moodError: String?
    let clientID: String
    let action = SiteURL.appMood.path

    init(layout: Layout, clientID: String, errors: FormErrors = FormErrors()) {
        self.layout = layout
        self.errors = errors.items
        moods = Mood.allCases.enumerated().map { index, mood in
            AppChoice(id: index == 0 ? "mood" : "mood-\(mood.rawValue)", value: mood.rawValue, title: mood.title, picturePath: nil, isSelected: false)
        }
        moodError = errors["mood"]
        self.clientID = clientID
    }
}

/// What she is shown after sharing her mood, as the app shows it.
struct AppMoodSharedPage: Page {
    static let template = TemplateName.appMoodShared
    let layout: Layout
    let heading: String
    let message: String?
    let reading: ChatAPI.Reading?
    /// Modules recommended for the day, each a link to read it in the web app.
    let modules: [Module]
    let helplines: [AppHelpPage.Entry]

    struct Module: Encodable, Sendable {
        let title: String
        let summary: String
        let path: String
    }
    let homePath = SiteURL.appMemberHome.path
    let helpPath = SiteURL.appMemberHelp.path

    init(layout: Layout, mood: Mood, followUp: ChatAPI.FollowUp) {
        self.layout = layout
        heading = "Thank you. Your group can see you are feeling \(mood.title.lowercased())."
        message = followUp.message
        reading = followUp.reading
        modules = followUp.modules.map { Module(title: $0.title, summary: $0.summary, path: SiteURL.appLearningModule($0.id).path) }
        helplines = followUp.helplines.map { line in
            AppHelpPage.Entry(
                name: line.name,
                kindTitle: HelpResource.Kind(rawValue: line.kind)?.title ?? "",
                isCrisis: line.kind == HelpResource.Kind.crisisLine.rawValue,
                phone: line.phone,
                phoneLink: line.phoneDial.map { "tel:\($0)" },
                text: line.text,
                textLink: line.textDial.map { "sms:\($0)" },
                url: line.url,
                hours: line.hours,
                languages: nil,
                description: nil,
                address: nil,
                mapLink: nil
            )
        }
    }
}
