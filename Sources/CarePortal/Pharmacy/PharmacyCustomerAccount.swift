import Foundation
import PortalPlatform
import SQLKit

/// The pharmacy app's accounts for the shared app-account machinery: a customer signs in with her email
/// address; her tokens live in `pharmacy_customer_tokens`, and only an active account's are in force, so
/// disabling her ends every session at once.
extension AppAccountKind {
    static let pharmacyCustomer = AppAccountKind(
        role: "pharmacy_customer",
        apiPrefix: "/api/v1/pharmacy",
        identifierField: "email",
        identifierName: "email address",
        passwordProblem: { password, email, policy in policy.problem(with: password, username: email) },
        tokens: .init(
            table: "pharmacy_customer_tokens",
            ownerColumn: "customer_id",
            ownerTable: "pharmacy_customers",
            ownerKey: "id",
            ownerInForce: { $0.where(SQLColumn("status", table: "pharmacy_customers"), .equal, SQLBind(PharmacyCustomer.Status.active.rawValue)) },
            openedUntilColumn: "step_up_until"
        ),
        pagesPath: "/app/pharmacy",
        pagesTitle: "Your pharmacy",
        credentials: { email, db in
            try await PharmacyRepository().credentials(email: email, on: db).map {
                Credentials(accountID: $0.id, passwordHash: $0.passwordHash, mayUseApp: $0.isActive)
            }
        },
        refusal: { _ in
            APIError(status: .forbidden, code: "account_disabled", message: "This account has been disabled. Please call or visit the pharmacy.")
        },
        noteActivity: { customerID, activity, now, _, db in
            switch activity {
            case .signedIn, .renewedToken: try await PharmacyRepository().markActivity(customerID: customerID, at: now, on: db)
            case .failedSignIn: break
            }
        }
    )
}

extension Access {
    /// The pharmacy app with a customer's bearer token in force.
    static let pharmacyCustomer = Access.app(.pharmacyCustomer)
    /// The customer's pages in the web app, with her app cookie in force.
    static let pharmacyCustomerPages = Access.appPage(.pharmacyCustomer)
    /// The Pharmacy section: pharmacists and administrators.
    static let pharmacyStaff = Access.staff([.pharmacist, .administrator])
}

extension AppAccountRef {
    static func pharmacyCustomer(_ id: Int64) -> AppAccountRef { AppAccountRef(role: AppAccountKind.pharmacyCustomer.role, accountID: id) }
}

extension NotificationAccounts {
    /// Her feed marked read, her choices about refill news and store welcomes, and her phones, through the members' machinery.
    static let pharmacyCustomers = NotificationAccounts(
        kind: .pharmacyCustomer,
        access: .pharmacyCustomer,
        preferences: .apiPharmacyNotificationPreferences,
        pushTokens: .apiPharmacyPushTokens,
        pushToken: SiteURL.apiPharmacyPushToken,
        read: SiteURL.apiPharmacyNotificationRead,
        readAll: .apiPharmacyNotificationsReadAll,
        choosesReminders: false
    )
}

extension PortalContext {
    /// The customer behind the bearer token; customer routes always have one.
    func requireCustomer() throws -> AppAccountHolder {
        guard let holder = appAccount, holder.kind == .pharmacyCustomer else { throw APIError.unauthorized }
        return holder
    }
}

extension SignInThrottle.Key {
    /// Registrations from one address.
    static func pharmacyRegistration(_ address: String) -> Self {
        Self(stored: "pharmacy-registration:\(address)", limit: SignInThrottle.registrationAddressLimit)
    }

    /// Password-reset requests, per address typed and per client address, so nobody floods an inbox.
    static func pharmacyPasswordReset(_ key: String) -> Self {
        Self(stored: "pharmacy-reset:\(key)", limit: SignInThrottle.accountLimit)
    }

    /// Wrong passwords at the prescriptions' step-up, per customer.
    static func pharmacyStepUp(_ customerID: Int64) -> Self {
        Self(stored: "pharmacy-step-up:\(customerID)", limit: SignInThrottle.accountLimit)
    }
}
