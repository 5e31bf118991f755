import Foundation
import Hummingbird
import PortalPlatform

/// The study's care locations (seed 001 §13): the directory's list kept by the study's staff, read by
/// participants in their app and on their web pages, with the pin for the map where one is given.
extension DirectoryList {
    static let study = DirectoryList(
        program: .researchStudy,
        access: .studyStaff,
        title: "Care locations",
        addTitle: "Add a care location",
        noun: "the care locations",
        readers: "Participants",
        introduction:
            "Participants see these places in the app, each with its address, and a pin on the map where you give its latitude and longitude.",
        emptyText: "No care locations yet. Add the clinics and places of care the study's participants should know.",
        asksStates: false,
        kinds: [.careLocation, .helpline, .crisisLine, .website],
        defaultKind: .careLocation,
        listURL: .studyLocations,
        newURL: .newStudyLocation,
        editURL: SiteURL.editStudyLocation,
        deleteURL: SiteURL.deleteStudyLocation
    )
}

enum StudyCareLocationsAPI {
    struct List: Encodable, Sendable {
        let locations: [HelpDirectoryAPI.Entry]
    }
}

extension HelpDirectory {
    /// Every entry of a list kept for everyone (no states), in the list's order: care locations for the study.
    func everyone(kinds: [HelpResource.Kind]) async throws -> [HelpResource] {
        try await portal.database.read { db in try await repository.forMember(state: nil, kinds: kinds, on: db) }
    }
}

extension AppHelpPage {
    static func studyLocations(_ locations: [HelpResource], layout: Layout) -> AppHelpPage {
        AppHelpPage(
            layout: layout,
            heading: "Care locations",
            lead: "Places of care the study team recommends, with how to reach them.",
            emptyText: "The study team has not listed any care locations yet. Ask them on the Contact page.",
            entries: locations.map(HelpDirectoryAPI.Entry.init)
        )
    }
}
