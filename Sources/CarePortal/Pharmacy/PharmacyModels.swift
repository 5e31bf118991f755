import Foundation
import PortalPlatform

/// A customer of the pharmacy with an app account.
struct PharmacyCustomer: Sendable, Equatable {
    enum Status: String, Sendable {
        case active, disabled
    }

    let id: Int64
    var email: String
    var details: PharmacyCustomerDetails
    var status: Status
    let createdAt: Date
    var lastActiveAt: Date?

    var name: String { "\(details.firstName) \(details.lastName)" }
}

/// What a customer or the pharmacy may change about her.
struct PharmacyCustomerDetails: Sendable, Equatable {
    var firstName: String
    var lastName: String
    /// `YYYY-MM-DD`.
    var dateOfBirth: String
    var phone: String
    var address: DeliveryAddress
}

/// Where a delivery goes; empty until she saves one (AddressNotSaved).
struct DeliveryAddress: Sendable, Equatable, Codable {
    var line1: String
    var line2: String
    var city: String
    var state: String
    var zipCode: String

    static let none = DeliveryAddress(line1: "", line2: "", city: "", state: "", zipCode: "")

    var isSaved: Bool { !line1.isEmpty && !city.isEmpty && !state.isEmpty && !zipCode.isEmpty }

    /// One line per part, as on an envelope.
    var text: String {
        [line1, line2, "\(city), \(state) \(zipCode)"].filter { !$0.isEmpty }.joined(separator: "\n")
    }
}

/// A refillable prescription the pharmacy keeps on file for her; her app shows only these.
struct PharmacyPrescription: Sendable, Equatable {
    let id: Int64
    let customerID: Int64
    var medication: String
    var strength: String
    var quantity: String
    var refillsRemaining: Int
    var prescriber: String
    /// `YYYY-MM-DD` on the program's clock.
    var lastFilled: String?
}

/// How a refill reaches her.
enum Fulfilment: String, Sendable, CaseIterable {
    case pickup, delivery

    var title: String {
        switch self {
        case .pickup: "Pickup"
        case .delivery: "Delivery"
        }
    }
}

/// Where a refill request stands. Requested → being prepared → ready for pickup or out for delivery →
/// collected or delivered; or cancelled, with a reason she sees, at any step before the last.
enum RefillStatus: String, Sendable, CaseIterable {
    case requested
    case preparing
    case readyForPickup = "ready_for_pickup"
    case outForDelivery = "out_for_delivery"
    case collected
    case delivered
    case cancelled

    var title: String {
        switch self {
        case .requested: "Requested"
        case .preparing: "Being prepared"
        case .readyForPickup: "Ready for pickup"
        case .outForDelivery: "Out for delivery"
        case .collected: "Collected"
        case .delivered: "Delivered"
        case .cancelled: "Cancelled"
        }
    }

    /// What the customer is told, with nothing of the prescription in it.
    var customerMessage: String {
        switch self {
        case .requested: "We have your refill request."
        case .preparing: "We are preparing your order."
        case .readyForPickup: "Your order is ready for pickup."
        case .outForDelivery: "Your order is out for delivery."
        case .collected: "Your order has been collected. Thank you."
        case .delivered: "Your order has been delivered."
        case .cancelled: "Your order has been cancelled. Open your orders to see why."
        }
    }

    /// Still waiting on the pharmacy or on her.
    var isOpen: Bool { ![.collected, .delivered, .cancelled].contains(self) }

    /// The statuses a refill of this kind may move to from this one.
    func next(for fulfilment: Fulfilment) -> [RefillStatus] {
        switch self {
        case .requested: [.preparing, .cancelled]
        case .preparing: [fulfilment == .pickup ? .readyForPickup : .outForDelivery, .cancelled]
        case .readyForPickup: [.collected, .cancelled]
        case .outForDelivery: [.delivered, .cancelled]
        case .collected, .delivered, .cancelled: []
        }
    }

    static let open: [RefillStatus] = allCases.filter(\.isOpen)
}

struct PharmacyRefill: Sendable, Equatable {
    let id: Int64
    let customerID: Int64
    let prescriptionID: Int64
    let fulfilment: Fulfilment
    let deliveryAddress: String?
    var status: RefillStatus
    var cancelReason: String?
    let requestedAt: Date
    var updatedAt: Date
}

/// A refill with what the queue shows of it.
struct RefillQueueItem: Sendable {
    let refill: PharmacyRefill
    let customerName: String
    let medication: String
    let strength: String
}

struct PharmacyDeal: Sendable, Equatable {
    let id: Int64
    var title: String
    var description: String
    /// `YYYY-MM-DD` on the program's clock, both days included.
    var validFrom: String
    var validUntil: String
    /// An optional picture, stored by the platform's uploads under `DATA_DIR/deals`.
    var picture: StoredUpload?
}

/// A reward in the pharmacy's voucher catalogue: the shared rewards part, handed over as a voucher at the till.
typealias PharmacyReward = Reward

/// A reward she redeemed (`Redemption`): hers, unexpired, until she activates it; then good for 5 minutes.
typealias PharmacyVoucher = Redemption

struct PharmacyBeacon: Sendable, Equatable {
    let id: Int64
    let uuid: String
    let major: Int
    let minor: Int
    let name: String
}

/// What a store visit earned.
struct StoreVisit: Sendable {
    let firstToday: Bool
    let welcomeBack: Bool
    let pointsEarned: Int
    let balance: Int
}

enum PharmacyRules {
    /// Points for the first visit of a day, on the program's clock.
    static let visitPoints = 10
    /// How long an activated voucher is good for, measured by the server.
    static let voucherLifetime: TimeInterval = 5 * 60
    /// How long her password typed again opens her prescriptions.
    static let stepUpLifetime: TimeInterval = 5 * 60
    static func normalizedCode(_ typed: String) -> String { RewardRules.normalizedCode(typed) }

    static func emailKey(_ email: String) -> String { email.trimmed.lowercased() }

    static func dateProblem(_ text: String, name: String) -> String? {
        if text.isEmpty { return "Enter \(name)" }
        return CalendarDate(iso: text) == nil ? "Enter \(name) as a real date, like 1950-04-23" : nil
    }

    static let stateCodes: Set<String> = USState.all

    /// A deal's picture: checked like the catalogue's illustrations, by its bytes, never its name.
    static let dealPictureRules = UploadRules(types: UploadType.pictures, maximumSize: 2 * 1024 * 1024, noun: "picture")
}
