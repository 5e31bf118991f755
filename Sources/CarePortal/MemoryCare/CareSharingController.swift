import Foundation
import Hummingbird
import PortalPlatform

/// Her sharing in the web app (`/app/care/sharing`): who she shares with and what, making a code for
/// someone new (shown once), changing or ending a link (confirmed), withdrawing a code, and her log of
/// what each caregiver saw.
struct CareSharingController {
    let portal: Portal
    var care: MemoryCare { MemoryCare(portal: portal) }

    func addRoutes(to routes: inout PortalRoutes) {
        let access = Access.careReceiverPages
        routes.get(CareURL.appSharing.pattern, access: access, sharing)
        routes.get(CareURL.appInvite.pattern, access: access, inviteForm)
        routes.post(CareURL.appInvite.pattern, access: access, invite)
        routes.post(CareURL.pattern(CareURL.appInvitationWithdraw), access: access, withdraw)
        routes.get(CareURL.pattern(CareURL.appLink), access: access, link)
        routes.post(CareURL.pattern(CareURL.appLink), access: access, changeLink)
        routes.get(CareURL.pattern(CareURL.appLinkEnd), access: access, confirmEnd)
        routes.post(CareURL.pattern(CareURL.appLinkEnd), access: access, end)
        routes.get(CareURL.appAccessLog.pattern, access: access, accessLog)
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        CareAppController.layout(portal, title, context, .appSharing)
    }

    private var clock: ProgramClock { portal.programSettings.current.clock }

    @Sendable func sharing(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let links = try await care.links(of: holder).map(\.0)
        let invitations = try await care.openInvitations(receiverID: holder.accountID)
        let notice: String? =
            switch request.query("done") {
            case "changed": "Saved. It takes effect straight away."
            case "ended": "Sharing has stopped. They have been told by email."
            case "withdrawn": "The code is withdrawn: it no longer works."
            default: nil
            }
        return portal.pages.response(
            CareSharingPage(layout: layout("Sharing", context), links: links, invitations: invitations, clock: clock, notice: notice)
        )
    }

    private struct GrantForm: Decodable {
        var scopes: [String]?
        var categories: [String]?
    }

    @Sendable func inviteForm(request: Request, context: PortalContext) async throws -> Response {
        _ = try CareAppController.receiver(context)
        return portal.pages.response(
            CareGrantPage(layout: layout("Share with someone", context), link: nil, scopes: [], categories: [], clock: clock)
        )
    }

    @Sendable func invite(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let form = try await request.form(GrantForm.self, context: context)
        switch CareGrantPage.grant(scopes: form.scopes, categories: form.categories) {
        case .failure(let error):
            return portal.pages.response(
                CareGrantPage(
                    layout: layout("Share with someone", context),
                    link: nil,
                    scopes: Set(form.scopes ?? []),
                    categories: Set(form.categories ?? []),
                    problems: error.fields,
                    clock: clock
                ),
                status: .unprocessableContent
            )
        case .success(let grant):
            let (invitation, code) = try await care.invite(holder, grant: grant, origin: portal.origin(of: request, context: context))
            return portal.pages.response(CareCodePage(layout: layout("Your code", context), code: code, invitation: invitation, clock: clock))
        }
    }

    @Sendable func withdraw(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        try await care.withdrawInvitation(id: try context.parameters.recordID(), holder)
        return seeOther("\(CareURL.appSharing.path)?done=withdrawn")
    }

    /// Her link in force by id, with its history; 404 for one that is not hers or has ended.
    private func activeLink(_ context: PortalContext, _ holder: AppAccountHolder) async throws -> (CareLink, [CareLinkEvent]) {
        let id = try context.parameters.recordID()
        guard let found = try await care.links(of: holder).first(where: { $0.0.id == id && $0.0.isActive }) else { throw HTTPError(.notFound) }
        return found
    }

    @Sendable func link(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let (link, events) = try await activeLink(context, holder)
        return portal.pages.response(
            CareGrantPage(
                layout: layout(link.caregiverName, context),
                link: link,
                events: events,
                scopes: Set(link.grant.scopes.map(\.rawValue)),
                categories: Set(link.grant.categories.map(\.rawValue)),
                clock: clock
            )
        )
    }

    @Sendable func changeLink(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let (link, events) = try await activeLink(context, holder)
        let form = try await request.form(GrantForm.self, context: context)
        switch CareGrantPage.grant(scopes: form.scopes, categories: form.categories) {
        case .failure(let error):
            return portal.pages.response(
                CareGrantPage(
                    layout: layout(link.caregiverName, context),
                    link: link,
                    events: events,
                    scopes: Set(form.scopes ?? []),
                    categories: Set(form.categories ?? []),
                    problems: error.fields,
                    clock: clock
                ),
                status: .unprocessableContent
            )
        case .success(let grant):
            _ = try await care.changeLink(id: link.id, grant: grant, holder, origin: portal.origin(of: request, context: context))
            return seeOther("\(CareURL.appSharing.path)?done=changed")
        }
    }

    @Sendable func confirmEnd(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let (link, _) = try await activeLink(context, holder)
        return portal.pages.response(
            CareConfirmPage(
                layout: layout("Stop sharing", context),
                heading: "Stop sharing with \(link.caregiverName)?",
                body: "They will see nothing more from now on, and we tell them by email. To share again later, make a new code.",
                action: CareURL.appLinkEnd(link.id).path,
                version: nil,
                button: "Yes, stop sharing",
                cancelPath: CareURL.appLink(link.id).path
            )
        )
    }

    @Sendable func end(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        try await care.revokeLink(
            id: try context.parameters.recordID(),
            by: .careReceiver(holder.accountID),
            auditActor: MemoryCare.actor(holder),
            origin: portal.origin(of: request, context: context)
        )
        return seeOther("\(CareURL.appSharing.path)?done=ended")
    }

    @Sendable func accessLog(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let page = CarePageLinks.number(request)
        let (entries, hasMore) = try await care.accessLog(receiverID: holder.accountID, page: page)
        return portal.pages.response(
            CareAccessLogPage(layout: layout("Who saw what", context), entries: entries, page: page, hasMore: hasMore, clock: clock)
        )
    }
}
