import Foundation
import PortalPlatform
import SQLKit

/// A member changing her own profile and password, for the member API and the web app's pages alike.
/// Problems are `APIError.validation` keyed by the API's field names.
enum MemberProfile {
    /// What she sends; a field left nil stays as it is.
    struct Change: Sendable {
        var avatar: String?
        var recoveryEmail: String?
        var state: String?
        var zipCode: String?
        var bio: String?
    }

    /// Checks every field sent, then saves them with an audit entry naming the fields changed (never their values).
    static func change(_ change: Change, memberID: Int64, actor: AuditActor, origin: AuditOrigin, portal: Portal) async throws -> Member {
        let members = MemberRepository()
        let settings = portal.programSettings.current
        var problems: [String: String] = [:]
        var changes = MemberRepository.ProfileChanges()
        if let avatar = change.avatar?.trimmed {
            if Avatar.member(avatar) == nil || !settings.memberAvatarIDs.contains(avatar) {
                problems["avatar"] = "Choose one of the avatars offered"
            } else {
                changes.avatarID = avatar
            }
        }
        if let email = change.recoveryEmail?.trimmed {
            if let problem = FieldRules.emailProblem(email) { problems["recovery_email"] = problem } else { changes.recoveryEmail = email }
        }
        if let bio = change.bio?.trimmed {
            if let problem = MemberRules.bioProblem(bio) { problems["bio"] = problem } else { changes.bio = bio }
        }
        let now = portal.now
        guard let existing = try await portal.database.read({ db in try await members.find(id: memberID, on: db) }) else {
            throw APIError.unauthorized
        }
        if change.state != nil || change.zipCode != nil {
            changes.location = MemberRules.locationProblems(
                state: change.state ?? existing.usState,
                zipCode: change.zipCode ?? existing.zipCode,
                into: &problems
            )
        }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let updated = try await portal.database.transaction { [changes] db in
            try await members.update(id: memberID, changes, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .memberProfileChanged,
                    recordType: "member",
                    recordID: "\(memberID)",
                    origin: origin,
                    detail: changes.changedFields.joined(separator: ", ")
                ),
                on: db
            )
            return try await members.find(id: memberID, on: db)
        }
        guard let updated else { throw APIError.unauthorized }
        return updated
    }

    /// Her current password, then the new one; every other sign-in ends, the one she is using stays.
    static func changePassword(
        current: String,
        new: String,
        holder: AppAccountHolder,
        actor: AuditActor,
        origin: AuditOrigin,
        portal: Portal
    ) async throws {
        let members = MemberRepository()
        var problems: [String: String] = [:]
        if current.isEmpty { problems["current_password"] = "Enter your current password" }
        let pseudonym = try await portal.database.read { db in try await members.find(id: holder.accountID, on: db) }?.pseudonym
        if let problem = MemberRules.passwordProblem(new, pseudonym: pseudonym, policy: portal.passwordPolicy) {
            problems["new_password"] = problem
        }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        guard let credentials = try await portal.database.read({ db in try await members.credentials(id: holder.accountID, on: db) }) else {
            throw APIError.unauthorized
        }
        guard try await portal.passwords.verify(current, against: credentials.passwordHash) else {
            throw APIError.validation(["current_password": "Your current password is not right"])
        }
        let hash = try await portal.passwords.hash(new)
        let now = portal.now
        try await portal.database.transaction { db in
            try await members.setPassword(id: holder.accountID, hash: hash, now: now, on: db)
            try await AppAccountKind.member.bearerTokens.revokeAll(ownerID: holder.accountID, keeping: holder.tokenHash, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .passwordChanged,
                    recordType: "member",
                    recordID: "\(holder.accountID)",
                    origin: origin
                ),
                on: db
            )
        }
    }
}

extension MemberProfile.Change {
    /// Puts what she typed on her record, to show her the form again with it.
    func show(on member: inout Member) {
        member.avatarID = avatar ?? member.avatarID
        member.recoveryEmail = recoveryEmail?.trimmed ?? ""
        member.usState = state?.trimmed.uppercased()
        member.zipCode = zipCode?.trimmed
        member.bio = bio ?? ""
    }
}
