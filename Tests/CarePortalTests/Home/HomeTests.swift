import Foundation
import HTTPTypes
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Each role's home page and the grouped navigation every page starts with.
@Suite struct HomeTests {
    /// The number a home figure shows, read from the page.
    static func figure(_ page: String, _ label: String) -> String? {
        let marker = #"data-figure="\#(label)">"#
        guard let start = page.range(of: marker)?.upperBound, let end = page[start...].firstIndex(of: "<") else { return nil }
        return String(page[start..<end])
    }

    /// The header's navigation, from `<nav` to `</nav>`.
    static func navigation(_ page: String) -> String {
        guard let start = page.range(of: #"<nav class="site-nav""#), let end = page.range(of: "</nav>", range: start.upperBound..<page.endIndex)
        else { return "" }
        return String(page[start.lowerBound..<end.upperBound])
    }

    /// Every link of the navigation with the title of the group it is shown under (a single-link group
    /// is shown as its own link, titled by the group).
    static func groupedLinks(_ nav: String) -> [(group: String, path: String, title: String)] {
        var links: [(String, String, String)] = []
        for item in nav.components(separatedBy: #"<li class="site-nav__item">"#).dropFirst() {
            var group: String?
            if let summary = item.range(of: "<summary"), let open = item.range(of: ">", range: summary.upperBound..<item.endIndex) {
                let rest = item[open.upperBound...]
                group = String(rest.prefix { $0 != "<" })
            }
            for anchor in item.components(separatedBy: "<a ").dropFirst() {
                guard let href = anchor.range(of: #"href=""#), let close = anchor[href.upperBound...].firstIndex(of: "\""),
                    let textStart = anchor.firstIndex(of: ">")
                else { continue }
                let path = String(anchor[href.upperBound..<close])
                let title = String(anchor[anchor.index(after: textStart)...].prefix { $0 != "<" })
                links.append((group ?? "", path, title))
            }
        }
        return links
    }

    @Test(arguments: TestEngines.all)
    func everyRoleSeesEachOfItsLinksOnceInItsGroupAndNoOther(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let items = portal.portal.contributions.orderedNavigation
            for role in StaffRole.allCases {
                var (visitor, _) = try await portal.signedIn(role)
                let page = try await visitor.get(SiteURL.landing(for: role).path)
                #expect(page.status == .ok, "\(role)")
                let nav = Self.navigation(page.text)
                let allowed = items.filter { $0.access.allows(role) }
                let links = Self.groupedLinks(nav)
                #expect(links.map(\.path) == allowed.map(\.path), "\(role): every link it may use, in order, once")
                for item in items where !item.access.allows(role) {
                    #expect(!nav.contains(#"href="\#(item.path)""#), "\(role) is not shown \(item.path)")
                }
                if allowed.count > SiteHeader.plainRowLimit {
                    #expect(nav.contains("<details"), "\(role): many links are grouped")
                    for item in allowed {
                        let shown = try #require(links.first { $0.path == item.path })
                        let group = allowed.filter { $0.group == item.group }
                        // A group of one page is a plain link; otherwise the link sits under its group's heading.
                        #expect(shown.group == (group.count == 1 ? "" : item.group.title), "\(role): \(item.title) under \(item.group.title)")
                        #expect(shown.title == item.title)
                    }
                } else {
                    #expect(!nav.contains("<details"), "\(role): a few links stay one plain row")
                }
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func theCurrentPageIsMarkedAndItsGroupShownAsCurrent(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let nav = Self.navigation(try await admin.get(SiteURL.members.path).text)
            #expect(nav.components(separatedBy: #"aria-current="page""#).count == 2, "one current link")
            #expect(nav.contains(#"href="/members" aria-current="page">Members</a>"#))
            let people = try #require(nav.components(separatedBy: #"<li class="site-nav__item">"#).first { $0.contains(">People") })
            #expect(people.contains("site-nav__summary--current") && people.contains("(this page's section)"))
            #expect(nav.components(separatedBy: "site-nav__summary--current").count == 2, "only the People group is current")
            // Every page of the group is one click away on any page, with no script.
            #expect(!nav.contains("<script"))
        }
    }

    @Test(arguments: TestEngines.all)
    func theAdministratorsHomeCountsWhatWaitsForThem(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // Mail that could not be delivered after every attempt.
            try await OutboxTests.enqueue(Mail(recipient: "a@example.org", subject: "Hello", body: "Body"), in: portal)
            let sender = OutboxTests.sender(SMTPTransport(url: "smtp://127.0.0.1:9"), in: portal)
            for _ in 0..<Outbox.maximumAttempts {
                _ = try await sender.deliverDue()
                portal.clock.advance(by: 3601)
            }
            // Two physicians waiting for approval, one approved already.
            _ = try await portal.createStaff(.physician, username: "dr.waiting1", status: .awaitingApproval)
            _ = try await portal.createStaff(.physician, username: "dr.waiting2", status: .awaitingApproval)
            _ = try await portal.createStaff(.physician, username: "dr.approved")

            var (admin, _) = try await portal.signedIn(.administrator)
            var home = try await admin.get(SiteURL.home.path).text
            #expect(Self.figure(home, "Questions waiting for an answer") == "0")
            #expect(Self.figure(home, "Members active in the last 7 days") == "0")

            // Week one: three members ask; one is answered.
            var members: [AppClient] = []
            for _ in 0..<3 { members.append(try await AppClient.registered(portal).0) }
            let first = try await DeskSteps.ask(members[0], title: "Is it safe to breastfeed?")
            portal.clock.advance(by: 3 * 3600)
            let second = try await DeskSteps.ask(members[1], title: "Where is the nearest clinic?")
            try await DeskSteps.ask(members[2], title: "Can I bring my baby to group?")
            var (professional, _) = try await portal.signedIn(.medicalProfessional)
            try await DeskSteps.reply(&professional, thread: second, body: "On the high street, next to the library.")
            // One post flagged by two members (still shown), reviewed nowhere yet.
            #expect(try await DeskSteps.flag(members[1], SiteURL.apiThreadFlags(first).path).status == .created)
            #expect(try await DeskSteps.flag(members[2], SiteURL.apiThreadFlags(first).path).status == .created)
            // Two chat messages reported, one of them twice.
            let one = Int64(try #require(try await ChatTests.post(members[0], "buy my pills cheap").object["id"] as? Int))
            let two = Int64(try #require(try await ChatTests.post(members[0], "call me on this number").object["id"] as? Int))
            for (message, reporter) in [(one, members[1]), (one, members[2]), (two, members[1])] {
                #expect(try await reporter.send(.post, SiteURL.apiChatMessageReports(message).path, json: ["reason": "spam"]).status == .noContent)
            }

            (admin, _) = try await portal.signedIn(.administrator)
            home = try await admin.get(SiteURL.home.path).text
            #expect(Self.figure(home, "Questions waiting for an answer") == "2")
            #expect(home.contains("The oldest has waited 3 h."))
            #expect(Self.figure(home, "Flagged posts waiting for review") == "1")
            #expect(Self.figure(home, "Reported messages waiting for review") == "2")
            #expect(Self.figure(home, "Physicians waiting for approval") == "2")
            #expect(Self.figure(home, "Emails not delivered") == "1")
            #expect(Self.figure(home, "Members active in the last 7 days") == "3")
            #expect(home.contains("0 in the 7 days before: 3 more."))
            #expect(home.contains(#"data-chart="home-active-members""#) && home.contains(#"data-chart="home-app-opens""#))
            #expect(home.contains("Latest: 3"), "the sparkline's latest day counts the three members")
            #expect(home.contains(#"href="/analytics/activity""#), "the graphs link into Analytics")
            #expect(home.contains(#"href="/staff?status=awaiting_approval""#) && home.contains(#"href="/outbox?status=failed""#))

            // A week later one new member is active; the three are the week before.
            portal.clock.advance(by: 7 * 86_400)
            let (late, _) = try await AppClient.registered(portal)
            try await DeskSteps.ask(late, title: "Is there a group this week?")
            (admin, _) = try await portal.signedIn(.administrator)
            home = try await admin.get(SiteURL.home.path).text
            #expect(Self.figure(home, "Members active in the last 7 days") == "1")
            #expect(home.contains("3 in the 7 days before: 2 fewer."))
            #expect(Self.figure(home, "Questions waiting for an answer") == "3")
            #expect(home.contains("The oldest has waited 7 days."))
        }
    }

    @Test(arguments: TestEngines.all)
    func eachRolesHomeShowsWhatThatRoleNeedsFirst(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (physician, doctor) = try await portal.signedIn(.physician)
            var home = try await physician.get(SiteURL.home.path).text
            #expect(Self.figure(home, "Your patients") == "0" && Self.figure(home, "New patients not finished") == "0")
            try await portal.database.transaction { db in
                _ = try await RegimenRepository().createDraft(physicianID: doctor.id, PatientDraft(), now: portal.clock.now, on: db)
            }
            home = try await physician.get(SiteURL.home.path).text
            #expect(Self.figure(home, "New patients not finished") == "1")
            #expect(Self.figure(home, "Questions waiting for an answer") == nil, "the desk's figures are the administrators'")
            #expect(!home.contains("data-chart="), "no analytics for physicians")

            var (pharmacist, _) = try await portal.signedIn(.pharmacist)
            home = try await pharmacist.get(SiteURL.home.path).text
            #expect(Self.figure(home, "Refill requests waiting on the pharmacy") == "0")
            #expect(Self.figure(home, "Members active in the last 7 days") == nil)

            var (professional, _) = try await portal.signedIn(.medicalProfessional)
            let landing = try await professional.get(SiteURL.home.path)
            #expect(landing.status == .seeOther && landing.location == SiteURL.desk.path, "medical professionals land on the desk")
        }
    }

    @Test func aSparklineKeepsItsNumbersInItsTableAndItsWordsInsideItsDrawing() {
        let line = Sparkline(
            ChartDescription(id: "s", title: "Members active each day", summary: "From 1 to 5.", valueTitle: "Active members", categoryTitle: "Day"),
            categories: ["1 Nov 2026", "2 Nov 2026", "3 Nov 2026"],
            values: [.count(1), ChartValue(nil, text: "fewer than 5"), .count(5)]
        ).figure
        #expect(line.table.rows.map { $0.cells.map(\.text) } == [["1 Nov 2026", "1"], ["2 Nov 2026", "fewer than 5"], ["3 Nov 2026", "5"]])
        #expect(line.labels.map(\.text) == ["Latest: 5", "1 Nov 2026", "3 Nov 2026"])
        for label in line.labels {
            let width = ChartGeometry.textWidth(label.text, size: ChartGeometry.labelSize)
            let left = label.anchor == "end" ? label.x - width : label.x
            #expect(left >= 0 && left + width <= line.width && label.y <= line.height, "\(label.text) inside")
        }
        #expect(line.strokes.contains { $0.className == "chart__series" && $0.path.hasPrefix("M") })
    }
}
