import Foundation
import PortalPlatform
import SQLKit

/// The member app's accounts for the shared app-account machinery: members sign in with their pseudonym;
/// their tokens live in `member_tokens` and only an active member's are in force.
extension AppAccountKind {
    static let member = AppAccountKind(
        role: "member",
        apiPrefix: "/api/v1",
        identifierField: "pseudonym",
        identifierName: "pseudonym",
        passwordProblem: { password, pseudonym, policy in MemberRules.passwordProblem(password, pseudonym: pseudonym, policy: policy) },
        tokens: .init(
            table: "member_tokens",
            ownerColumn: "member_id",
            ownerTable: "members",
            ownerKey: "id",
            ownerInForce: { $0.where(SQLColumn("status", table: "members"), .equal, SQLBind(Member.Status.active.rawValue)) }
        ),
        pagesTitle: "Your community",
        credentials: { pseudonym, db in
            try await MemberRepository().credentials(pseudonym: pseudonym, on: db).map {
                Credentials(accountID: $0.id, passwordHash: $0.passwordHash, mayUseApp: $0.status == .active)
            }
        },
        refusal: MemberAPIController.disabled,
        noteActivity: { memberID, activity, now, origin, db in
            let members = MemberRepository()
            switch activity {
            case .signedIn:
                try await members.recordSignIn(memberID: memberID, kind: .signIn, origin: origin, now: now, on: db)
                try await members.markActive(id: memberID, at: now, on: db)
                try await MemberPoints.noteDailySignIn(memberID: memberID, at: now, on: db)
            case .failedSignIn:
                try await members.recordSignIn(memberID: memberID, kind: .failed, origin: origin, now: now, on: db)
            case .renewedToken:
                try await members.markActive(id: memberID, at: now, on: db)
                try await MemberPoints.noteDailySignIn(memberID: memberID, at: now, on: db)
            }
        }
    )
}

extension Access {
    /// The member app with a member's bearer token in force.
    static let member = Access.app(.member)
    /// The member's pages in the web app, with her app cookie in force.
    static let memberPages = Access.appPage(.member)
}

extension PortalContext {
    /// The member behind the bearer token; member routes always have one.
    func requireMember() throws -> AppAccountHolder {
        guard let holder = appAccount, holder.kind == .member else { throw APIError.unauthorized }
        return holder
    }
}

/// What the member app's registration and recovery throttle, beside the shared sign-in keys.
extension SignInThrottle.Key {
    /// A recovery email address.
    static func recovery(_ email: String) -> Self {
        Self(stored: "recovery:\(MemberRules.emailKey(email))", limit: SignInThrottle.accountLimit)
    }

    /// A sign-up code as typed, normalised.
    static func signUpCode(_ code: String) -> Self {
        Self(stored: "code:\(SecretToken.hash(SignUpCode.normalized(code)))", limit: SignInThrottle.signUpCodeLimit)
    }

    /// Registrations with a wrong code from this address.
    static func registrationAddress(_ address: String) -> Self {
        Self(stored: "registration:\(address)", limit: SignInThrottle.registrationAddressLimit)
    }
}
