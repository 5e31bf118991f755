import Foundation
import PortalPlatform

/// The pharmacy app's JSON shapes (snake_case on the wire). Described in `api/openapi.json`.
enum PharmacyAPI {
    struct Registration: Decodable, Sendable {
        var email: String?
        var password: String?
        var firstName: String?
        var lastName: String?
        var dateOfBirth: String?
        var phone: String?
    }

    /// The same answer whether or not the address already had an account (AccountAlreadyExists is told
    /// to the address's owner by email, never to whoever typed it).
    struct CheckEmail: Encodable, Sendable {
        let status = "check_email"
        let message: String
    }

    struct Customer: Encodable, Sendable {
        let id: Int64
        let email: String
        let firstName: String
        let lastName: String
        let dateOfBirth: String
        let phone: String
        let address: Address?

        init(_ customer: PharmacyCustomer) {
            id = customer.id
            email = customer.email
            firstName = customer.details.firstName
            lastName = customer.details.lastName
            dateOfBirth = customer.details.dateOfBirth
            phone = customer.details.phone
            address = customer.details.address.isSaved ? Address(customer.details.address) : nil
        }
    }

    struct Address: Codable, Sendable {
        var line1: String?
        var line2: String?
        var city: String?
        var state: String?
        var zipCode: String?

        /// What she sent, trimmed, the state in capitals.
        var address: DeliveryAddress { DeliveryAddress(typedLine1: line1, line2: line2, city: city, state: state, zipCode: zipCode) }

        init(_ address: DeliveryAddress) {
            line1 = address.line1
            line2 = address.line2
            city = address.city
            state = address.state
            zipCode = address.zipCode
        }
    }

    struct Session: Encodable, Sendable {
        let token: String
        let expiresAt: Date
        let customer: Customer
    }

    struct StepUpRequest: Decodable, Sendable {
        var password: String?
    }

    struct StepUp: Encodable, Sendable {
        let stepUpExpiresAt: Date
    }

    struct Home: Encodable, Sendable {
        let firstName: String
        let points: Int
        let deals: [Deal]
        let unreadNotifications: Int
    }

    struct Deal: Encodable, Sendable {
        let id: Int64
        let title: String
        let description: String
        let validFrom: String
        let validUntil: String
        /// Where the app fetches the deal's picture with her token, when it has one.
        let pictureUrl: String?

        init(_ deal: PharmacyDeal) {
            id = deal.id
            title = deal.title
            description = deal.description
            validFrom = deal.validFrom
            validUntil = deal.validUntil
            pictureUrl = deal.picture == nil ? nil : SiteURL.apiPharmacyDealPicture(deal.id).path
        }
    }

    struct Deals: Encodable, Sendable {
        let deals: [Deal]
        /// NoCurrentDeals: what the app shows when there are none.
        let message: String?
    }

    struct Prescription: Encodable, Sendable {
        let id: Int64
        let medication: String
        let strength: String
        let quantity: String
        let refillsRemaining: Int
        let prescriber: String
        let lastFilled: String?
        let openRefillId: Int64?
    }

    struct Prescriptions: Encodable, Sendable {
        let prescriptions: [Prescription]
        let stepUpExpiresAt: Date
        let addressSaved: Bool
    }

    struct NewRefill: Decodable, Sendable {
        var prescriptionId: Int64?
        var fulfilment: String?
    }

    struct Refill: Encodable, Sendable {
        let id: Int64
        let prescriptionId: Int64
        let medication: String
        let fulfilment: String
        let status: String
        let statusTitle: String
        let cancelReason: String?
        let deliveryAddress: String?
        let requestedAt: Date
        let updatedAt: Date

        init(_ item: RefillQueueItem) {
            id = item.refill.id
            prescriptionId = item.refill.prescriptionID
            medication = "\(item.medication) \(item.strength)"
            fulfilment = item.refill.fulfilment.rawValue
            status = item.refill.status.rawValue
            statusTitle = item.refill.status.title
            cancelReason = item.refill.cancelReason
            deliveryAddress = item.refill.deliveryAddress
            requestedAt = item.refill.requestedAt
            updatedAt = item.refill.updatedAt
        }
    }

