import Foundation
import PortalPlatform
import SQLKit

/// The pharmacy (seed 004): customers and their app, prescriptions on file and the refill queue staff
/// work, deals, store beacons and visits, points and 5-minute vouchers checked at the till.
struct PharmacyFeature: PortalFeature {
    static let program: Program? = .pharmacy
    static let navigation = [
        NavigationItem(title: "Refill queue", path: SiteURL.pharmacy.path, access: .pharmacyStaff, group: .pharmacy),
        NavigationItem(title: "Customers", path: SiteURL.pharmacyCustomers.path, access: .pharmacyStaff, group: .pharmacy),
        NavigationItem(title: "Check a voucher", path: SiteURL.pharmacyVoucherCheck.path, access: .pharmacyStaff, group: .pharmacy),
        NavigationItem(title: "Deals", path: SiteURL.pharmacyDeals.path, access: .pharmacyStaff, group: .pharmacy),
        NavigationItem(title: "Rewards", path: SiteURL.pharmacyRewards.path, access: .pharmacyStaff, group: .pharmacy),
        NavigationItem(title: "Store beacons", path: SiteURL.pharmacyBeacons.path, access: .pharmacyStaff, group: .pharmacy)
    ]
    static let auditActions: [AuditAction] = [
        .pharmacyCustomerRegistered, .pharmacyPasswordReset, .pharmacyStepUp, .pharmacyPrescriptionsViewed, .pharmacyCustomerViewed,
        .pharmacyCustomerChanged, .pharmacyCustomerDisabled, .pharmacyCustomerEnabled, .pharmacyPrescriptionAdded, .pharmacyPrescriptionRemoved,
        .pharmacyRefillRequested, .pharmacyRefillViewed, .pharmacyRefillMoved, .pharmacyDealSaved, .pharmacyDealDeleted, .pharmacyRewardAdded,
        .pharmacyRewardRetired,
        .pharmacyVoucherRedeemed, .pharmacyVoucherActivated, .pharmacyVoucherChecked, .pharmacyBeaconAdded, .pharmacyBeaconRemoved
    ]
    static let templates: [TemplateName] =
        [
            .pharmacyQueue, .pharmacyRefill, .pharmacyCustomers, .pharmacyCustomer, .pharmacyCustomerForm, .pharmacyPrescriptionForm,
            .pharmacyDeals, .pharmacyDealForm, .rewardCatalogue, .pharmacyVoucherCheck, .pharmacyBeacons
        ] + TemplateName.appPharmacyTemplates
    static let appAccounts: [AppAccountKind] = [.pharmacyCustomer]
    static let appParts = [
        AppPart(
            kind: .pharmacyCustomer,
            title: "Pharmacy customers",
            summary: "Your points, today’s deals, rewards and vouchers, your prescriptions and refills.",
            demoIdentifier: "margaret.demo@example.invalid"
        )
    ]
    static let notificationKinds: [NotificationKind] = [.refillUpdate, .storeVisit, .beaconsChanged]

    let portal: Portal
    let pharmacy: Pharmacy

    init(portal: Portal) {
        self.portal = portal
        pharmacy = Pharmacy(portal: portal)
    }

    /// Password-reset links a day past their hour are deleted; used or not, they open nothing by then.
    var jobs: [BackgroundJob] {
        let portal = self.portal
        return [
            BackgroundJob("Pharmacy password-reset links", every: BackgroundJob.housekeepingInterval) {
                try await portal.database.write { db in
                    try await PharmacyRepository.resetLinks.deleteExpired(before: portal.now.addingTimeInterval(-86_400), on: db)
                }
            }
        ]
    }

    func addRoutes(to routes: inout PortalRoutes) {
        PharmacyController(portal: portal, pharmacy: pharmacy).addRoutes(to: &routes)
        PharmacyStoreController(portal: portal, pharmacy: pharmacy).addRoutes(to: &routes)
        PharmacyAPIController(portal: portal, pharmacy: pharmacy).addRoutes(to: &routes)
        PharmacyAppController(portal: portal, pharmacy: pharmacy).addRoutes(to: &routes)
    }

    /// A pharmacist's home leads with the queue: how many requests wait on the pharmacy.
    static func homeCards(for staff: StaffAccount, portal: Portal) async throws -> [HomeCard] {
        guard Access.pharmacyStaff.allows(staff.role) else { return [] }
        let waiting = try await portal.database.read { db in try await PharmacyRepository().waitingCount(on: db) }
        return [
            HomeCard(
                title: "Refill queue",
                path: SiteURL.pharmacy.path,
                body: waiting == 0
                    ? "No refill requests are waiting." : "\(waiting) refill request\(waiting == 1 ? " is" : "s are") waiting on the pharmacy.",
                figures: [HomeFigure(label: "Refill requests waiting on the pharmacy", value: waiting, needsAttention: waiting > 0)]
            ),
            HomeCard(title: "Check a voucher", path: SiteURL.pharmacyVoucherCheck.path, body: "Type or scan a customer's voucher code at the till.")
        ]
    }

