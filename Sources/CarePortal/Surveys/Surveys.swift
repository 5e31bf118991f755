import Foundation
import PortalPlatform
import SQLKit

extension NotificationKind {
    static let surveyOpen = NotificationKind("survey_open", title: "A new survey for you", for: "member")
}

extension NotificationSubject {
    static let surveyType = "survey"
    static func survey(_ id: Int64) -> NotificationSubject { NotificationSubject(surveyType, id: id) }
}

extension MemberEvent.Kind {
    /// She submitted a survey's answers; `number` is the survey's id (never what she answered).
    static let surveySubmitted = MemberEvent.Kind("survey.submitted")
}

/// What a survey's results page shows of its answers.
struct SurveyResultsData: Sendable {
    let responses: Int
    let counts: [Int64: QuestionCounts]
    /// The newest few written answers of each free-text question, and how many there are.
    let texts: [Int64: PageOf<TextAnswer>]
}

/// What happened when she submitted: the response stored (new or the one her client id already sent).
struct SurveySubmission: Sendable {
    let response: SurveyResponse
    let isNew: Bool
}

/// Surveys' changes that go beyond one table: publishing (and telling members, now or at the first day),
/// closing, and members' answers with their points and event, each in one transaction with its audit entry.
struct Surveys: Sendable {
    static let titleMaximumLength = 120
    static let introductionMaximumLength = 1_000
    static let promptMaximumLength = 300
    static let choiceMaximumLength = 120
    static let choicesRange = 2...12
    static let scaleLabelMaximumLength = 40
    static let textAnswerLengths = 1...1_000
    static let defaultTextAnswerLength = 500
    static let clientIDMaximumLength = 64
    static let pointsReason = "survey_completed"
    /// The audit log's origin for an announcement a server made at a survey's first day.
    static let scheduledOrigin = AuditOrigin(address: "scheduled", userAgent: nil)

    let portal: Portal
    let repository = SurveyRepository()
    /// Each survey's counts and newest written answers, kept until its answers change.
    let resultsCache = VersionedCache<SurveyAnswersVersion, SurveyResultsData>(budget: 200)
    private var feeds: MemberNotifications { MemberNotifications(notifications: portal.notifications) }
    private var clock: ProgramClock { portal.programSettings.current.clock }

    // MARK: Administrators

    enum PublishOutcome: Equatable { case published(announced: Int?), notDraft, noQuestions, closesInThePast }

