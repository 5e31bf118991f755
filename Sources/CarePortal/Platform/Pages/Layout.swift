/// What the base layout shows on every page.
struct Layout: Sendable, Encodable {
    struct SignedIn: Sendable, Encodable {
        let username: String
        let roleTitle: String
    }

    struct NavigationLink: Sendable, Encodable {
        let title: String
        let path: String
        let isCurrent: Bool
    }

    struct FlashView: Sendable, Encodable {
        let text: String
        let kind: String
    }

    let title: String
    let programName: String
    let signedIn: SignedIn?
    let navigation: [NavigationLink]
    let csrfToken: String?
    let flash: FlashView?
    let signOutPath = SiteURL.signOut.path
    let changePasswordPath = SiteURL.changePassword.path
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
            .map { Layout.NavigationLink(title: $0.title, path: $0.url.path, isCurrent: $0.url == current) }
        return Layout(
            title: title,
            programName: programSettings.current.programName,
            signedIn: context.staff.map { Layout.SignedIn(username: $0.username, roleTitle: $0.role.title) },
            navigation: navigation,
            csrfToken: context.session?.csrfToken,
            flash: context.session?.flash.map { Layout.FlashView(text: $0.text, kind: $0.kind.rawValue) }
        )
    }
}
