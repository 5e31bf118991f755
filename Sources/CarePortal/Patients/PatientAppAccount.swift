import Foundation
import PortalPlatform
import SQLKit

/// The patient app's accounts for the shared app-account machinery: a patient signs in with the
/// username she chose when she claimed her account; her tokens live in `patient_tokens`, and only a
/// claimed account's are in force. Removing the patient removes them.
extension AppAccountKind {
    static let patient = AppAccountKind(
        role: "patient",
        apiPrefix: "/api/v1/patient",
        identifierField: "username",
        identifierName: "username",
        passwordProblem: { password, username, policy in policy.problem(with: password, username: username) },
        tokens: .init(
            table: "patient_tokens",
            ownerColumn: "patient_id",
            ownerTable: "patient_accounts",
            ownerKey: "patient_id",
            ownerInForce: { $0.where(SQLColumn("claimed_at", table: "patient_accounts"), .isNot, SQLLiteral.null) }
        ),
        pagesTitle: "Your treatment",
        credentials: { username, db in
            try await PatientAccountRepository().credentials(username: username, on: db).map {
                Credentials(accountID: $0.patientID, passwordHash: $0.passwordHash)
            }
        },
        noteActivity: { patientID, activity, now, _, db in
            // A patient's activity is what she signs in for and logs; a renewed token alone is not noted.
            if case .signedIn = activity { try await PatientRepository().markActivity(id: patientID, at: now, on: db) }
        }
    )
}

extension Access {
    /// The patient app with a patient's bearer token in force.
    static let patient = Access.app(.patient)
}

extension PortalContext {
    /// The patient behind the bearer token; patient routes always have one.
    func requirePatient() throws -> AppAccountHolder {
        guard let holder = appAccount, holder.kind == .patient else { throw APIError.unauthorized }
        return holder
    }
}

/// Patient app claims with a wrong token from this address.
extension SignInThrottle.Key {
    static func patientClaim(_ address: String) -> Self {
        Self(stored: "patient-claim:\(address)", limit: SignInThrottle.registrationAddressLimit)
    }
}
