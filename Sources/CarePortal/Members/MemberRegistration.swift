import Foundation
import PortalPlatform
import SQLKit

/// What someone types to become a member with a sign-up code, checked and registered in one place for
/// the member app's API and the web app's page. Problems are `APIError`s: each field's as `.validation`
/// (keyed by the API's field names), a pseudonym already taken as 409, a pause as 429.
struct MemberRegistration: Sendable {
    var signUpCode: String
    var pseudonym: String
    var password: String
    var avatar: String
    /// `YYYY-MM-DD`.
    var dueDate: String
    var recoveryEmail: String
    var securityQuestion: String
    var securityAnswer: String
    var state: String
    var zipCode: String
    var bio: String

    static let wrongCode = "This code is not valid. Check it with the person who gave it to you: each code works once, and only until it expires"
    static let pseudonymTaken = APIError(
        status: .conflict,
        code: "pseudonym_taken",
        message: "That pseudonym is already taken.",
        fields: ["pseudonym": "That pseudonym is already taken. Choose another"]
    )

    /// The registration as it would be stored, or what is wrong with it by field.
    struct Checked: Sendable {
        let code: String
        let dueDate: CalendarDate?
        let location: (state: String?, zipCode: String?)
        let problems: [String: String]
    }

    func checked(settings: ProgramSettings, today: CalendarDate, policy: PasswordPolicy) -> Checked {
        var problems: [String: String] = [:]
        let code = SignUpCode.normalized(signUpCode)
        if code.isEmpty {
            problems["sign_up_code"] = "Enter the sign-up code you were given"
        } else if code.count != SignUpCode.length || !code.allSatisfy(SignUpCode.alphabet.contains) {
            problems["sign_up_code"] = "Enter the \(SignUpCode.length)-character sign-up code you were given, like K7M4XP"
        }
        let pseudonym = pseudonym.trimmed
        if let problem = MemberRules.pseudonymProblem(pseudonym) { problems["pseudonym"] = problem }
        if let problem = MemberRules.passwordProblem(password, pseudonym: pseudonym, policy: policy) { problems["password"] = problem }
        let avatarID = avatar.trimmed
        if !avatarID.isEmpty, !settings.memberAvatarIDs.contains(avatarID) || Avatar.member(avatarID) == nil {
            problems["avatar"] = "Choose one of the avatars offered"
        }
        let (due, dueDateProblem) = MemberRules.dueDateProblem(dueDate.trimmed, today: today)
        if let dueDateProblem { problems["due_date"] = dueDateProblem }
        if let problem = FieldRules.emailProblem(recoveryEmail.trimmed) { problems["recovery_email"] = problem }
        let question = securityQuestion.trimmed
        if question.isEmpty {
            problems["security_question"] = "Choose a security question"
        } else if !settings.securityQuestions.contains(question) {
            problems["security_question"] = "Choose one of the security questions offered"
        }
        let answer = MemberRules.normalizedAnswer(securityAnswer)
        if answer.isEmpty {
            problems["security_answer"] = "Enter the answer to your security question"
        } else if answer.count > MemberRules.securityAnswerMaximumLength {
            problems["security_answer"] = "Answer must be \(MemberRules.securityAnswerMaximumLength) characters or fewer"
        }
        let location = MemberRules.locationProblems(state: state, zipCode: zipCode, into: &problems)
        if let problem = MemberRules.bioProblem(bio.trimmed) { problems["bio"] = problem }
        return Checked(code: code, dueDate: due, location: location, problems: problems)
    }

    private struct CodeNoLongerUsable: Error {}

