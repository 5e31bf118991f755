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
    package let header: RenderedHTML
    package let csrfToken: String?
    package let flash: FlashView?
    /// The program's time zone as the settings page names it ("Eastern (New York)"), for the footer.
    package let timeZoneTitle: String
    /// Where "Go to the home page" leads: the portal's home, or the web app's.
    package let homePath: String
    /// The web app's manifest, which its layout links to.
    package let manifestPath = AppPageCookies.manifestPath

    package init(
        title: String,
        programName: String,
        header: RenderedHTML,
        csrfToken: String? = nil,
        flash: FlashView? = nil,
        timeZoneTitle: String = ProgramTimeZone.title(of: ProgramTimeZone.defaultID),
        homePath: String = PlatformPath.home
    ) {
        self.title = title
        self.homePath = homePath
        self.programName = programName
        self.timeZoneTitle = timeZoneTitle
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

    /// One heading of the grouped navigation: a plain link when the group has a single page, otherwise a
    /// disclosure (`<details>`) listing the group's pages, marked as current when one of them is the page.
    package struct NavigationSection: Sendable, Hashable, Encodable {
        package struct Menu: Sendable, Hashable, Encodable {
            package let links: [NavigationLink]
        }

        package let title: String
        package let isCurrent: Bool
        /// Set when the group has one page: the header shows it as a plain link.
        package let single: NavigationLink?
        /// Set when the group has several pages.
        package let menu: Menu?

        package init(title: String, links: [NavigationLink]) {
            self.title = title
            isCurrent = links.contains(where: \.isCurrent)
            single = links.count == 1 ? links[0] : nil
            menu = links.count > 1 ? Menu(links: links) : nil
        }
    }

    /// Up to this many links, a role's navigation stays one plain row: grouping would only hide pages.
    package static let plainRowLimit = 8

    package static let template = TemplateName.siteHeader
    package let programName: String
    package let signedIn: SignedIn?
    /// Every link the role may use, in the navigation's order.
    package let navigation: [NavigationLink]
    /// The same links under their groups' headings; empty when the links fit in one plain row.
    package let sections: [NavigationSection]
    package let isGrouped: Bool
    package let signOutPath = PlatformPath.signOut
    package let homePath = PlatformPath.home

    package init(programName: String, signedIn: SignedIn? = nil, navigation: [NavigationLink], sections: [NavigationSection] = []) {
        self.programName = programName
        self.signedIn = signedIn
        self.navigation = navigation
        self.isGrouped = navigation.count > Self.plainRowLimit && !sections.isEmpty
        self.sections = isGrouped ? sections : []
    }

    /// The links `items` gives, gathered under their groups in the groups' order (`items` is ordered by group).
    package static func sections(_ items: [(group: NavigationGroup, link: NavigationLink)]) -> [NavigationSection] {
        var sections: [(group: NavigationGroup, links: [NavigationLink])] = []
        for item in items {
            if let last = sections.indices.last, sections[last].group == item.group {
                sections[last].links.append(item.link)
            } else {
                sections.append((item.group, [item.link]))
            }
        }
        return sections.map { NavigationSection(title: $0.group.title, links: $0.links) }
    }
}

extension Portal {
    /// The layout for a page, with the navigation the signed-in person's role allows among the programs
    /// this deployment runs; the link to `currentPath` is marked as the page's own.
    package func layout(_ title: String, context: PortalContext, currentPath: String?) -> Layout {
        let role = context.staff?.role
        let settings = programSettings.current
        let items =
            role == nil
            ? []
            : contributions.orderedNavigation
                .filter { $0.access.allows(role) && settings.runs($0.program) }
                .map { (group: $0.group, link: SiteHeader.NavigationLink(title: $0.title, path: $0.path, isCurrent: $0.path == currentPath)) }
        let programName = settings.programName
        let csrfToken = context.session?.csrfToken ?? context.formToken
        let header = SiteHeader(
            programName: programName,
            signedIn: context.staff.flatMap { staff in
                csrfToken.map { SiteHeader.SignedIn(username: staff.username, roleTitle: staff.role.title, csrfToken: $0) }
            },
            navigation: items.map(\.link),
            sections: SiteHeader.sections(items)
        )
        return Layout(
            title: title,
            programName: programName,
            header: pages.html(header),
            csrfToken: csrfToken,
            flash: context.session?.flash.map { Layout.FlashView(text: $0.text, kind: $0.kind.rawValue) },
            timeZoneTitle: ProgramTimeZone.title(of: settings.timeZoneID)
        )
    }
}

/// The paths the platform itself sends people to; `SiteURL` names the same paths for the features.
package enum PlatformPath {
    package static let home = "/"
    package static let signIn = "/sign-in"
    package static let signOut = "/sign-out"
}
