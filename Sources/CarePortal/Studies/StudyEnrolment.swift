import Foundation
import PortalPlatform
import SQLKit

/// A participant to enrol, checked: her study id, arm, contact email, enrolment date and how she gets her login.
struct StudyEnrolment: Sendable {
    let studyCode: String
    let arm: String?
    let email: String?
    let enrolledOn: CalendarDate
    let login: StudyLogin

    /// Her username in the app.
    var username: String { StudyRules.username(for: studyCode) }

    /// Enrols her with the audit entry and, when she has a claim token, its email and its audit entry;
    /// run inside the caller's transaction. Throws `StudyCodeTaken` when her study id is in use.
    func enrol(
        _ firstLogin: StudyFirstLogin,
        actor: AuditActor,
        origin: AuditOrigin,
        now: Date,
        portal: Portal,
        on db: any SQLDatabase
    ) async throws -> Int64 {
        let id = try await StudyRepository().enrol(
            studyCode: studyCode,
            arm: arm,
            email: email,
            enrolledOn: enrolledOn,
            passwordHash: firstLogin.passwordHash,
            claimToken: firstLogin.claimToken,
            now: now,
            on: db
        )
        try await portal.audit.record(
            AuditEvent(
                actor: actor,
                action: .studyParticipantEnrolled,
                recordType: "study_participant",
                recordID: "\(id)",
                origin: origin,
                detail: "study id \(studyCode)"
            ),
            on: db
        )
        if let claimToken = firstLogin.claimToken, let email {
            try await portal.outbox.enqueue(
                .studyClaimToken(
                    to: email,
                    username: username,
                    token: claimToken,
                    expiresAt: ClaimTokens.expiry(sentAt: now),
                    settings: portal.settings,
                    clock: portal.programSettings.current.clock
                ),
                on: db
            )
            try await portal.audit.record(
                AuditEvent(actor: actor, action: .studyClaimTokenSent, recordType: "study_participant", recordID: "\(id)", origin: origin),
                on: db
            )
        }
        return id
    }
}

/// Her first login: a one-time password staff give her, or a claim token emailed to her. Only its hash is kept.
struct StudyFirstLogin: Sendable {
    let password: String?
    let claimToken: ClaimToken?
    let passwordHash: String

    static func make(_ login: StudyLogin, portal: Portal) async throws -> StudyFirstLogin {
        let password = login == .password ? StudyRules.oneTimePassword(portal.dependencies.randomBytes) : nil
        let claimToken = login == .email ? ClaimToken(randomBytes: portal.dependencies.randomBytes) : nil
        // With a claim token nobody knows her password until she chooses it in the app.
        let hash = try await portal.passwords.hash(password ?? SecretToken(randomBytes: portal.dependencies.randomBytes).value)
        return StudyFirstLogin(password: password, claimToken: claimToken, passwordHash: hash)
    }
}

/// The enrol form as typed.
struct StudyEnrolForm: Decodable, Sendable {
    var studyCode: String = ""
    var arm: String = ""
    var email: String = ""
    var login: String = StudyLogin.password.rawValue
    var enrolledOn = DateInputValue(day: nil, month: nil, year: nil)

    enum CodingKeys: String, CodingKey {
        case studyCode = "study_code", arm, email, login
        case day = "enrolled_on_day", month = "enrolled_on_month", year = "enrolled_on_year"
    }

    init(today: CalendarDate) {
        enrolledOn = DateInputValue(day: String(today.day), month: String(today.month), year: String(today.year))
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String { (try container.decodeIfPresent(String.self, forKey: key) ?? "").trimmed }
        studyCode = try text(.studyCode)
        arm = try text(.arm)
        email = try text(.email)
        // A form without the choice (an older page, a script) gets the one-time password, as before.
        login = try container.decodeIfPresent(String.self, forKey: .login) ?? StudyLogin.password.rawValue
        enrolledOn = DateInputValue(day: try text(.day), month: try text(.month), year: try text(.year))
    }

    /// The enrolment it asks for, or what is wrong by field; `dateProblem` marks the date's wrong parts.
    func validated() -> (enrolment: StudyEnrolment?, errors: FormErrors, dateProblem: DateInputProblem?) {
        var errors = FormErrors()
        if let problem = StudyRules.studyCodeProblem(studyCode) { errors.add("study_code", problem) }
        var dateProblem: DateInputProblem?
        var date: CalendarDate?
        switch enrolledOn.date(named: "Enrolment date", missing: "Enter the enrolment date") {
        case .success(let enrolled): date = enrolled
        case .failure(let problem):
            dateProblem = problem
            errors.add(DateInputField.errorAnchor("enrolled_on", problem), problem.message)
        }
        if arm.count > StudyRules.armMaximumLength {
            errors.add("arm", "Arm or group must be \(StudyRules.armMaximumLength) characters or fewer")
        }
        let login = StudyLogin(rawValue: login)
        if login == nil { errors.add("login-password", "Choose how she gets her login for the app") }
        if login == .email && email.isEmpty {
            errors.add("email", "Enter her email address to send her a claim token, or choose a one-time password")
        } else if !email.isEmpty, let problem = FieldRules.emailProblem(email) {
            errors.add("email", problem)
        }
        guard errors.isEmpty, let date, let login else { return (nil, errors, dateProblem) }
        let enrolment = StudyEnrolment(
            studyCode: studyCode,
            arm: arm.isEmpty ? nil : arm,
            email: email.isEmpty ? nil : email,
            enrolledOn: date,
            login: login
        )
        return (enrolment, errors, dateProblem)
    }
}

extension StudyEnrolledPage {
    /// Her login, shown once: the one-time password, or where her claim token went (and the token itself
    /// when no mail server sends it).
    init(
        _ enrolment: StudyEnrolment,
        id: Int64,
        firstLogin: StudyFirstLogin,
        showsClaimToken: Bool,
        now: Date,
        clock: ProgramClock,
        layout: Layout
    ) {
        self.init(
            layout: layout,
            studyCode: enrolment.studyCode,
            username: enrolment.username,
            password: firstLogin.password,
            emailedTo: firstLogin.claimToken == nil ? nil : enrolment.email,
            claimExpires: firstLogin.claimToken == nil ? nil : clock.dateTime(ClaimTokens.expiry(sentAt: now)),
            claimToken: showsClaimToken ? firstLogin.claimToken?.grouped : nil,
            participantPath: SiteURL.studyParticipant(id).path,
            enrolPath: SiteURL.newStudyParticipant.path
        )
    }
}
