/// What the base layout shows on every page.
struct Layout: Sendable, Encodable {
    struct FlashView: Sendable, Encodable {
        let text: String
        let kind: String
    }

    let title: String
    let programName: String
    /// The rendered `SiteHeader`.
    let header: String
    let csrfToken: String?
    let flash: FlashView?
}

/// The header every page starts with: the program's name and, once signed in, the navigation the
/// person's role allows, who is signed in and the sign-out button. The same for every page of a
/// section in one session, so it is rendered once and remembered.
struct SiteHeader: Fragment {
    struct SignedIn: Sendable, Hashable, Encodable {
        let username: String
        let roleTitle: String
        let csrfToken: String
    }

    struct NavigationLink: Sendable, Hashable, Encodable {
        let title: String
        let path: String
        let isCurrent: Bool
    }

    static let template = TemplateName.siteHeader
    let programName: String
    let signedIn: SignedIn?
    let navigation: [NavigationLink]
    let signOutPath = SiteURL.signOut.path
    let homePath = SiteURL.home.path
}

/// A link in the main navigation and who may see it (the same `Access` its route is registered with).
struct NavigationItem: Sendable {
    let title: String
    let url: SiteURL
    let access: Access

    static let all: [NavigationItem] = [
        NavigationItem(title: "Home", url: .home, access: HomeController.navigationAccess),
        NavigationItem(title: "Patients", url: .patients, access: PatientsController.access),
        NavigationItem(title: "Information desk", url: .desk, access: DeskController.access),
        NavigationItem(title: "Members", url: .members, access: MembersController.access),
        NavigationItem(title: "Cohorts", url: .cohorts, access: MembersController.access),
        NavigationItem(title: "Sign-up codes", url: .signUpCodes, access: SignUpCodesController.access),
        NavigationItem(title: "Medical professionals", url: .medicalProfessionals, access: MedicalProfessionalsController.access),
        NavigationItem(title: "Staff accounts", url: .staff, access: StaffController.access),
        NavigationItem(title: "Program settings", url: .programSettings, access: ProgramSettingsController.access),
        NavigationItem(title: "Catalogue", url: .catalogue, access: CatalogueController.access),
        NavigationItem(title: "Audit log", url: .auditLog, access: AuditController.access),
        NavigationItem(title: "Outbox", url: .outbox, access: OutboxController.access),
    ]
}

extension Portal {
    /// The layout for a page, with the navigation the signed-in person's role allows.
    func layout(_ title: String, context: PortalContext, current: SiteURL? = nil) -> Layout {
        let role = context.staff?.role
        let navigation = role == nil ? [] : NavigationItem.all
            .filter { $0.access.allows(role) }
            .map { SiteHeader.NavigationLink(title: $0.title, path: $0.url.path, isCurrent: $0.url == current) }
        let programName = programSettings.current.programName
        let csrfToken = context.session?.csrfToken
        let header = SiteHeader(
            programName: programName,
            signedIn: context.staff.flatMap { staff in
                csrfToken.map { SiteHeader.SignedIn(username: staff.username, roleTitle: staff.role.title, csrfToken: $0) }
            },
            navigation: navigation
        )
        return Layout(
            title: title,
            programName: programName,
            header: pages.html(header),
            csrfToken: csrfToken,
            flash: context.session?.flash.map { Layout.FlashView(text: $0.text, kind: $0.kind.rawValue) }
        )
    }
}