    struct Refills: Encodable, Sendable {
        let refills: [Refill]
    }

    struct Beacon: Encodable, Sendable {
        let uuid: String
        let major: Int
        let minor: Int
        let name: String
    }

    /// One line of her history (ViewHistory): a visit, a voucher, a refill or other points.
    struct HistoryEntry: Encodable, Sendable {
        /// `visit`, `voucher`, `refill` or `points`.
        let kind: String
        let at: Date
        /// In her words: "Visited the store", "Redeemed Free coffee", "Refill for pickup: Collected".
        let title: String
        /// Points earned (positive) or spent (negative); absent for a refill.
        let points: Int?
        let voucherId: Int64?
        /// Open it with `GET /api/v1/pharmacy/refills` after the password step-up; the medication is named only there.
        let refillId: Int64?

        init(_ row: PharmacyRepository.HistoryRow) {
            kind = row.kind
            at = row.at
            points = row.points
            voucherId = row.kind == "voucher" ? row.itemID : nil
            refillId = row.kind == "refill" ? row.itemID : nil
            switch row.kind {
            case "visit": title = "Visited the store"
            case "voucher": title = "Redeemed \(row.text ?? "a reward")"
            case "refill":
                let fulfilment = Fulfilment(rawValue: row.text ?? "")?.title.lowercased() ?? "pickup"
                title = "Refill for \(fulfilment): \(RefillStatus(rawValue: row.status ?? "")?.title ?? "Requested")"
            default: title = (row.points ?? 0) < 0 ? "Points taken off" : "Points added"
            }
        }
    }

    struct History: Encodable, Sendable {
        let entries: [HistoryEntry]
        let page: Int
        let pageCount: Int
        let totalCount: Int
    }

    struct Beacons: Encodable, Sendable {
        /// Changes whenever the list does; the same value is the response's `ETag`.
        let version: String
        let beacons: [Beacon]

        init(_ beacons: [PharmacyBeacon]) {
            self.beacons = beacons.map { Beacon(uuid: $0.uuid, major: $0.major, minor: $0.minor, name: $0.name) }
            version = String(SecretToken.hash(beacons.map { "\($0.uuid)|\($0.major)|\($0.minor)|\($0.name)" }.joined(separator: "\n")).prefix(32))
        }

        var entityTag: String { "\"\(version)\"" }
    }

    struct NewVisit: Decodable, Sendable {
        var uuid: String?
        var major: Int?
        var minor: Int?
    }

    struct Visit: Encodable, Sendable {
        let firstVisitToday: Bool
        let welcomeBack: Bool
        let pointsEarned: Int
        let points: Int
        let message: String
    }

    struct Reward: Encodable, Sendable {
        let id: Int64
        let title: String
        let pointsCost: Int
        let affordable: Bool
    }

    struct Rewards: Encodable, Sendable {
        let points: Int
        let rewards: [Reward]
    }

    struct NewVoucher: Decodable, Sendable {
        var rewardId: Int64?
    }

    struct Voucher: Encodable, Sendable {
        let id: Int64
        let rewardId: Int64
        let title: String
        let code: String
        let pointsCost: Int
        /// `redeemed` (hers until she activates it), `active`, `expired` or `used`.
        let state: String
        let redeemedAt: Date
        let activatedAt: Date?
        /// Exactly when the server stops accepting it, to the millisecond.
        let expiresAt: Date?
        let secondsLeft: Int?
    }

    struct Redeemed: Encodable, Sendable {
        let voucher: Voucher
        let points: Int
    }

    struct Vouchers: Encodable, Sendable {
        let vouchers: [Voucher]
    }

    struct Notification: Encodable, Sendable {
        let id: Int64
        let kind: String
        let message: String
        let refillId: Int64?
        let createdAt: Date
        let read: Bool
    }

    struct Notifications: Encodable, Sendable {
        let notifications: [Notification]
        let page: Int
        let pageCount: Int
        let totalCount: Int
        let unreadCount: Int
    }
}