    /// Checks everything, then the code under the throttle (a wrong code counts against the code and
    /// the address, so codes cannot be guessed), and makes the member in her due month's cohort with the
    /// code consumed and a token issued, in one transaction.
    func register(origin: AuditOrigin, portal: Portal) async throws -> (Member, IssuedAppToken) {
        let settings = portal.programSettings.current
        let now = portal.now
        let throttle = SignInThrottle()
        let members = MemberRepository()
        let codes = SignUpCodeRepository()
        let code = SignUpCode.normalized(signUpCode)
        let addressKeys: [SignInThrottle.Key] = origin.address.map { [.registrationAddress($0)] } ?? []
        try await throttle.refuseAPIRequestWhilePaused(addressKeys + (code.isEmpty ? [] : [.signUpCode(code)]), now: now, in: portal.database)
        let checked = checked(settings: settings, today: CalendarDate(now), policy: portal.passwordPolicy)
        guard checked.problems.isEmpty, let dueDate = checked.dueDate else { throw APIError.validation(checked.problems) }

        let usable = try await portal.database.transaction { db in
            let attempt = try await throttle.reserveAPIAttempt(addressKeys + [.signUpCode(code)], now: now, on: db)
            if try await codes.isUsable(code: code, now: now, on: db) {
                try await throttle.release(attempt, on: db)
                return true
            }
            try await throttle.fail(attempt, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: .anonymous,
                    action: .memberRegistered,
                    recordType: "member",
                    outcome: .failure,
                    origin: origin,
                    detail: "sign-up code not usable"
                ),
                on: db
            )
            return false
        }
        guard usable else { throw APIError.validation(["sign_up_code": Self.wrongCode]) }
        let pseudonym = pseudonym.trimmed
        if try await portal.database.read({ db in try await members.credentials(pseudonym: pseudonym, on: db) }) != nil {
            throw Self.pseudonymTaken
        }
        let avatarID = avatar.trimmed
        let new = NewMember(
            pseudonym: pseudonym,
            passwordHash: try await portal.passwords.hash(password),
            avatarID: avatarID.isEmpty ? settings.defaultMemberAvatar.id : avatarID,
            dueDate: dueDate,
            recoveryEmail: recoveryEmail.trimmed,
            securityQuestion: securityQuestion.trimmed,
            securityAnswerHash: try await portal.passwords.hash(MemberRules.normalizedAnswer(securityAnswer)),
            usState: checked.location.state,
            zipCode: checked.location.zipCode,
            bio: bio.trimmed
        )
        let randomBytes = portal.dependencies.randomBytes
        do {
            return try await portal.database.transaction { db in
                let cohort = try await members.cohort(dueMonth: dueDate.monthKey, now: now, on: db)
                let member = try await members.create(new, cohort: cohort, now: now, on: db)
                guard let codeID = try await codes.consume(code: code, memberID: member.id, now: now, on: db) else {
                    throw CodeNoLongerUsable()
                }
                try await members.setSignUpCode(id: member.id, codeID: codeID, on: db)
                try await members.recordSignIn(memberID: member.id, kind: .registered, origin: origin, now: now, on: db)
                try await MemberPoints.noteDailySignIn(memberID: member.id, at: now, on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: AuditActor(accountID: member.id, role: "member", name: nil),
                        action: .memberRegistered,
                        recordType: "member",
                        recordID: "\(member.id)",
                        origin: origin,
                        detail: "cohort \(cohort.dueMonth)"
                    ),
                    on: db
                )
                let issued = try await AppAccountKind.member.bearerTokens.issue(ownerID: member.id, randomBytes: randomBytes, now: now, on: db)
                var registered = member
                registered.signUpCodeID = codeID
                return (registered, IssuedAppToken(accountID: member.id, token: issued.token, expiresAt: issued.expiresAt))
            }
        } catch is PseudonymTaken {
            throw Self.pseudonymTaken
        } catch is CodeNoLongerUsable {
            throw APIError.validation(["sign_up_code": Self.wrongCode])
        }
    }
}

/// A forgotten password, recovered with her recovery email and the answer to her security question;
/// shared by the member app's API and the web app's page. Every other sign-in ends.
struct MemberRecovery: Sendable {
    var recoveryEmail: String
    var securityAnswer: String
    var newPassword: String

    static let wrongRecovery = "The recovery email or the answer to your security question is not right"

    func problems(policy: PasswordPolicy) -> [String: String] {
        var problems: [String: String] = [:]
        if let problem = FieldRules.emailProblem(recoveryEmail.trimmed) { problems["recovery_email"] = problem }
        if MemberRules.normalizedAnswer(securityAnswer).isEmpty { problems["security_answer"] = "Enter the answer to your security question" }
        if let problem = MemberRules.passwordProblem(newPassword, pseudonym: nil, policy: policy) { problems["new_password"] = problem }
        return problems
    }

