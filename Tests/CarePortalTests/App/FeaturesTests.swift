import Foundation
import Synchronization
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The portal is built from its features, and an administrator chooses which programs it runs.
@Suite struct FeaturesTests {
    /// Every route of `program`, taken from the router, as a path to request.
    static func routes(of program: Program, in portal: TestPortal) -> [RouteCatalogue.Key] {
        portal.app.routes.filter { portal.app.catalogue.programs[$0] == program }
    }

    static func switchPrograms(_ admin: inout Visitor, on programs: [Program]) async throws -> TestResponse {
        let settings = try await admin.get(SiteURL.programSettings.path)
        #expect(settings.text.contains("Programs this portal runs"))
        let current = ProgramSettings.defaults(programName: "CarePortal")
        var form: [(String, String)] = [
            ("program_name", "CarePortal"), ("deletion_phone", ""), ("code_lifetime_days", "30"),
            ("security_questions", current.securityQuestions.joined(separator: "\n")), ("programs_shown", "1")
        ]
        form += current.memberAvatarIDs.map { ("avatars[]", $0) }
        form += programs.map { ("programs[]", $0.id) }
        return try await admin.post(SiteURL.programSettings.path, form: form)
    }

    @Test(arguments: TestEngines.all)
    func aSwitchedOffProgramAnswersNotFoundAndLeavesTheNavigationAndHome(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            var (physician, _) = try await portal.signedIn(.physician)
            let practice = Self.routes(of: .physiciansPractice, in: portal)
            #expect(practice.count > 20 && practice.contains { $0.path.hasPrefix("/api/v1/patient/") })
            #expect(try await admin.get(SiteURL.patients.path).status == .ok)
            #expect(try await admin.get("/").text.contains(#"href="/patients">Patients</a>"#))

            #expect(try await Self.switchPrograms(&admin, on: [.perinatalCommunity]).status == .seeOther)

            for route in practice {
                let path = AccessTests.concretePath(route.path)
                let response =
                    if AccessTests.isAPI(route) {
                        try await portal.client.execute(uri: path, method: HTTPRequest.Method(route.method)!, headers: [:], body: nil)
                    } else if AccessTests.isPeopleApp(route) {
                        try await AppPagesAccessTests.visit(route, path: path, as: Visitor(portal: portal))
                    } else if route.method == "GET" {
                        try await admin.get(path)
                    } else {
                        try await admin.post(path)
                    }
                #expect(response.status == .notFound, "\(route) answered \(response.status.code) with its program off")
            }
            let home = try await admin.get("/").text
            #expect(!home.contains(#"href="/patients""#) && !home.contains(#"href="/catalogue""#), "no link or card to the practice")
            #expect(home.contains(#"href="/members">Members</a>"#), "the community's links stay")
            #expect(!(try await physician.get("/").text.contains(#"href="/patients""#)))
            #expect(try await admin.get(SiteURL.members.path).status == .ok)
            let entry = try #require(try await portal.auditEntries(action: .programSettingsChanged).first)
            #expect(entry.detail?.contains("Physicians' practice switched off") == true)

            // Nothing was lost: switched on again, the practice is back.
            #expect(try await Self.switchPrograms(&admin, on: [.perinatalCommunity, .physiciansPractice]).status == .seeOther)
            #expect(try await admin.get(SiteURL.patients.path).status == .ok)
            #expect(
                try await portal.auditEntries(action: .programSettingsChanged).first?.detail?.contains("Physicians' practice switched on") == true
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func switchingEveryProgramOffIsRefused(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            let response = try await Self.switchPrograms(&admin, on: [])
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains("Choose at least one program for this deployment to run"))
            #expect(response.text.contains(##"href="#programs""##), "the error summary links to the checkboxes")
            #expect(try await admin.get(SiteURL.patients.path).status == .ok, "nothing changed")
        }
    }

    @Test(arguments: TestEngines.all)
    func aFormWithoutTheProgramsLeavesThemAsTheyAre(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await Self.switchPrograms(&admin, on: [.perinatalCommunity]).status == .seeOther)
            let current = ProgramSettings.defaults(programName: "CarePortal")
            let form =
                [
                    ("program_name", "Renamed"), ("deletion_phone", ""), ("code_lifetime_days", "30"),
                    ("security_questions", current.securityQuestions.joined(separator: "\n"))
                ] + current.memberAvatarIDs.map { ("avatars[]", $0) }
            #expect(try await admin.post(SiteURL.programSettings.path, form: form).status == .seeOther)
            #expect(portal.portal.programSettings.current.programName == "Renamed")
            let others = Set(portal.portal.contributions.programs.map(\.id)).subtracting([Program.perinatalCommunity.id])
            #expect(Set(portal.portal.programSettings.current.programsSwitchedOff) == others)
        }
    }

    @Test func aSwitchedOffProgramsBackgroundJobsIdle() async throws {
        try await TestPortal.run(.sqlite) { portal in
            let runs = Counter()
            var job = BackgroundJob("Counting", every: .seconds(60)) { runs.increment() }
            job.program = .physiciansPractice
            let jobs = BackgroundJobs(portal: portal.portal, jobs: [job])
            let ran = try await jobs.round(job)
            #expect(ran && runs.value == 1)
            var settings = portal.portal.programSettings.current
            settings.programsSwitchedOff = [Program.physiciansPractice.id]
            portal.portal.programSettings.adopt(settings)
            let ranWhileOff = try await jobs.round(job)
            #expect(!ranWhileOff && runs.value == 1, "the job idled")
            let reminders = try #require(portal.app.jobs.first { $0.name == "Patient reminders" })
            #expect(reminders.program == .physiciansPractice, "a feature's job belongs to its feature's program")
        }
    }

    @Test(arguments: TestEngines.all)
    func aPortalBuiltWithoutAFeatureHasNoneOfItsRoutesOrLinks(engine: Database.Engine) async throws {
        let community: [any PortalFeature.Type] = Features.all.filter { $0.program != .physiciansPractice }
        try await TestPortal.run(engine, features: community) { portal in
            #expect(portal.app.feature(PatientsFeature.self) == nil && portal.app.feature(InformationDeskFeature.self) != nil)
            #expect(!portal.app.routes.contains { $0.path.hasPrefix("/patients") || $0.path.hasPrefix("/api/v1/patient") })
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get(SiteURL.patients.path).status == .notFound)
            #expect(try await admin.get(SiteURL.catalogue.path).status == .notFound)
            let home = try await admin.get("/").text
            #expect(!home.contains(#"href="/patients""#) && !home.contains(#"href="/catalogue""#))
            #expect(home.contains(#"href="/desk">Information desk</a>"#))
            #expect(try await portal.client.execute(uri: SiteURL.apiPatientMe.path, method: .get, headers: [:], body: nil).status == .notFound)
            #expect(!portal.portal.contributions.appAccounts.contains(.patient))
        }
    }

    @Test func everyFeatureDeclaresItsAuditActionsOnceAndTheLogShowsTheirTitles() async throws {
        try await TestPortal.run(.sqlite) { portal in
            let actions = portal.portal.auditVocabulary.actions
            #expect(Set(actions.map(\.rawValue)).count == actions.count)
            #expect(portal.portal.auditVocabulary.title(of: "desk_post_hidden") == "Information desk post hidden")
            #expect(portal.portal.auditVocabulary.title(of: "patient_viewed") == "Patient record viewed")
            #expect(portal.portal.auditVocabulary.title(of: "sign_in") == "Sign in")
            #expect(portal.portal.auditVocabulary.title(of: "no_longer_declared") == "no_longer_declared")
        }
    }
}

/// Counts a background job's rounds.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}
