import Foundation
import PortalPlatform
import SQLKit

/// The two kinds of account the memory-care apps sign in with. Both live in `care_accounts`, told apart
/// by `kind`; each kind's tokens are its own table, and only a confirmed, enabled account of that kind
/// may use them, so a caregiver's token never opens a care receiver's routes.
enum CareAccountKind: String, CaseIterable, Sendable {
    case careReceiver = "care_receiver"
    case caregiver

    var appAccount: AppAccountKind {
        switch self {
        case .careReceiver: .careReceiver
        case .caregiver: .caregiver
        }
    }

    /// "care receiver", "caregiver": for sentences.
    var noun: String {
        switch self {
        case .careReceiver: "care receiver"
        case .caregiver: "caregiver"
        }
    }
}

struct CareAccount: Sendable {
    enum Status: String, Sendable, CaseIterable {
        /// Registered; the emailed link has not been followed yet.
        case unconfirmed
        case active
        /// Turned off by staff: signing in is refused and every token stops working.
        case disabled
    }

    let id: Int64
    let kind: CareAccountKind
    let email: String
    let name: String
    let status: Status
    let hasPIN: Bool
    let createdAt: Date
    let confirmedAt: Date?
    let lastActiveAt: Date?
}

extension AppAccountKind {
    static let careReceiver = careKind(.careReceiver, apiPrefix: "/api/v1/care", pagesTitle: "Your memories")
    static let caregiver = careKind(.caregiver, apiPrefix: "/api/v1/caregiver", pagesTitle: "The people you help")

    private static func careKind(_ kind: CareAccountKind, apiPrefix: String, pagesTitle: String) -> AppAccountKind {
        AppAccountKind(
            role: kind.rawValue,
            apiPrefix: apiPrefix,
            identifierField: "email",
            identifierName: "email address",
            passwordProblem: { password, email, policy in policy.problem(with: password, username: email) },
            tokens: .init(
                table: kind == .careReceiver ? "care_receiver_tokens" : "caregiver_tokens",
                ownerColumn: "account_id",
                ownerTable: "care_accounts",
                ownerKey: "id",
                ownerInForce: {
                    $0.where(SQLColumn("status", table: "care_accounts"), .equal, SQLBind(CareAccount.Status.active.rawValue))
                        .where(SQLColumn("kind", table: "care_accounts"), .equal, SQLBind(kind.rawValue))
                },
                openedUntilColumn: kind == .careReceiver ? "unlocked_until" : nil
            ),
            pagesPath: "/app/\(kind == .careReceiver ? "care" : "caregiver")",
            pagesTitle: pagesTitle,
            credentials: { email, db in
                try await CareRepository().credentials(kind: kind, email: email, on: db).map {
                    Credentials(accountID: $0.id, passwordHash: $0.passwordHash, mayUseApp: $0.status == .active)
                }
            },
            refusal: { _ in
                APIError(
                    status: .forbidden,
                    code: "account_not_active",
                    message: "This account is not open. Follow the link in the email we sent when you registered, or contact the program's support."
                )
            },
            noteActivity: { accountID, activity, now, _, db in
                switch activity {
                case .signedIn, .renewedToken: try await CareRepository().markActivity(accountID: accountID, at: now, on: db)
                case .failedSignIn: break
                }
            }
        )
    }
}

extension Access {
    /// The memory-care app with a care receiver's bearer token in force.
    static let careReceiver = Access.app(.careReceiver)
    /// The memory-care app with a caregiver's bearer token in force.
    static let caregiver = Access.app(.caregiver)
    /// The Memory care section: administrators only (staff never read a memory, contact or location).
    static let careStaff = Access.staff([.administrator])
}

extension AppAccountRef {
    static func careReceiver(_ id: Int64) -> AppAccountRef { AppAccountRef(role: AppAccountKind.careReceiver.role, accountID: id) }
    static func caregiver(_ id: Int64) -> AppAccountRef { AppAccountRef(role: AppAccountKind.caregiver.role, accountID: id) }
}

extension PortalContext {
    /// The care receiver behind the bearer token; her routes always have one.
    func requireCareReceiver() throws -> AppAccountHolder {
        guard let holder = appAccount, holder.kind == .careReceiver else { throw APIError.unauthorized }
        return holder
    }

    func requireCaregiver() throws -> AppAccountHolder {
        guard let holder = appAccount, holder.kind == .caregiver else { throw APIError.unauthorized }
        return holder
    }
}

extension SignInThrottle.Key {
    /// Registrations from one address, for both kinds.
    static func careRegistration(_ address: String) -> Self {
        Self(stored: "care-registration:\(address)", limit: SignInThrottle.registrationAddressLimit)
    }

    /// Forgotten-password links asked for, per address typed and per client address, so nobody floods an inbox.
    static func carePasswordReset(_ key: String) -> Self {
        Self(stored: "care-reset:\(key)", limit: SignInThrottle.accountLimit)
    }

    /// Wrong PINs, per care receiver: the PIN is short, so it is throttled like a password.
    static func carePIN(_ accountID: Int64) -> Self {
        Self(stored: "care-pin:\(accountID)", limit: SignInThrottle.accountLimit)
    }

    /// Wrong passwords when setting or resetting the PIN, per care receiver.
    static func carePINReset(_ accountID: Int64) -> Self {
        Self(stored: "care-pin-reset:\(accountID)", limit: SignInThrottle.accountLimit)
    }

    /// Wrong current passwords when choosing a new one while signed in, per account.
    static func carePasswordChange(_ accountID: Int64) -> Self {
        Self(stored: "care-password-change:\(accountID)", limit: SignInThrottle.accountLimit)
    }

    /// Invitation codes tried by one caregiver, so nobody guesses a code.
    static func careInvitation(_ caregiverID: Int64) -> Self {
        Self(stored: "care-invitation:\(caregiverID)", limit: SignInThrottle.accountLimit)
    }
}
