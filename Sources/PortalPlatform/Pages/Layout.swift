/// What the base layout shows on every page.
package struct Layout: Sendable, Encodable {
    package struct FlashView: Sendable, Encodable {
        package let text: String
        package let kind: String

        package init(text: String, kind: String) {
            self.text = text
            self.kind = kind
        }
    }

    package let title: String
    package let programName: String
    /// The rendered `SiteHeader`.
    package let header: String
    package let csrfToken: String?
    package let flash: FlashView?

    package init(title: String, programName: String, header: String, csrfToken: String? = nil, flash: FlashView? = nil) {
        self.title = title
        self.programName = programName
        self.header = header
        self.csrfToken = csrfToken
        self.flash = flash
    }
}

/// The header every page starts with: the program's name and, once signed in, the navigation the
/// person's role allows, who is signed in and the sign-out button. The same for every page of a
/// section in one session, so it is rendered once and remembered.
package struct SiteHeader: Fragment {
    package struct SignedIn: Sendable, Hashable, Encodable {
        package let username: String
        package let roleTitle: String
        package let csrfToken: String

        package init(username: String, roleTitle: String, csrfToken: String) {
            self.username = username
            self.roleTitle = roleTitle
            self.csrfToken = csrfToken
        }
    }

    package struct NavigationLink: Sendable, Hashable, Encodable {
        package let title: String
        package let path: String
        package let isCurrent: Bool

        package init(title: String, path: String, isCurrent: Bool) {
            self.title = title
            self.path = path
            self.isCurrent = isCurrent
        }
    }

    package static let template = TemplateName.siteHeader
    package let programName: String
    package let signedIn: SignedIn?
    package let navigation: [NavigationLink]
    package let signOutPath = PlatformPath.signOut
    package let homePath = PlatformPath.home

    package init(programName: String, signedIn: SignedIn? = nil, navigation: [NavigationLink]) {
        self.programName = programName
        self.signedIn = signedIn
        self.navigation = navigation
    }
}

extension Portal {
    /// The layout for a page, with the navigation the signed-in person's role allows among the programs
    /// this deployment runs; the link to `currentPath` is marked as the page's own.
    package func layout(_ title: String, context: PortalContext, currentPath: String?) -> Layout {
        let role = context.staff?.role
        let settings = programSettings.current
        let navigation = role == nil ? [] : contributions.orderedNavigation
            .filter { $0.access.allows(role) && settings.runs($0.program) }
            .map { SiteHeader.NavigationLink(title: $0.title, path: $0.path, isCurrent: $0.path == currentPath) }
        let programName = settings.programName
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

/// The paths the platform itself sends people to; `SiteURL` names the same paths for the features.
package enum PlatformPath {
    package static let home = "/"
    package static let signIn = "/sign-in"
    package static let signOut = "/sign-out"
}
