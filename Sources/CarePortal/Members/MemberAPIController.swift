import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The member app's JSON API: registration with a sign-up code, sign-in with bearer tokens,
/// account recovery and profiles. Described in `api/openapi.json`.
struct MemberAPIController {
    let portal: Portal
    let members = MemberRepository()
    let tokens = AppAccountKind.member.bearerTokens
    let codes = SignUpCodeRepository()
    let throttle = SignInThrottle()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiProgram.pattern, access: .everyone, program)
        routes.post(SiteURL.apiRegistrations.pattern, access: .everyone, register)
        let members = self.members
        routes.appSessions(.member) { issued, db in
            guard let member = try await members.find(id: issued.accountID, on: db) else { throw APIError.unauthorized }
            return MemberAPI.Session(token: issued.token, expiresAt: issued.expiresAt, member: .init(member, settings: portal.programSettings.current))
        }
        routes.post(SiteURL.apiAccountRecovery.pattern, access: .everyone, recover)
        routes.get(SiteURL.apiMe.pattern, access: .member, ownProfile)
        routes.patch(SiteURL.apiMe.pattern, access: .member, changeProfile)
        routes.post(SiteURL.apiMyPassword.pattern, access: .member, changePassword)
        routes.get(SiteURL.pattern(SiteURL.apiMemberProfile), access: .member, memberProfile)
        routes.get(SiteURL.pattern(SiteURL.apiStaffProfile), access: .member, staffProfile)
    }

    static let wrongCode = "This code is not valid. Check it with the person who gave it to you: each code works once, and only until it expires"
    static let wrongRecovery = "The recovery email or the answer to your security question is not right"

    // MARK: Program

    @Sendable func program(request: Request, context: PortalContext) async throws -> Response {
        .json(MemberAPI.Program(portal.programSettings.current))
    }

    // MARK: Registration

    @Sendable func register(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(MemberAPI.Registration.self)
        let settings = portal.programSettings.current
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let code = body.signUpCode.map(SignUpCode.normalized) ?? ""
        let addressKeys: [SignInThrottle.Key] = origin.address.map { [.registrationAddress($0)] } ?? []
        try await throttle.refuseAPIRequestWhilePaused(addressKeys + (code.isEmpty ? [] : [.signUpCode(code)]), now: now, in: portal.database)

        var problems: [String: String] = [:]
        if code.isEmpty {
            problems["sign_up_code"] = "Enter the sign-up code you were given"
        } else if code.count != SignUpCode.length || !code.allSatisfy(SignUpCode.alphabet.contains) {
            problems["sign_up_code"] = "Enter the \(SignUpCode.length)-character sign-up code you were given, like K7M4XP"
        }
        let pseudonym = body.pseudonym?.trimmed ?? ""
        if let problem = MemberRules.pseudonymProblem(pseudonym) { problems["pseudonym"] = problem }
        let password = body.password ?? ""
        if let problem = MemberRules.passwordProblem(password, pseudonym: pseudonym, policy: portal.passwordPolicy) {
            problems["password"] = problem
        }
        let avatarID = body.avatar?.trimmed ?? ""
        if !avatarID.isEmpty, !settings.memberAvatarIDs.contains(avatarID) || Avatar.member(avatarID) == nil {
            problems["avatar"] = "Choose one of the avatars offered"
        }
        let (dueDate, dueDateProblem) = MemberRules.dueDateProblem(body.dueDate?.trimmed ?? "", today: CalendarDate(now))
        if let dueDateProblem { problems["due_date"] = dueDateProblem }
        let email = body.recoveryEmail?.trimmed ?? ""
        if let problem = FieldRules.emailProblem(email) { problems["recovery_email"] = problem }
        let question = body.securityQuestion?.trimmed ?? ""
        if question.isEmpty {
            problems["security_question"] = "Choose a security question"
        } else if !settings.securityQuestions.contains(question) {
            problems["security_question"] = "Choose one of the security questions offered"
        }
        let answer = MemberRules.normalizedAnswer(body.securityAnswer ?? "")
        if answer.isEmpty {
            problems["security_answer"] = "Enter the answer to your security question"
        } else if answer.count > MemberRules.securityAnswerMaximumLength {
            problems["security_answer"] = "Answer must be \(MemberRules.securityAnswerMaximumLength) characters or fewer"
        }
        let location = locationProblems(state: body.state, zipCode: body.zipCode, into: &problems)
        let bio = body.bio?.trimmed ?? ""
        if let problem = MemberRules.bioProblem(bio) { problems["bio"] = problem }
        guard problems.isEmpty, let dueDate else { throw APIError.validation(problems) }

        // A wrong code counts against the code and the address, so codes cannot be guessed.
        let usable = try await portal.database.transaction { db in
            let attempt = try await throttle.reserveAPIAttempt(addressKeys + [.signUpCode(code)], now: now, on: db)
            if try await codes.isUsable(code: code, now: now, on: db) {
                try await throttle.release(attempt, on: db)
                return true
            }
            try await throttle.fail(attempt, on: db)
            try await portal.audit.record(AuditEvent(
                actor: .anonymous, action: .memberRegistered, recordType: "member", outcome: .failure, origin: origin,
                detail: "sign-up code not usable"
            ), on: db)
            return false
        }
        guard usable else { throw APIError.validation(["sign_up_code": Self.wrongCode]) }
        if try await portal.database.read({ db in try await members.credentials(pseudonym: pseudonym, on: db) }) != nil {
            throw Self.pseudonymTaken
        }

        let new = NewMember(
            pseudonym: pseudonym,
            passwordHash: try await portal.passwords.hash(password),
            avatarID: avatarID.isEmpty ? settings.defaultMemberAvatar.id : avatarID,
            dueDate: dueDate,
            recoveryEmail: email,
            securityQuestion: question,
            securityAnswerHash: try await portal.passwords.hash(answer),
            usState: location.state,
            zipCode: location.zipCode,
            bio: bio
        )
        let session: MemberAPI.Session
        do {
            session = try await portal.database.transaction { db in
                let cohort = try await members.cohort(dueMonth: dueDate.monthKey, now: now, on: db)
                let member = try await members.create(new, cohort: cohort, now: now, on: db)
                guard let codeID = try await codes.consume(code: code, memberID: member.id, now: now, on: db) else {
                    throw CodeNoLongerUsable()
                }
                try await members.setSignUpCode(id: member.id, codeID: codeID, on: db)
                try await members.recordSignIn(memberID: member.id, kind: .registered, origin: origin, now: now, on: db)
                try await MemberPoints.noteDailySignIn(memberID: member.id, at: now, on: db)
                try await portal.audit.record(AuditEvent(
                    actor: AuditActor(accountID: member.id, role: "member", name: nil), action: .memberRegistered,
                    recordType: "member", recordID: "\(member.id)", origin: origin, detail: "cohort \(cohort.dueMonth)"
                ), on: db)
                let issued = try await tokens.issue(ownerID: member.id, randomBytes: portal.dependencies.randomBytes, now: now, on: db)
                var registered = member
                registered.signUpCodeID = codeID
                return MemberAPI.Session(token: issued.token, expiresAt: issued.expiresAt, member: .init(registered, settings: settings))
            }
        } catch is PseudonymTaken {
            throw Self.pseudonymTaken
        } catch is CodeNoLongerUsable {
            throw APIError.validation(["sign_up_code": Self.wrongCode])
        }
        return .json(session, status: .created)
    }

    static let pseudonymTaken = APIError(
        status: .conflict, code: "pseudonym_taken", message: "That pseudonym is already taken.",
        fields: ["pseudonym": "That pseudonym is already taken. Choose another"]
    )

    private struct CodeNoLongerUsable: Error {}

    /// Checks the optional location; an empty or absent state or ZIP code means none.
    private func locationProblems(state: String?, zipCode: String?, into problems: inout [String: String]) -> (state: String?, zipCode: String?) {
        let state = state?.trimmed.uppercased() ?? ""
        let zip = zipCode?.trimmed ?? ""
        if !state.isEmpty, let problem = MemberRules.usStateProblem(state) { problems["state"] = problem }
        if !zip.isEmpty, let problem = MemberRules.zipCodeProblem(zip) { problems["zip_code"] = problem }
        return (state.isEmpty ? nil : state, zip.isEmpty ? nil : zip)
    }

    // MARK: Refusals

    static func disabled(_ settings: ProgramSettings) -> APIError {
        APIError(
            status: .forbidden, code: "account_disabled",
            message: "This account has been disabled." + (settings.deletionPhone.isEmpty ? "" : " To ask about it, call \(settings.deletionPhone).")
        )
    }

    // MARK: Recovery

    @Sendable func recover(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(MemberAPI.Recovery.self)
        let email = body.recoveryEmail?.trimmed ?? ""
        let answer = MemberRules.normalizedAnswer(body.securityAnswer ?? "")
        let newPassword = body.newPassword ?? ""
        var problems: [String: String] = [:]
        if let problem = FieldRules.emailProblem(email) { problems["recovery_email"] = problem }
        if answer.isEmpty { problems["security_answer"] = "Enter the answer to your security question" }
        if let problem = MemberRules.passwordProblem(newPassword, pseudonym: nil, policy: portal.passwordPolicy) {
            problems["new_password"] = problem
        }
        guard problems.isEmpty else { throw APIError.validation(problems) }

        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let keys: [SignInThrottle.Key] = [.recovery(email)] + (origin.address.map { [.address($0)] } ?? [])
        let attempt = try await throttle.reserveAPIAttempt(keys, now: now, in: portal.database)
        let candidates = try await portal.database.read { db in try await members.credentials(recoveryEmail: email, on: db) }
        var recovered: MemberCredentials?
        for candidate in candidates where try await portal.passwords.verify(answer, against: candidate.securityAnswerHash) {
            recovered = candidate
            break
        }
        if candidates.isEmpty { try await portal.passwords.verifyAgainstNothing(answer) }
        guard let recovered, recovered.status == .active else {
            try await portal.database.transaction { db in
                try await throttle.fail(attempt, on: db)
                try await portal.audit.record(AuditEvent(
                    actor: AuditActor(accountID: recovered?.id, role: "member", name: nil), action: .memberRecovered,
                    recordType: "member", recordID: recovered.map { "\($0.id)" }, outcome: .failure, origin: origin,
                    detail: recovered == nil ? "no member with that email and answer" : "member disabled"
                ), on: db)
            }
            if recovered != nil { throw Self.disabled(portal.programSettings.current) }
            throw APIError(status: .unauthorized, code: "recovery_failed", message: "\(Self.wrongRecovery).")
        }
        let hash = try await portal.passwords.hash(newPassword)
        try await portal.database.transaction { db in
            try await throttle.release(attempt, on: db)
            try await throttle.clear(.recovery(email), on: db)
            try await members.setPassword(id: recovered.id, hash: hash, now: now, on: db)
            try await tokens.revokeAll(ownerID: recovered.id, on: db)
            try await members.recordSignIn(memberID: recovered.id, kind: .recovered, origin: origin, now: now, on: db)
            try await portal.audit.record(AuditEvent(
                actor: AuditActor(accountID: recovered.id, role: "member", name: nil), action: .memberRecovered,
                recordType: "member", recordID: "\(recovered.id)", origin: origin
            ), on: db)
        }
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
        let settings = portal.programSettings.current
        var problems: [String: String] = [:]
        var changes = MemberRepository.ProfileChanges()
        if let avatar = body.avatar?.trimmed {
            if Avatar.member(avatar) == nil || !settings.memberAvatarIDs.contains(avatar) {
                problems["avatar"] = "Choose one of the avatars offered"
            } else {
                changes.avatarID = avatar
            }
        }
        if let email = body.recoveryEmail?.trimmed {
            if let problem = FieldRules.emailProblem(email) { problems["recovery_email"] = problem } else { changes.recoveryEmail = email }
        }
        if let bio = body.bio?.trimmed {
            if let problem = MemberRules.bioProblem(bio) { problems["bio"] = problem } else { changes.bio = bio }
        }
        let now = portal.now
        let existing = try await portal.database.read { db in try await members.find(id: holder.accountID, on: db) }
        guard let existing else { throw APIError.unauthorized }
        if body.state != nil || body.zipCode != nil {
            let location = locationProblems(
                state: body.state ?? existing.usState, zipCode: body.zipCode ?? existing.zipCode, into: &problems
            )
            changes.location = location
        }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let updated = try await portal.database.transaction { db in
            try await members.update(id: holder.accountID, changes, now: now, on: db)
            try await portal.audit.record(AuditEvent(
                actor: context.auditActor, action: .memberProfileChanged, recordType: "member", recordID: "\(holder.accountID)",
                origin: portal.origin(of: request, context: context),
                detail: changes.changedFields.joined(separator: ", ")
            ), on: db)
            return try await members.find(id: holder.accountID, on: db)
        }
        guard let updated else { throw APIError.unauthorized }
        return .json(MemberAPI.OwnProfile(updated, settings: settings))
    }

    @Sendable func changePassword(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireMember()
        let body = try await request.json(MemberAPI.PasswordChange.self)
        let current = body.currentPassword ?? ""
        let new = body.newPassword ?? ""
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
            // Every other device signs in again; this one keeps its token.
            try await tokens.revokeAll(ownerID: holder.accountID, keeping: holder.tokenHash, on: db)
            try await portal.audit.record(AuditEvent(
                actor: context.auditActor, action: .passwordChanged, recordType: "member", recordID: "\(holder.accountID)",
                origin: portal.origin(of: request, context: context)
            ), on: db)
        }
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
        [avatarID.map { _ in "avatar" }, recoveryEmail.map { _ in "recovery email" }, location.map { _ in "location" },
         bio.map { _ in "bio" }].compactMap { $0 }
    }
}

extension Parameters {
    /// The `:id` of an API route; a malformed one is not found, in the API's error shape.
    func apiRecordID() throws -> Int64 {
        guard let value = get("id"), let id = Int64(value), id > 0 else { throw APIError.notFound }
        return id
    }
}