    /// Publishes a draft; members are told at once when it is open today, otherwise on its first day.
    func publish(id: Int64, actor: AuditActor, origin: AuditOrigin) async throws -> PublishOutcome {
        let now = portal.now
        let today = clock.date(of: now)
        let outcome = try await portal.database.transaction { db -> PublishOutcome in
            guard let survey = try await repository.find(id: id, on: db), survey.status == .draft else { return .notDraft }
            guard !(try await repository.questions(surveyID: id, on: db)).isEmpty else { return .noQuestions }
            guard survey.closesOn.dayNumber >= today.dayNumber else { return .closesInThePast }
            guard try await repository.publish(id: id, now: now, on: db) else { return .notDraft }
            var announced: Int?
            if survey.opensOn.dayNumber <= today.dayNumber, try await repository.claimAnnouncement(id: id, now: now, on: db) {
                announced = try await announce(survey, on: db)
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .surveyPublished,
                    recordType: "survey",
                    recordID: String(id),
                    origin: origin,
                    detail: "open \(survey.opensOn.iso) to \(survey.closesOn.iso)"
                ),
                on: db
            )
            return .published(announced: announced)
        }
        if case .published(let announced?) = outcome, announced > 0 { await portal.announceNotifications(to: .everyMember) }
        return outcome
    }

    /// Tells members of every published survey whose first day has come; returns how many surveys this server announced.
    @discardableResult
    func announceDue() async throws -> Int {
        let now = portal.now
        let today = clock.date(of: now)
        let due = try await portal.database.read { db in try await repository.dueAnnouncements(today: today, on: db) }
        var announced = 0
        for id in due {
            let won = try await portal.database.transaction { db -> Bool in
                guard try await repository.claimAnnouncement(id: id, now: now, on: db), let survey = try await repository.find(id: id, on: db) else {
                    return false
                }
                let count = try await announce(survey, on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: .system,
                        action: .surveyAnnounced,
                        recordType: "survey",
                        recordID: String(id),
                        origin: Self.scheduledOrigin,
                        detail: "\(count) member\(count == 1 ? "" : "s") told"
                    ),
                    on: db
                )
                return true
            }
            if won {
                announced += 1
                await portal.announceNotifications(to: .everyMember)
            }
        }
        return announced
    }

    private func announce(_ survey: Survey, on db: any SQLDatabase) async throws -> Int {
        try await feeds.notifyMembers(
            of: survey.cohortIDs,
            NewNotification(
                kind: .surveyOpen,
                message: "A new survey is open for you: \(survey.title)",
                subject: .survey(survey.id),
                onceKey: "survey:\(survey.id)"
            ),
            on: db
        )
    }

    func close(id: Int64, actor: AuditActor, origin: AuditOrigin) async throws -> Bool {
        try await portal.database.transaction { db in
            guard try await repository.close(id: id, now: portal.now, on: db) else { return false }
            try await portal.audit.record(
                AuditEvent(actor: actor, action: .surveyClosed, recordType: "survey", recordID: String(id), origin: origin),
                on: db
            )
            return true
        }
    }

    func returnToDraft(id: Int64, actor: AuditActor, origin: AuditOrigin) async throws -> Bool {
        try await portal.database.transaction { db in
            guard try await repository.returnToDraft(id: id, now: portal.now, on: db) else { return false }
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .surveyChanged,
                    recordType: "survey",
                    recordID: String(id),
                    origin: origin,
                    detail: "back to draft"
                ),
                on: db
            )
            return true
        }
    }

    /// The survey's counts per question and each free-text question's newest answers, from memory while
    /// no answer has been added or deleted since they were read.
    func results(of survey: Survey, questions: [SurveyQuestion]) async throws -> SurveyResultsData {
        try await portal.database.read { db in
            let version = try await repository.answersVersion(surveyID: survey.id, on: db)
            if let kept = resultsCache.value(for: version) { return kept }
            var texts: [Int64: PageOf<TextAnswer>] = [:]
            for question in questions where question.kind == .text {
                texts[question.id] = try await repository.textAnswers(
                    questionID: question.id,
                    page: PageRequest(number: 1, size: SurveyResultsPage.textsShown),
                    on: db
                )
            }
            let results = SurveyResultsData(
                responses: version.responses,
                counts: try await repository.counts(surveyID: survey.id, on: db),
                texts: texts
            )
            resultsCache.remember(results, for: version)
            return results
        }
    }

    // MARK: Members

    static func clientIDProblem(_ clientID: String) -> String? {
        clientID.isEmpty || clientID.count > clientIDMaximumLength || !clientID.allSatisfy({ $0.isASCII && !$0.isWhitespace })
            ? "Send a client_id of 1 to \(clientIDMaximumLength) letters, digits or symbols, the same each time these answers are retried"
            : nil
    }

    /// The survey if it is open today for her (published, within its days, for her cohort).
    func openSurvey(id: Int64, for member: Member, on db: any SQLDatabase) async throws -> Survey? {
        guard let survey = try await repository.find(id: id, on: db), survey.isOpen(on: clock.date(of: portal.now)) else { return nil }
        guard survey.cohortIDs?.contains(member.cohort.id) ?? true else { return nil }
        return survey
    }

    /// Stores her answers once: a retry with the same client id gets the same response back; answering again
    /// with another is refused. Her points and the event are written in the same transaction.
    func submit(surveyID: Int64, answers: [SurveyAnswer], clientID: String, by member: Member) async throws -> SurveySubmission {
        let now = portal.now
        let today = clock.date(of: now)
        if let existing = try await portal.database.read({ db in try await repository.response(surveyID: surveyID, memberID: member.id, on: db) }) {
            return try Self.replay(existing, clientID: clientID)
        }
        let engine = portal.database.engine
        let submission = try await portal.database.transaction { db -> SurveySubmission? in
            // Her row before the survey's, as a deletion of her account takes them (`MembersController.delete`, `SurveysFeature.deletingMember`).
            guard try await MemberRepository().hold(id: member.id, deleting: false, engine: engine, on: db) else { throw APIError.unauthorized }
            guard try await openSurvey(id: surveyID, for: member, on: db) != nil,
                try await repository.lockForAnswers(surveyID: surveyID, today: today, on: db)
            else { throw Self.notOpen }
            guard
                let responseID = try await repository.insertResponse(
                    surveyID: surveyID,
                    memberID: member.id,
                    cohortID: member.cohort.id,
                    clientID: clientID,
                    answers: answers,
                    pointsAwarded: 0,
                    now: now,
                    on: db
                )
            else { return nil }
            let rules = try await PointsRulesRepository().rules(on: db)
            let awarded = try await PointsLedger().award(
                PointsAward(reason: Self.pointsReason, reference: String(surveyID), amount: rules.surveyCompleted, period: .month),
                to: .member(member.id),
                at: now,
                clock: try await ProgramSettingsRepository().clock(on: db),
                on: db
            )
            let points = awarded ? rules.surveyCompleted : 0
            if points != 0 { try await repository.setPointsAwarded(points, responseID: responseID, on: db) }
            try await MemberEvents().record(
                MemberEvent(
                    kind: .surveySubmitted,
                    memberID: member.id,
                    cohortID: member.cohort.id,
                    occurredAt: now,
                    number: surveyID,
                    clientID: "survey:\(surveyID)"
                ),
                on: db
            )
            return SurveySubmission(
                response: SurveyResponse(
                    id: responseID,
                    surveyID: surveyID,
                    memberID: member.id,
                    clientID: clientID,
                    pointsAwarded: points,
                    submittedAt: now
                ),
                isNew: true
            )
        }
        if let submission { return submission }
        // Another request of hers stored a response between the read and the transaction.
        guard let existing = try await portal.database.read({ db in try await repository.response(surveyID: surveyID, memberID: member.id, on: db) })
        else {
            throw Self.notOpen
        }
        return try Self.replay(existing, clientID: clientID)
    }

    private static func replay(_ existing: SurveyResponse, clientID: String) throws -> SurveySubmission {
        guard existing.clientID == clientID else {
            throw APIError(status: .conflict, code: "already_answered", message: "You have already answered this survey. Thank you!")
        }
        return SurveySubmission(response: existing, isNew: false)
    }

    static let notOpen = APIError(status: .notFound, code: "not_found", message: "This survey is not open for you.")
    static let alreadyAnswered = APIError(status: .conflict, code: "already_answered", message: "You have already answered this survey. Thank you!")

    /// Her answers to an open survey of hers, for the member API and the web app's page alike: a retry
    /// under the same client id answers the stored response (even after the survey closed); another id
    /// once she has answered is `alreadyAnswered`; a survey not open for her is `notOpen`; wrong answers
    /// are `.validation` by question (`answers.ID`).
    func answer(surveyID: Int64, given: [SurveysAPI.GivenAnswer], clientID: String, by member: Member) async throws -> SurveySubmission {
        var problems: [String: String] = [:]
        if let problem = Self.clientIDProblem(clientID) { problems["client_id"] = problem }
        if problems.isEmpty,
            let existing = try await portal.database.read({ db in try await repository.response(surveyID: surveyID, memberID: member.id, on: db) })
        {
            guard existing.clientID == clientID else { throw Self.alreadyAnswered }
            return SurveySubmission(response: existing, isNew: false)
        }
        let questions = try await portal.database.read { db -> [SurveyQuestion]? in
            guard try await openSurvey(id: surveyID, for: member, on: db) != nil else { return nil }
            return try await repository.questions(surveyID: surveyID, on: db)
        }
        guard let questions else { throw Self.notOpen }
        let (answers, answerProblems) = Self.validated(given, questions: questions)
        problems.merge(answerProblems) { first, _ in first }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        return try await submit(surveyID: surveyID, answers: answers, clientID: clientID, by: member)
    }

    /// Her answers checked against the survey's questions, with a message per question (`answers.ID`) when one is wrong.
    static func validated(_ given: [SurveysAPI.GivenAnswer], questions: [SurveyQuestion]) -> ([SurveyAnswer], [String: String]) {
        var problems: [String: String] = [:]
        var answers: [SurveyAnswer] = []
        var byQuestion: [Int64: SurveysAPI.GivenAnswer] = [:]
        let known = Set(questions.map(\.id))
        for answer in given {
            guard let id = answer.questionId, known.contains(id) else {
                problems["answers"] = "Answer only this survey's questions, each once"
                continue
            }
            if byQuestion[id] != nil { problems["answers.\(id)"] = "Answer this question once" }
            byQuestion[id] = answer
        }
        for question in questions {
            let field = "answers.\(question.id)"
            guard problems[field] == nil else { continue }
            let answer = byQuestion[question.id]
            switch question.kind {
            case .singleChoice:
                guard let choice = answer?.choice else {
                    if answer?.choices != nil || answer?.scale != nil || answer?.text != nil {
                        problems[field] = "Choose one answer, as `choice`"
                    } else if question.required {
                        problems[field] = "Choose an answer"
                    }
                    continue
                }
                guard question.choices.indices.contains(choice - 1) else {
                    problems[field] = "Choose one of the \(question.choices.count) answers"; continue
                }
                answers.append(SurveyAnswer(questionID: question.id, choice: choice))
            case .multipleChoice:
                let chosen = answer?.choices ?? []
                if chosen.isEmpty {
                    if answer?.choice != nil || answer?.scale != nil || answer?.text != nil {
                        problems[field] = "Choose answers as `choices`, a list"
                    } else if question.required {
                        problems[field] = "Choose at least one answer"
                    }
                    continue
                }
                guard chosen.allSatisfy({ question.choices.indices.contains($0 - 1) }) else {
                    problems[field] = "Choose from the \(question.choices.count) answers"
                    continue
                }
                guard Set(chosen).count == chosen.count else { problems[field] = "Choose each answer once"; continue }
                answers += chosen.sorted().map { SurveyAnswer(questionID: question.id, choice: $0) }
            case .scale:
                guard let point = answer?.scale else {
                    if answer?.choice != nil || answer?.choices != nil || answer?.text != nil {
                        problems[field] = "Give a point on the scale as `scale`, from 1 to 5"
                    } else if question.required {
                        problems[field] = "Choose a point on the scale from 1 to 5"
                    }
                    continue
                }
                guard SurveyQuestion.scale.contains(point) else { problems[field] = "Choose a point on the scale from 1 to 5"; continue }
                answers.append(SurveyAnswer(questionID: question.id, choice: point))
            case .text:
                let text = (answer?.text ?? "").trimmed
                if text.isEmpty {
                    if answer?.choice != nil || answer?.choices != nil || answer?.scale != nil {
                        problems[field] = "Write the answer as `text`"
                    } else if question.required {
                        problems[field] = "Write an answer"
                    }
                    continue
                }
                let maximum = question.maximumLength ?? defaultTextAnswerLength
                guard text.count <= maximum else { problems[field] = "Write \(maximum) characters or fewer"; continue }
                guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" }) else {
                    problems[field] = "Write plain text"
                    continue
                }
                answers.append(SurveyAnswer(questionID: question.id, text: text))
            }
        }
        return (answers, problems)
    }
}

extension AuditAction {
    static let surveyCreated = AuditAction("survey_created", title: "Survey created")
    static let surveyChanged = AuditAction("survey_changed", title: "Survey changed")
    static let surveyPublished = AuditAction("survey_published", title: "Survey published")
    static let surveyAnnounced = AuditAction("survey_announced", title: "Survey announced to members")
    static let surveyClosed = AuditAction("survey_closed", title: "Survey closed")
    static let surveyResultsExported = AuditAction("survey_results_exported", title: "Survey results exported")
}
