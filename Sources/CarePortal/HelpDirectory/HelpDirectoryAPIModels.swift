import Foundation
import Hummingbird
import PortalPlatform

/// The app's directory of help: the nationwide entries and those for her state, crisis lines first.
enum HelpDirectoryAPI {
    struct Entry: Encodable, Sendable {
        let id: Int64
        let name: String
        let kind: String
        /// As shown ("1-800-662-4357") and as dialled ("+18006624357").
        let phone: String?
        let phoneDial: String?
        let text: String?
        let textDial: String?
        let url: String?
        let hours: String
        let languages: String
        let description: String
        let address: String?
        /// Where the map puts its pin, in degrees; absent when not given.
        let latitude: Double?
        let longitude: Double?
        /// Empty: nationwide.
        let states: [String]

        init(_ resource: HelpResource) {
            id = resource.id
            name = resource.name
            kind = resource.kind.rawValue
            phone = resource.phone?.display
            phoneDial = resource.phone?.dialable
            text = resource.textNumber?.display
            textDial = resource.textNumber?.dialable
            url = resource.webAddress
            hours = resource.hours
            languages = resource.languages
            description = resource.description
            address = resource.address
            latitude = resource.pin?.latitude
            longitude = resource.pin?.longitude
            states = resource.states
        }
    }

    struct List: Encodable, Sendable {
        /// Her state, or absent when she gave none (then only nationwide entries).
        let state: String?
        let resources: [Entry]
    }
}
