import Foundation
import PortalPlatform

/// One entry of the help directory: a helpline, a crisis line, a treatment locator, a care location or a
/// website, nationwide or for chosen US states.
struct HelpResource: Sendable, Equatable, Identifiable {
    enum Kind: String, Sendable, CaseIterable {
        case crisisLine = "crisis_line"
        case helpline
        case treatmentLocator = "treatment_locator"
        case careLocation = "care_location"
        case website

        var title: String {
            switch self {
            case .crisisLine: "Crisis line"
            case .helpline: "Helpline"
            case .treatmentLocator: "Treatment locator"
            case .careLocation: "Care location"
            case .website: "Website"
            }
        }

        /// Crisis lines first: the order the app lists them in.
        var rank: Int { Self.allCases.firstIndex(of: self)! }
    }

    var id: Int64
    var name: String
    var kind: Kind
    var phone: PhoneNumber?
    var textNumber: PhoneNumber?
    var webAddress: String?
    var hours: String
    var languages: String
    var description: String
    var address: String?
    /// Where the app's map puts its pin, for a care location.
    var pin: MapPin?
    /// Empty when nationwide.
    var states: [String]
    var createdAt: Date
    var updatedAt: Date

    var isNationwide: Bool { states.isEmpty }
    var whereItApplies: String { isNationwide ? "Nationwide" : states.joined(separator: ", ") }
}

/// A US phone number as people type it — "(800) 662-4357", "1-800-662-4357", "+1 800 662 4357" — or a
/// three-digit service code such as 988 or 211. Kept as digits, shown one way everywhere.
struct PhoneNumber: Sendable, Equatable, Hashable {
    /// Ten digits, or the three of a service code.
    let digits: String

    static let serviceCodes: Set<String> = ["211", "311", "411", "511", "611", "711", "811", "911", "988"]
    static let tollFreePrefixes: Set<String> = ["800", "833", "844", "855", "866", "877", "888"]

    init?(_ typed: String) {
        let trimmed = typed.trimmed
        guard !trimmed.isEmpty, trimmed.count <= 30,
            trimmed.allSatisfy({ $0.isASCIIDigit || " ()-.+".contains($0) })
        else { return nil }
        var digits = trimmed.filter(\.isASCIIDigit)
        if Self.serviceCodes.contains(digits) {
            self.digits = digits
            return
        }
        if digits.count == 11, digits.hasPrefix("1") { digits.removeFirst() }
        // A US number: area code and exchange never start with 0 or 1.
        guard digits.count == 10, let area = digits.first, let exchange = digits.dropFirst(3).first,
            !"01".contains(area), !"01".contains(exchange)
        else { return nil }
        self.digits = digits
    }

    init(stored digits: String) {
        self.digits = digits
    }

    /// "1-800-662-4357" for toll-free numbers, "615-555-0134" for others, "988" for a service code.
    var display: String {
        guard digits.count == 10 else { return digits }
        let area = digits.prefix(3), exchange = digits.dropFirst(3).prefix(3), line = digits.suffix(4)
        return (Self.tollFreePrefixes.contains(String(area)) ? "1-" : "") + "\(area)-\(exchange)-\(line)"
    }

    /// For `tel:` and `sms:` links.
    var dialable: String { digits.count == 10 ? "+1\(digits)" : digits }

    static let problem = "Enter a US phone number, like 1-800-662-4357 or 615-555-0134, or a 3-digit number such as 988"
}

/// What an administrator typed, already checked.
struct HelpResourceDraft: Sendable, Equatable {
    var name: String
    var kind: HelpResource.Kind
    var phone: PhoneNumber?
    var textNumber: PhoneNumber?
    var webAddress: String?
    var hours: String
    var languages: String
    var description: String
    var address: String?
    var pin: MapPin? = nil
    var states: [String]
}

/// A place on the map, in degrees (WGS 84, as phones and map sites give them).
struct MapPin: Sendable, Equatable {
    let latitude: Double
    let longitude: Double

    /// Both typed, or neither: nil and no problem when both are empty.
    static func typed(latitude: String, longitude: String) -> (pin: MapPin?, problems: [(field: String, message: String)]) {
        if latitude.isEmpty && longitude.isEmpty { return (nil, []) }
        var problems: [(String, String)] = []
        let north = Double(latitude).flatMap { (-90...90).contains($0) ? $0 : nil }
        let east = Double(longitude).flatMap { (-180...180).contains($0) ? $0 : nil }
        if north == nil {
            problems.append(
                (
                    "latitude",
                    latitude.isEmpty
                        ? "Enter the latitude as well as the longitude, or leave both empty"
                        : "Enter the latitude in degrees between -90 and 90, like 36.1627"
                )
            )
        }
        if east == nil {
            problems.append(
                (
                    "longitude",
                    longitude.isEmpty
                        ? "Enter the longitude as well as the latitude, or leave both empty"
                        : "Enter the longitude in degrees between -180 and 180, like -86.7816"
                )
            )
        }
        guard let north, let east else { return (nil, problems) }
        return (MapPin(latitude: north, longitude: east), [])
    }

    /// The place on OpenStreetMap, for a link that opens the phone's browser or map.
    var mapAddress: String {
        "https://www.openstreetmap.org/?mlat=\(latitude)&mlon=\(longitude)#map=17/\(latitude)/\(longitude)"
    }
}