    /// Throws `.validation` for the fields, 401 `recovery_failed` when the email and answer match no
    /// member, the kind's refusal for a disabled one, and 429 while paused.
    func recover(origin: AuditOrigin, portal: Portal) async throws {
        let problems = problems(policy: portal.passwordPolicy)
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let email = recoveryEmail.trimmed
        let answer = MemberRules.normalizedAnswer(securityAnswer)
        let throttle = SignInThrottle()
        let members = MemberRepository()
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
                try await portal.audit.record(
                    AuditEvent(
                        actor: AuditActor(accountID: recovered?.id, role: "member", name: nil),
                        action: .memberRecovered,
                        recordType: "member",
                        recordID: recovered.map { "\($0.id)" },
                        outcome: .failure,
                        origin: origin,
                        detail: recovered == nil ? "no member with that email and answer" : "member disabled"
                    ),
                    on: db
                )
            }
            if recovered != nil { throw MemberAPIController.disabled(portal.programSettings.current) }
            throw APIError(status: .unauthorized, code: "recovery_failed", message: "\(Self.wrongRecovery).")
        }
        let hash = try await portal.passwords.hash(newPassword)
        try await portal.database.transaction { db in
            try await throttle.release(attempt, on: db)
            try await throttle.clear(.recovery(email), on: db)
            try await members.setPassword(id: recovered.id, hash: hash, now: now, on: db)
            try await AppAccountKind.member.bearerTokens.revokeAll(ownerID: recovered.id, on: db)
            try await members.recordSignIn(memberID: recovered.id, kind: .recovered, origin: origin, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: recovered.id, role: "member", name: nil),
                    action: .memberRecovered,
                    recordType: "member",
                    recordID: "\(recovered.id)",
                    origin: origin
                ),
                on: db
            )
        }
    }
}

extension MemberRules {
    /// Checks the optional location; an empty state or ZIP code means none.
    static func locationProblems(state: String?, zipCode: String?, into problems: inout [String: String]) -> (state: String?, zipCode: String?) {
        let state = state?.trimmed.uppercased() ?? ""
        let zip = zipCode?.trimmed ?? ""
        if !state.isEmpty, let problem = usStateProblem(state) { problems["state"] = problem }
        if !zip.isEmpty, let problem = zipCodeProblem(zip) { problems["zip_code"] = problem }
        return (state.isEmpty ? nil : state, zip.isEmpty ? nil : zip)
    }
}

/// The web app's join form as typed.
struct MemberRegistrationForm: Decodable {
    var sign_up_code: String?
    var pseudonym: String?
    var password: String?
    var password_confirmation: String?
    var avatar: String?
    var due_date_day: String?
    var due_date_month: String?
    var due_date_year: String?
    var recovery_email: String?
    var security_question: String?
    var security_answer: String?
    var state: String?
    var zip_code: String?

    var dueDate: DateInputValue { DateInputValue(day: due_date_day, month: due_date_month, year: due_date_year) }

    /// The registration it asks for, and what is wrong with the due date (then left empty in it).
    var registration: (MemberRegistration, dueDateProblem: DateInputProblem?) {
        var dueDateProblem: DateInputProblem?
        var dueISO = ""
        switch dueDate.date(named: "Due date", missing: "Enter your due date") {
        case .success(let date): dueISO = date.iso
        case .failure(let problem): dueDateProblem = problem
        }
        let registration = MemberRegistration(
            signUpCode: sign_up_code ?? "",
            pseudonym: pseudonym ?? "",
            password: password ?? "",
            avatar: avatar ?? "",
            dueDate: dueISO,
            recoveryEmail: recovery_email ?? "",
            securityQuestion: security_question ?? "",
            securityAnswer: security_answer ?? "",
            state: state ?? "",
            zipCode: zip_code ?? "",
            bio: ""
        )
        return (registration, dueDateProblem)
    }

    /// Every problem at once by field, the confirmation's with the rest; the due date's own problem is shown apart.
    func problems(with registration: MemberRegistration, dueDateProblem: DateInputProblem?, today: CalendarDate, portal: Portal) -> [String: String] {
        let settings = portal.programSettings.current
        var problems = registration.checked(settings: settings, today: today, policy: portal.passwordPolicy).problems
        if dueDateProblem != nil { problems["due_date"] = nil }
        if problems["password"] == nil, registration.password != (password_confirmation ?? "") {
            problems["password_confirmation"] = "Enter the same password twice"
        }
        return problems
    }
}
