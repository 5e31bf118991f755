import Foundation
import HTTPTypes
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The study's care locations (seed 001 §13) are the directory's list kept by the study's staff: each
/// program reads and changes only its own list, and participants see the study's with its map pins.
@Suite struct StudyCareLocationsTests {
    static func form(
        name: String = "Lakeview Movement Clinic",
        kind: String = "care_location",
        phone: String = "",
        web: String = "https://lakeview.example.org",
        address: String = "12 Lake Road, Nashville, TN 37203",
        latitude: String = "36.1627",
        longitude: String = "-86.7816"
    ) -> [(String, String)] {
        [
            ("name", name), ("kind", kind), ("phone", phone), ("text_number", ""), ("web_address", web), ("hours", "Monday to Friday, 8am to 6pm"),
            ("languages", "English"), ("description", "Physiotherapy and exercise classes for the study's participants."),
            ("address", address), ("latitude", latitude), ("longitude", longitude)
        ]
    }

    @Test(arguments: TestEngines.all)
    func theStudysStaffKeepItsCareLocationsAndParticipantsSeeThemWithTheirPins(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (researcher, _) = try await portal.signedIn(.researcher)
            let empty = try await researcher.get(SiteURL.studyLocations.path)
            #expect(empty.status == .ok && empty.text.contains("No care locations yet"))
            #expect(!empty.text.contains(#"id="state""#), "the study's list is for everyone: no state filter")
            let form = try await researcher.get(SiteURL.newStudyLocation.path)
            #expect(form.text.contains(#"value="care_location" checked"#), "a care location is what is usually added")
            #expect(!form.text.contains("Where it applies"))

            // A pin needs both numbers, each in range; every problem is beside its field and what was typed is kept.
            let half = try await researcher.post(SiteURL.newStudyLocation.path, form: Self.form(longitude: ""))
            #expect(half.status == .unprocessableContent)
            #expect(half.errorSummary == ["Enter the longitude as well as the latitude, or leave both empty"])
            #expect(half.text.contains(#"value="36.1627""#))
            let wrong = try await researcher.post(SiteURL.newStudyLocation.path, form: Self.form(latitude: "91", longitude: "east"))
            #expect(
                wrong.errorSummary == [
                    "Enter the latitude in degrees between -90 and 90, like 36.1627",
                    "Enter the longitude in degrees between -180 and 180, like -86.7816"
                ]
            )
            let noWay = try await researcher.post(SiteURL.newStudyLocation.path, form: Self.form(web: "", address: ""))
            #expect(noWay.errorSummary.contains("Give at least one way to reach it: a phone number, a text number or a web address"))
            #expect(noWay.text.contains(HTMLEscaping.escape("Enter the care location's address")))
            #expect(try await DirectorySteps.count(portal) == 0, "bad input stores nothing")

