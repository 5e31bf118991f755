import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The member app's JSON API: registration with a sign-up code, sign-in with bearer tokens,
/// account recovery and profiles. Described in `api/openapi.json`.
struct MemberAPIController {
    let portal: Portal
    let members = MemberRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiProgram.pattern, access: .everyone, program)
        routes.post(SiteURL.apiRegistrations.pattern, access: .everyone, register)
        let members = self.members
        routes.appSessions(.member) { issued, db in
            guard let member = try await members.find(id: issued.accountID, on: db) else { throw APIError.unauthorized }
            return MemberAPI.Session(
                token: issued.token,
                expiresAt: issued.expiresAt,
                member: .init(member, settings: portal.programSettings.current)
            )
        }
        routes.post(SiteURL.apiAccountRecovery.pattern, access: .everyone, recover)
        routes.get(SiteURL.apiMe.pattern, access: .member, ownProfile)
        routes.get(SiteURL.apiMemberRecordOpenings.pattern, access: .member) { [portal] request, context in
            try await portal.recordOpeningsResponse(.member, of: try context.requireMember(), request: request)
        }
        routes.patch(SiteURL.apiMe.pattern, access: .member, changeProfile)
        routes.post(SiteURL.apiMyPassword.pattern, access: .member, changePassword)
        routes.get(SiteURL.pattern(SiteURL.apiMemberProfile), access: .member, memberProfile)
        routes.get(SiteURL.pattern(SiteURL.apiStaffProfile), access: .member, staffProfile)
    }

    static let wrongCode = MemberRegistration.wrongCode

    // MARK: Program

    @Sendable func program(request: Request, context: PortalContext) async throws -> Response {
        .json(MemberAPI.Program(portal.programSettings.current))
    }

    // MARK: Registration

    @Sendable func register(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(MemberAPI.Registration.self)
        let registration = MemberRegistration(
            signUpCode: body.signUpCode ?? "",
            pseudonym: body.pseudonym ?? "",
            password: body.password ?? "",
            avatar: body.avatar ?? "",
            dueDate: body.dueDate ?? "",
            recoveryEmail: body.recoveryEmail ?? "",
            securityQuestion: body.securityQuestion ?? "",
            securityAnswer: body.securityAnswer ?? "",
            state: body.state ?? "",
            zipCode: body.zipCode ?? "",
            bio: body.bio ?? ""
        )
        let (member, issued) = try await registration.register(origin: portal.origin(of: request, context: context), portal: portal)
        return .json(
            MemberAPI.Session(token: issued.token, expiresAt: issued.expiresAt, member: .init(member, settings: portal.programSettings.current)),
            status: .created
        )
    }

    // MARK: Refusals

    static func disabled(_ settings: ProgramSettings) -> APIError {
        APIError(
            status: .forbidden,
            code: "account_disabled",
            message: "This account has been disabled." + (settings.deletionPhone.isEmpty ? "" : " To ask about it, call \(settings.deletionPhone).")
        )
    }

    // MARK: Recovery

    @Sendable func recover(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(MemberAPI.Recovery.self)
        try await MemberRecovery(
            recoveryEmail: body.recoveryEmail ?? "",
            securityAnswer: body.securityAnswer ?? "",
            newPassword: body.newPassword ?? ""
        ).recover(origin: portal.origin(of: request, context: context), portal: portal)
        return .noContent
    }

    // MARK: Profiles

    @Sendable func ownProfile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireMember()
        guard let member = try await portal.database.read({ db in try await members.find(id: holder.accountID, on: db) }) else {
            throw APIError.unauthorized
        }
        return .json(MemberAPI.OwnProfile(member, settings: portal.programSettings.current))
    }

    @Sendable func changeProfile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireMember()
        let body = try await request.json(MemberAPI.ProfileChange.self)
        let updated = try await MemberProfile.change(
            MemberProfile.Change(avatar: body.avatar, recoveryEmail: body.recoveryEmail, state: body.state, zipCode: body.zipCode, bio: body.bio),
            memberID: holder.accountID,
            actor: context.auditActor,
            origin: portal.origin(of: request, context: context),
            portal: portal
        )
        return .json(MemberAPI.OwnProfile(updated, settings: portal.programSettings.current))
    }

    @Sendable func changePassword(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireMember()
        let body = try await request.json(MemberAPI.PasswordChange.self)
        try await MemberProfile.changePassword(
            current: body.currentPassword ?? "",
            new: body.newPassword ?? "",
            holder: holder,
            actor: context.auditActor,
            origin: portal.origin(of: request, context: context),
            portal: portal
        )
        return .noContent
    }

    @Sendable func memberProfile(request: Request, context: PortalContext) async throws -> Response {
        _ = try context.requireMember()
        let id = try context.parameters.apiRecordID()
        guard let member = try await portal.database.read({ db in try await members.find(id: id, on: db) }),
            member.status == .active
        else { throw APIError.notFound }
        return .json(MemberAPI.PublicProfile(member))
    }
}

extension MemberAPIController {
    /// A medical professional's or administrator's public face: username, medical avatar and bio.
    /// Her real name and date of birth are for administrators only and never leave the portal.
    @Sendable func staffProfile(request: Request, context: PortalContext) async throws -> Response {
        _ = try context.requireMember()
        let id = try context.parameters.apiRecordID()
        let found = try await portal.database.read { db -> (StaffAccount, StaffProfile?)? in
            guard let account = try await StaffAccountRepository().find(id: id, on: db) else { return nil }
            return (account, try await StaffProfileRepository().find(accountID: id, on: db))
        }
        guard let (account, profile) = found, account.status == .active,
            account.role == .medicalProfessional || account.role == .administrator
        else { throw APIError.notFound }
        return .json(MemberAPI.StaffPublicProfile(account: account, profile: profile))
    }
}

extension MemberRepository.ProfileChanges {
    /// The names of the fields this change touches, for the audit log (never their values).
    var changedFields: [String] {
        [
            avatarID.map { _ in "avatar" }, recoveryEmail.map { _ in "recovery email" }, location.map { _ in "location" },
            bio.map { _ in "bio" }
        ].compactMap { $0 }
    }
}

extension Parameters {
    /// The `:id` of an API route; a malformed one is not found, in the API's error shape.
    func apiRecordID() throws -> Int64 {
        guard let value = get("id"), let id = Int64(value), id > 0 else { throw APIError.notFound }
        return id
    }
}