    static func seedDemo(_ demo: DemoData, on db: any SQLDatabase) async throws {
        try await demo.seedPharmacy(on: db)
    }
}

extension Program {
    static let pharmacy = Program(
        id: "pharmacy",
        title: "Pharmacy",
        summary: "The pharmacy's customers and their app: refills for pickup or delivery, deals, store visits, points and vouchers."
    )
}

extension NavigationGroup {
    static let pharmacy = NavigationGroup("Pharmacy", order: 50)
}

extension NotificationKind {
    static let refillUpdate = NotificationKind("refill_update", title: "News about your orders", for: AppAccountKind.pharmacyCustomer.role)
    static let storeVisit = NotificationKind("store_visit", title: "Welcome when you visit the store", for: AppAccountKind.pharmacyCustomer.role)
    /// The store's beacons changed: the app reads the list again (`GET /api/v1/pharmacy/beacons`).
    static let beaconsChanged = NotificationKind("beacons_changed", title: "The store's beacons changed", for: AppAccountKind.pharmacyCustomer.role)
}

extension TemplateName {
    static let pharmacyQueue = TemplateName("pharmacy/queue")
    static let pharmacyRefill = TemplateName("pharmacy/refill")
    static let pharmacyCustomers = TemplateName("pharmacy/customers")
    static let pharmacyCustomer = TemplateName("pharmacy/customer")
    static let pharmacyCustomerForm = TemplateName("pharmacy/customer-form")
    static let pharmacyPrescriptionForm = TemplateName("pharmacy/prescription-form")
    static let pharmacyDeals = TemplateName("pharmacy/deals")
    static let pharmacyDealForm = TemplateName("pharmacy/deal-form")
    static let pharmacyVoucherCheck = TemplateName("pharmacy/voucher-check")
    static let pharmacyBeacons = TemplateName("pharmacy/beacons")
}

extension AuditAction {
    static let pharmacyCustomerRegistered = AuditAction("pharmacy_customer_registered", title: "Pharmacy customer registered")
    static let pharmacyPasswordReset = AuditAction("pharmacy_password_reset", title: "Pharmacy customer's password reset")
    static let pharmacyStepUp = AuditAction("pharmacy_step_up", title: "Pharmacy customer confirmed her password")
    static let pharmacyPrescriptionsViewed = AuditAction("pharmacy_prescriptions_viewed", title: "Pharmacy customer opened her prescriptions")
    static let pharmacyCustomerViewed = AuditAction("pharmacy_customer_viewed", title: "Pharmacy customer's record opened")
    static let pharmacyCustomerChanged = AuditAction("pharmacy_customer_changed", title: "Pharmacy customer's details corrected")
    static let pharmacyCustomerDisabled = AuditAction("pharmacy_customer_disabled", title: "Pharmacy customer's account disabled")
    static let pharmacyCustomerEnabled = AuditAction("pharmacy_customer_enabled", title: "Pharmacy customer's account re-enabled")
    static let pharmacyPrescriptionAdded = AuditAction("pharmacy_prescription_added", title: "Prescription put on file")
    static let pharmacyPrescriptionRemoved = AuditAction("pharmacy_prescription_removed", title: "Prescription taken off file")
    static let pharmacyRefillRequested = AuditAction("pharmacy_refill_requested", title: "Refill requested")
    static let pharmacyRefillViewed = AuditAction("pharmacy_refill_viewed", title: "Refill request opened")
    static let pharmacyRefillMoved = AuditAction("pharmacy_refill_moved", title: "Refill request moved on")
    static let pharmacyDealSaved = AuditAction("pharmacy_deal_saved", title: "Deal saved")
    static let pharmacyDealDeleted = AuditAction("pharmacy_deal_deleted", title: "Deal deleted")
    static let pharmacyRewardAdded = AuditAction("pharmacy_reward_added", title: "Reward added to the voucher catalogue")
    static let pharmacyRewardRetired = AuditAction("pharmacy_reward_retired", title: "Reward retired from the voucher catalogue")
    static let pharmacyVoucherRedeemed = AuditAction("pharmacy_voucher_redeemed", title: "Voucher redeemed with points")
    static let pharmacyVoucherActivated = AuditAction("pharmacy_voucher_activated", title: "Voucher activated")
    static let pharmacyVoucherChecked = AuditAction("pharmacy_voucher_checked", title: "Voucher checked at the till")
    static let pharmacyBeaconAdded = AuditAction("pharmacy_beacon_added", title: "Store beacon registered")
    static let pharmacyBeaconRemoved = AuditAction("pharmacy_beacon_removed", title: "Store beacon removed")
}