            // A care location with an address and no phone or website is still reachable: she can go there.
            let added = try await researcher.post(SiteURL.newStudyLocation.path, form: Self.form(web: ""))
            #expect(added.location == SiteURL.studyLocations.path)
            let listed = try await researcher.get(SiteURL.studyLocations.path)
            #expect(listed.text.contains("Lakeview Movement Clinic added to the care locations."))
            #expect(listed.text.contains("12 Lake Road, Nashville, TN 37203") && listed.text.contains("mlat=36.1627&amp;mlon=-86.7816"))
            let study = HelpDirectory(portal: portal.portal, list: .study)
            let clinic = try #require(try await study.everyone(kinds: DirectoryList.study.kinds).first)
            #expect(clinic.pin == MapPin(latitude: 36.1627, longitude: -86.7816) && clinic.isNationwide)
            #expect(
                try await portal.auditEntries(action: .helpResourceAdded).contains { $0.recordID == "\(clinic.id)" && $0.actorRole == "researcher" }
            )

            // The perinatal program's list is its own: the clinic is not in it, and its pages cannot reach the clinic.
            var (admin, _) = try await portal.signedIn(.administrator)
            let perinatal = try await admin.post(SiteURL.newHelpResource.path, form: DirectorySteps.form(name: "Kentucky Peer Line", states: "KY"))
            #expect(perinatal.status == .seeOther)
            #expect(!(try await admin.get(SiteURL.helpDirectory.path).text.contains("Lakeview Movement")))
            #expect(try await admin.get(SiteURL.editHelpResource(clinic.id).path).status == .notFound)
            #expect(try await admin.post(SiteURL.deleteHelpResource(clinic.id).path).status == .notFound)
            #expect(!(try await researcher.get(SiteURL.studyLocations.path).text.contains("Kentucky")))
            #expect(!(try await researcher.get("\(SiteURL.studyLocations.path)?q=kentucky").text.contains("Kentucky Peer Line")))
            let perinatalList = try await portal.database.read { db in try await HelpDirectoryRepository().list(HelpDirectoryQuery(), on: db) }
            let peerLine = try #require(perinatalList.items.first)
            #expect(perinatalList.items.map(\.name) == ["Kentucky Peer Line"])
            #expect(try await researcher.get(SiteURL.editStudyLocation(peerLine.id).path).status == .notFound)

            // Changed: the pin can be taken away by clearing both numbers.
            let changed = try await researcher.post(
                SiteURL.editStudyLocation(clinic.id).path,
                form: Self.form(name: "Lakeview Clinic", latitude: "", longitude: "")
            )
            #expect(changed.location == SiteURL.studyLocations.path)
            let unpinned = try #require(try await study.everyone(kinds: DirectoryList.study.kinds).first)
            #expect(unpinned.name == "Lakeview Clinic" && unpinned.pin == nil)
            #expect(try await researcher.post(SiteURL.editStudyLocation(clinic.id).path, form: Self.form()).status == .seeOther)

            // The participant's app reads the study's list, pins included, and never the perinatal program's.
            let (app, _) = try await StudyFixtures.participant(portal, code: "NU-201")
            let read = try await app.get(SiteURL.apiStudyLocations.path)
            #expect(read.status == .ok)
            let locations = try #require(read.object["locations"] as? [[String: Any]])
            #expect(locations.count == 1)
            #expect(locations.first?["name"] as? String == "Lakeview Movement Clinic" && locations.first?["kind"] as? String == "care_location")
            #expect(locations.first?["latitude"] as? Double == 36.1627 && locations.first?["longitude"] as? Double == -86.7816)
            #expect(try await app.get("\(SiteURL.apiStudyLocations.path)?kind=helpline").object["locations"] as? [Any] != nil)
            #expect(try await app.get("\(SiteURL.apiStudyLocations.path)?kind=treatment_locator").status == .badRequest)
            #expect(try await AppClient(portal: portal).get(SiteURL.apiStudyLocations.path).status == .unauthorized)

            // And her web page, with a link that opens the map.
            var browser = Visitor(portal: portal)
            try await browser.signInToApp(.participant, identifier: "nu-201", password: StudyFixtures.password)
            let page = try await browser.get(SiteURL.appStudyLocations.path)
            #expect(page.status == .ok && page.text.contains("Lakeview Movement Clinic") && page.text.contains("Show on a map"))
            #expect(!page.text.contains("Kentucky Peer Line"))

            // Deleted after asking; participants no longer see it.
            #expect(try await researcher.get(SiteURL.deleteStudyLocation(clinic.id).path).text.contains("Participants will no longer see it"))
            #expect(try await researcher.post(SiteURL.deleteStudyLocation(clinic.id).path).location == SiteURL.studyLocations.path)
            #expect((try await app.get(SiteURL.apiStudyLocations.path).object["locations"] as? [Any])?.isEmpty == true)
            #expect(try await browser.get(SiteURL.appStudyLocations.path).text.contains("The study team has not listed any care locations yet."))

            // With the study switched off, its list's pages and API answer 404.
            #expect(try await FeaturesTests.switchPrograms(&admin, on: [.perinatalCommunity]).status == .seeOther)
            #expect(try await researcher.get(SiteURL.studyLocations.path).status == .notFound)
        }
    }
}
