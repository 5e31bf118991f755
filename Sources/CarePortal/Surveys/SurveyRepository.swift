import Foundation
import PortalPlatform
import SQLKit

/// A survey administrators write for members: open from the start of one day to the end of another on
/// the program's clock, for every member or chosen cohorts.
struct Survey: Sendable, Equatable, Identifiable {
    enum Status: String, Sendable, CaseIterable {
        case draft, open, closed

        var title: String {
            switch self {
            case .draft: "Draft"
            case .open: "Published"
            case .closed: "Closed"
            }
        }
    }

    var id: Int64
    var title: String
    var introduction: String
    var status: Status
    var opensOn: CalendarDate
    var closesOn: CalendarDate
    /// Nil: every member.
    var cohortIDs: [Int64]?
    /// True once anyone answered: its questions never change again.
    var questionsLocked: Bool
    var announcedAt: Date?
    var createdByName: String
    var createdAt: Date
    var publishedAt: Date?
    var closedAt: Date?

    /// Published, and `today` (on the program's clock) is within its days.
    func isOpen(on today: CalendarDate) -> Bool {
        status == .open && opensOn.dayNumber <= today.dayNumber && today.dayNumber <= closesOn.dayNumber
    }
}

/// One question of a survey.
struct SurveyQuestion: Sendable, Equatable, Identifiable {
    enum Kind: String, Sendable, CaseIterable {
        case singleChoice = "single_choice", multipleChoice = "multiple_choice", scale, text

        var title: String {
            switch self {
            case .singleChoice: "Single choice"
            case .multipleChoice: "Multiple choice"
            case .scale: "Scale from 1 to 5"
            case .text: "Short free text"
            }
        }

        var hasChoices: Bool { self == .singleChoice || self == .multipleChoice }
    }

    static let scale = 1...5

    var id: Int64
    var surveyID: Int64
    var position: Int
    var kind: Kind
    var prompt: String
    var required: Bool
    /// The choices of a choice question, in order; answers number them from 1.
    var choices: [String]
    var scaleLowLabel: String?
    var scaleHighLabel: String?
    /// The longest free-text answer, in characters.
    var maximumLength: Int?
}

/// A question as an administrator wrote it, already checked.
struct QuestionDraft: Sendable, Equatable {
    var kind: SurveyQuestion.Kind
    var prompt: String
    var required: Bool
    var choices: [String]
    var scaleLowLabel: String?
    var scaleHighLabel: String?
    var maximumLength: Int?
}

/// A survey's details as an administrator wrote them, already checked.
struct SurveyDetails: Sendable, Equatable {
    var title: String
    var introduction: String
    var opensOn: CalendarDate
    var closesOn: CalendarDate
    var cohortIDs: [Int64]?
}

/// One answer to one question: a choice or point on the scale (from 1), or text.
struct SurveyAnswer: Sendable, Equatable {
    var questionID: Int64
    var choice: Int?
    var text: String?
}

/// A member's submitted answers, as the app is told of them.
struct SurveyResponse: Sendable, Equatable {
    var id: Int64
    var surveyID: Int64
    var memberID: Int64
    var clientID: String
    var pointsAwarded: Int
    var submittedAt: Date
}

/// A row of the administrators' list.
struct SurveyListItem: Sendable {
    var survey: Survey
    var questionCount: Int
    var responseCount: Int
}

/// How many chose each choice (or point on the scale) of a question, and how many answered it.
struct QuestionCounts: Sendable, Equatable {
    var byChoice: [Int: Int] = [:]
    var answered = 0
}

/// The key a survey's results are kept in memory under (`SurveyResultsCache`).
struct SurveyAnswersVersion: Sendable, Hashable {
    let surveyID: Int64
    let responses: Int
    let lastResponseID: Int64
}

/// A free-text answer as administrators read it: never with who wrote it.
struct TextAnswer: Sendable, Equatable {
    var responseID: Int64
    var text: String
    var submittedAt: Date
}

/// One row of the export: one answer.
struct SurveyExportRow: Sendable {
    var responseID: Int64
    var cohortName: String?
    var submittedAt: Date
    var questionID: Int64
    var choice: Int?
    var text: String?
}

/// The only place surveys' SQL lives.
struct SurveyRepository: Sendable {
    private static let surveyColumns = [
        "id", "title", "introduction", "status", "opens_on", "closes_on", "to_everyone", "questions_locked", "announced_at",
        "created_by_name", "created_at", "published_at", "closed_at"
    ]

    // MARK: Surveys

    func create(_ details: SurveyDetails, by staff: StaffAccount, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        let id = try await db.insert(into: "surveys")
            .columns(
                "title",
                "introduction",
                "status",
                "opens_on",
                "closes_on",
                "to_everyone",
                "questions_locked",
                "created_by",
                "created_by_name",
                "created_at",
                "updated_at"
            )
            .values(
                SQLBind(details.title),
                SQLBind(details.introduction),
                SQLBind(Survey.Status.draft.rawValue),
                SQLBind(details.opensOn.iso),
                SQLBind(details.closesOn.iso),
                SQLBind(details.cohortIDs == nil),
                SQLBind(false),
                SQLBind(staff.id),
                SQLBind(staff.username),
                SQLBind(now.millisecondsSince1970),
                SQLBind(now.millisecondsSince1970)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
        try await setCohorts(details.cohortIDs, surveyID: id, on: db)
        return id
    }

    /// Changes a draft's details; false when it is no longer a draft.
    func update(id: Int64, _ details: SurveyDetails, now: Date, on db: any SQLDatabase) async throws -> Bool {
        let changed =
            try await db.update("surveys")
            .set("title", to: details.title).set("introduction", to: details.introduction)
            .set("opens_on", to: details.opensOn.iso).set("closes_on", to: details.closesOn.iso)
            .set("to_everyone", to: details.cohortIDs == nil).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("status", .equal, Survey.Status.draft.rawValue)
            .returning("id").first() != nil
        if changed { try await setCohorts(details.cohortIDs, surveyID: id, on: db) }
        return changed
    }

    private func setCohorts(_ cohortIDs: [Int64]?, surveyID: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "survey_cohorts").where("survey_id", .equal, surveyID).run()
        for cohortID in cohortIDs ?? [] {
            try await db.insert(into: "survey_cohorts").columns("survey_id", "cohort_id").values(SQLBind(surveyID), SQLBind(cohortID)).run()
        }
    }

    func find(id: Int64, on db: any SQLDatabase) async throws -> Survey? {
        guard let row = try await db.select().columns(Self.surveyColumns).from("surveys").where("id", .equal, id).first() else { return nil }
        return try await decode([row], on: db).first
    }

    func list(page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<SurveyListItem> {
        let rows = try await db.seek(
            page,
            order: ListOrder("created", keys: [.integer("created_at", table: "s"), .integer("id", table: "s")], descending: true),
            columns: [
                SQLRaw(
                    """
                    s.id, s.title, s.introduction, s.status, s.opens_on, s.closes_on, s.to_everyone, s.questions_locked, s.announced_at,
                    s.created_by_name, s.created_at, s.published_at, s.closed_at, s.response_count
                    """
                )
            ],
            rows: { $0.from(SQLAlias(SQLIdentifier("surveys"), as: SQLIdentifier("s"))) },
            decode: { $0 }
        )
        let surveys = try await decode(rows.items, on: db)
        var responses: [Int64: Int] = [:]
        for row in rows.items { responses[try row.decode(column: "id", as: Int64.self)] = try row.decode(column: "response_count", as: Int.self) }
        let questions = try await questionCounts(surveyIDs: surveys.map(\.id), on: db)
        return rows.replacingItems(
            surveys.map { survey in
                SurveyListItem(survey: survey, questionCount: questions[survey.id] ?? 0, responseCount: responses[survey.id] ?? 0)
            }
        )
    }

    /// Publishes a draft; false when it is not a draft.
    func publish(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("surveys")
            .set("status", to: Survey.Status.open.rawValue).set("published_at", to: now.millisecondsSince1970)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("status", .equal, Survey.Status.draft.rawValue)
            .returning("id").first() != nil
    }

    /// Closes a published survey at once; false when it is not published.
    func close(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("surveys")
            .set("status", to: Survey.Status.closed.rawValue).set("closed_at", to: now.millisecondsSince1970)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("status", .equal, Survey.Status.open.rawValue)
            .returning("id").first() != nil
    }

    /// Takes a published survey nobody has answered back to a draft; false once anyone answered.
    /// The first answer sets `questions_locked` with an update of the same row, so the two never both succeed.
    func returnToDraft(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("surveys")
            .set("status", to: Survey.Status.draft.rawValue).set(SQLColumn("published_at"), to: SQLLiteral.null)
            .set(SQLColumn("announced_at"), to: SQLLiteral.null).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("status", .equal, Survey.Status.open.rawValue).where("questions_locked", .equal, false)
            .returning("id").first() != nil
    }

    /// Published surveys open on `today` whose members have not been told yet.
    func dueAnnouncements(today: CalendarDate, on db: any SQLDatabase) async throws -> [Int64] {
        try await db.select().column("id").from("surveys")
            .where("status", .equal, Survey.Status.open.rawValue).where("announced_at", .is, SQLLiteral.null)
            .where("opens_on", .lessThanOrEqual, today.iso).where("closes_on", .greaterThanOrEqual, today.iso)
            .orderBy("id").limit(20).all()
            .map { try $0.decode(column: "id", as: Int64.self) }
    }

    /// Marks a published survey announced; false when another server got there first. On PostgreSQL the row
    /// stays locked until the caller's transaction ends, so only one server writes the notifications.
    func claimAnnouncement(id: Int64, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("surveys").set("announced_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("status", .equal, Survey.Status.open.rawValue).where("announced_at", .is, SQLLiteral.null)
            .returning("id").first() != nil
    }

    // MARK: Questions

    func questions(surveyID: Int64, on db: any SQLDatabase) async throws -> [SurveyQuestion] {
        try await db.select().column("*").from("survey_questions").where("survey_id", .equal, surveyID)
            .orderBy("position").orderBy("id").all().map(decodeQuestion)
    }

    func question(id: Int64, on db: any SQLDatabase) async throws -> SurveyQuestion? {
        try await db.select().column("*").from("survey_questions").where("id", .equal, id).first().map(decodeQuestion)
    }

    /// Adds a question at the end of a draft that nobody answered; nil when the survey is not such a draft.
    func addQuestion(_ draft: QuestionDraft, surveyID: Int64, on db: any SQLDatabase) async throws -> Int64? {
        guard try await lockDraft(surveyID: surveyID, on: db) else { return nil }
        let last =
            try await db.raw("SELECT COALESCE(MAX(position), 0) AS last FROM survey_questions WHERE survey_id = \(bind: surveyID)")
            .first()?.decode(column: "last", as: Int.self) ?? 0
        return try await db.insert(into: "survey_questions")
            .columns("survey_id", "position", "kind", "prompt", "required", "choices", "scale_low_label", "scale_high_label", "maximum_length")
            .values(
                SQLBind(surveyID),
                SQLBind(last + 1),
                SQLBind(draft.kind.rawValue),
                SQLBind(draft.prompt),
                SQLBind(draft.required),
                SQLBind(draft.choices.joined(separator: "\n")),
                SQLBind(draft.scaleLowLabel),
                SQLBind(draft.scaleHighLabel),
                SQLBind(draft.maximumLength)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
    }

    /// Changes a question of a draft; false when its survey is no longer a draft.
    func updateQuestion(_ question: SurveyQuestion, with draft: QuestionDraft, on db: any SQLDatabase) async throws -> Bool {
        guard try await lockDraft(surveyID: question.surveyID, on: db) else { return false }
        try await db.update("survey_questions")
            .set("prompt", to: draft.prompt).set("required", to: draft.required).set("choices", to: draft.choices.joined(separator: "\n"))
            .set("scale_low_label", to: draft.scaleLowLabel).set("scale_high_label", to: draft.scaleHighLabel)
            .set("maximum_length", to: draft.maximumLength)
            .where("id", .equal, question.id).run()
        return true
    }

    /// Swaps a question with the one before (`up`) or after it; false when its survey is no longer a draft.
    func moveQuestion(_ question: SurveyQuestion, up: Bool, on db: any SQLDatabase) async throws -> Bool {
        guard try await lockDraft(surveyID: question.surveyID, on: db) else { return false }
        let all = try await questions(surveyID: question.surveyID, on: db)
        guard let index = all.firstIndex(where: { $0.id == question.id }) else { return false }
        let other = up ? index - 1 : index + 1
        guard all.indices.contains(other) else { return true }
        var order = all.map(\.id)
        order.swapAt(index, other)
        try await renumber(order, on: db)
        return true
    }

    /// Removes a question of a draft; false when its survey is no longer a draft.
    func removeQuestion(_ question: SurveyQuestion, on db: any SQLDatabase) async throws -> Bool {
        guard try await lockDraft(surveyID: question.surveyID, on: db) else { return false }
        try await db.delete(from: "survey_questions").where("id", .equal, question.id).run()
        try await renumber(try await questions(surveyID: question.surveyID, on: db).map(\.id), on: db)
        return true
    }

    private func renumber(_ ids: [Int64], on db: any SQLDatabase) async throws {
        for (index, id) in ids.enumerated() {
            try await db.update("survey_questions").set("position", to: index + 1).where("id", .equal, id).run()
        }
    }

    /// True when the survey is a draft nobody answered, holding its row (on PostgreSQL) until the caller's
    /// transaction ends, so publishing cannot slip between the check and the change.
    private func lockDraft(surveyID: Int64, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("surveys").set(SQLColumn("status"), to: SQLColumn("status"))
            .where("id", .equal, surveyID).where("status", .equal, Survey.Status.draft.rawValue).where("questions_locked", .equal, false)
            .returning("id").first() != nil
    }

    // MARK: Members

    /// The published surveys open on `today` for a member of `cohortID` that she has not answered, soonest closing first.
    func openUnanswered(memberID: Int64, cohortID: Int64, today: CalendarDate, on db: any SQLDatabase) async throws -> [Survey] {
        let rows = try await db.raw(
            """
            SELECT s.id, s.title, s.introduction, s.status, s.opens_on, s.closes_on, s.to_everyone, s.questions_locked, s.announced_at,
                   s.created_by_name, s.created_at, s.published_at, s.closed_at
            FROM surveys s
            WHERE s.status = \(bind: Survey.Status.open.rawValue) AND s.opens_on <= \(bind: today.iso) AND s.closes_on >= \(bind: today.iso)
            AND (s.to_everyone = \(bind: true) OR EXISTS (SELECT 1 FROM survey_cohorts c WHERE c.survey_id = s.id AND c.cohort_id = \(bind: cohortID)))
            AND NOT EXISTS (SELECT 1 FROM survey_responses r WHERE r.survey_id = s.id AND r.member_id = \(bind: memberID))
            ORDER BY s.closes_on, s.id
            LIMIT 50
            """
        ).all()
        return try await decode(rows, on: db)
    }

    func questionCounts(surveyIDs: [Int64], on db: any SQLDatabase) async throws -> [Int64: Int] {
        try await db.counts(in: "survey_questions", by: "survey_id", for: surveyIDs)
    }

    func response(surveyID: Int64, memberID: Int64, on db: any SQLDatabase) async throws -> SurveyResponse? {
        try await db.select().columns("id", "survey_id", "member_id", "client_id", "points_awarded", "submitted_at").from("survey_responses")
            .where("survey_id", .equal, surveyID).where("member_id", .equal, memberID).first()
            .map { row in
                SurveyResponse(
                    id: try row.decode(column: "id", as: Int64.self),
                    surveyID: try row.decode(column: "survey_id", as: Int64.self),
                    memberID: try row.decode(column: "member_id", as: Int64.self),
                    clientID: try row.decode(column: "client_id", as: String.self),
                    pointsAwarded: try row.decode(column: "points_awarded", as: Int.self),
                    submittedAt: Date(millisecondsSince1970: try row.decode(column: "submitted_at", as: Int64.self))
                )
            }
    }

    /// Marks the survey answered if it is open on `today`, locking its questions for ever; false when it is
    /// not open. On PostgreSQL the row stays locked until the caller's transaction ends.
    func lockForAnswers(surveyID: Int64, today: CalendarDate, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("surveys").set("questions_locked", to: true)
            .where("id", .equal, surveyID).where("status", .equal, Survey.Status.open.rawValue)
            .where("opens_on", .lessThanOrEqual, today.iso).where("closes_on", .greaterThanOrEqual, today.iso)
            .returning("id").first() != nil
    }

    /// Stores her response and its answers; nil when she had already answered this survey.
    func insertResponse(
        surveyID: Int64,
        memberID: Int64,
        cohortID: Int64,
        clientID: String,
        answers: [SurveyAnswer],
        pointsAwarded: Int,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Int64? {
        guard
            let id = try await db.insert(into: "survey_responses")
                .columns("survey_id", "member_id", "cohort_id", "client_id", "points_awarded", "submitted_at")
                .values(
                    SQLBind(surveyID),
                    SQLBind(memberID),
                    SQLBind(cohortID),
                    SQLBind(clientID),
                    SQLBind(pointsAwarded),
                    SQLBind(now.millisecondsSince1970)
                )
                .ignoringConflicts(with: ["survey_id", "member_id"])
                .returning("id").first()?.decode(column: "id", as: Int64.self)
        else { return nil }
        try await db.update("surveys").set(SQLIdentifier("response_count"), to: SQLRaw("response_count + 1")).where("id", .equal, surveyID).run()
        guard !answers.isEmpty else { return id }
        var insert = db.insert(into: "survey_answers").columns("response_id", "survey_id", "question_id", "choice", "text")
        for answer in answers {
            insert = insert.values(SQLBind(id), SQLBind(surveyID), SQLBind(answer.questionID), SQLBind(answer.choice), SQLBind(answer.text))
        }
        try await insert.run()
        return id
    }

    /// Takes a member's responses off their surveys' counts; called before her account is deleted, which
    /// deletes them. The caller holds her row (`MemberRepository.hold`), so that no response of hers is
    /// stored meanwhile.
    func uncountResponses(byMember memberID: Int64, on db: any SQLDatabase) async throws {
        try await db.raw(
            """
            UPDATE surveys SET response_count = response_count - 1
            WHERE id IN (SELECT survey_id FROM survey_responses WHERE member_id = \(bind: memberID))
            """
        ).run()
    }

    /// Counts every survey's responses afresh (migration 46).
    static func countResponses(on db: any SQLDatabase) async throws {
        try await db.raw(
            """
            UPDATE surveys SET response_count = (SELECT COUNT(*) FROM survey_responses r WHERE r.survey_id = surveys.id)
            """
        ).run()
    }

    func setPointsAwarded(_ points: Int, responseID: Int64, on db: any SQLDatabase) async throws {
        try await db.update("survey_responses").set("points_awarded", to: points).where("id", .equal, responseID).run()
    }

    // MARK: Results

    /// Which responses a survey holds: their number and the newest one's id. Responses are only ever added
    /// (with ids never reused) or deleted with a member's account, so any change to a survey's answers moves it.
    func answersVersion(surveyID: Int64, on db: any SQLDatabase) async throws -> SurveyAnswersVersion {
        let row = try await db.raw(
            """
            SELECT COUNT(*) AS count, COALESCE(MAX(id), 0) AS last FROM survey_responses WHERE survey_id = \(bind: surveyID)
            """
        ).first()
        return SurveyAnswersVersion(
            surveyID: surveyID,
            responses: try row?.decode(column: "count", as: Int.self) ?? 0,
            lastResponseID: try row?.decode(column: "last", as: Int64.self) ?? 0
        )
    }

    /// How many members answered the survey, as kept on it.
    func responseCount(surveyID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.select().column("response_count").from("surveys").where("id", .equal, surveyID).first()?
            .decode(column: "response_count", as: Int.self) ?? 0
    }

    /// Which responses results count: those submitted in `[start, end)` by members then in `cohortIDs` (any when empty).
    /// The Analytics pages narrow a survey's results this way; the survey's own results page counts every response.
    struct ResponseScope: Sendable, Equatable {
        var start: Date
        var end: Date
        var cohortIDs: [Int64]
    }

    private func scoped(_ scope: ResponseScope?) -> (join: SQLQueryString, filter: SQLQueryString) {
        guard let scope else { return ("", "") }
        var filter: SQLQueryString =
            " AND r.submitted_at >= \(bind: scope.start.millisecondsSince1970) AND r.submitted_at < \(bind: scope.end.millisecondsSince1970)"
        if !scope.cohortIDs.isEmpty { filter += " AND r.cohort_id IN (\(binds: scope.cohortIDs))" }
        return (" JOIN survey_responses r ON r.id = a.response_id", filter)
    }

    /// Per question: how many chose each choice (or point on the scale), and how many members answered it.
    func counts(surveyID: Int64, on db: any SQLDatabase) async throws -> [Int64: QuestionCounts] {
        var counts = try await choiceCounts(surveyID: surveyID, on: db).mapValues { QuestionCounts(byChoice: $0) }
        for row in try await db.raw(
            """
            SELECT a.question_id, COUNT(DISTINCT a.response_id) AS count FROM survey_answers a
            WHERE a.survey_id = \(bind: surveyID) GROUP BY a.question_id
            """
        ).all() {
            counts[try row.decode(column: "question_id", as: Int64.self), default: QuestionCounts()].answered = try row.decode(
                column: "count",
                as: Int.self
            )
        }
        return counts
    }

    /// Per question: how many chose each choice (or point on the scale), of the responses `scope` counts (all when nil).
    func choiceCounts(surveyID: Int64, scope: ResponseScope? = nil, on db: any SQLDatabase) async throws -> [Int64: [Int: Int]] {
        var counts: [Int64: [Int: Int]] = [:]
        let (join, filter) = scoped(scope)
        for row in try await db.raw(
            """
            SELECT a.question_id, a.choice, COUNT(*) AS count FROM survey_answers a\(join)
            WHERE a.survey_id = \(bind: surveyID) AND a.choice IS NOT NULL\(filter)
            GROUP BY a.question_id, a.choice
            """
        ).all() {
            let question = try row.decode(column: "question_id", as: Int64.self)
            counts[question, default: [:]][try row.decode(column: "choice", as: Int.self)] = try row.decode(column: "count", as: Int.self)
        }
        return counts
    }

    /// How many responses `scope` counts.
    func responseCount(surveyID: Int64, scope: ResponseScope, on db: any SQLDatabase) async throws -> Int {
        var query: SQLQueryString = """
            SELECT COUNT(*) AS count FROM survey_responses r WHERE r.survey_id = \(bind: surveyID)
            """
        query += scoped(scope).filter
        return try await db.raw(query).first()?.decode(column: "count", as: Int.self) ?? 0
    }

    /// Published surveys (open or closed), newest first, for choosing one to chart.
    func publishedSurveys(on db: any SQLDatabase) async throws -> [(id: Int64, title: String)] {
        try await db.select().columns("id", "title").from("surveys").where("status", .notEqual, Survey.Status.draft.rawValue)
            .orderBy("opens_on", .descending).orderBy("id", .descending).all()
            .map { (try $0.decode(column: "id", as: Int64.self), try $0.decode(column: "title", as: String.self)) }
    }

    /// A question's free-text answers, newest first (answers are stored as they are submitted, so in `id` order).
    func textAnswers(questionID: Int64, page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<TextAnswer> {
        try await db.seek(
            page,
            order: ListOrder("newest", keys: [.integer("id", table: "a")], descending: true),
            columns: [
                SQLColumn("id", table: "a"), SQLColumn("response_id", table: "a"), SQLColumn("text", table: "a"),
                SQLColumn("submitted_at", table: "r")
            ],
            rows: { builder in
                builder.from(SQLAlias(SQLIdentifier("survey_answers"), as: SQLIdentifier("a")))
                    .join(
                        SQLAlias(SQLIdentifier("survey_responses"), as: SQLIdentifier("r")),
                        method: SQLJoinMethod.inner,
                        on: SQLColumn("response_id", table: "a"),
                        .equal,
                        SQLColumn("id", table: "r")
                    )
                    .where(SQLColumn("question_id", table: "a"), .equal, SQLBind(questionID))
                    .where(SQLColumn("text", table: "a"), .isNot, SQLLiteral.null)
            },
            counted: { builder in
                builder.from(SQLAlias(SQLIdentifier("survey_answers"), as: SQLIdentifier("a")))
                    .where(SQLColumn("question_id", table: "a"), .equal, SQLBind(questionID))
                    .where(SQLColumn("text", table: "a"), .isNot, SQLLiteral.null)
            },
            decode: { row in
                TextAnswer(
                    responseID: try row.decode(column: "response_id", as: Int64.self),
                    text: try row.decode(column: "text", as: String.self),
                    submittedAt: Date(millisecondsSince1970: try row.decode(column: "submitted_at", as: Int64.self))
                )
            }
        )
    }

    /// Every answer of a survey, response by response in the order they came, each response's answers in
    /// its questions' order.
    func exportRows(surveyID: Int64, on db: any SQLDatabase) async throws -> [SurveyExportRow] {
        try await db.raw(
            """
            SELECT r.id AS response_id, c.due_month, r.submitted_at, a.question_id, a.choice, a.text
            FROM survey_answers a
            JOIN survey_responses r ON r.id = a.response_id
            JOIN survey_questions q ON q.id = a.question_id
            LEFT JOIN cohorts c ON c.id = r.cohort_id
            WHERE a.survey_id = \(bind: surveyID)
            ORDER BY r.submitted_at, r.id, q.position, a.choice, a.id
            """
        ).all().map { row in
            SurveyExportRow(
                responseID: try row.decode(column: "response_id", as: Int64.self),
                cohortName: try row.decode(column: "due_month", as: String?.self).map { Cohort(id: 0, dueMonth: $0).name },
                submittedAt: Date(millisecondsSince1970: try row.decode(column: "submitted_at", as: Int64.self)),
                questionID: try row.decode(column: "question_id", as: Int64.self),
                choice: try row.decode(column: "choice", as: Int?.self),
                text: try row.decode(column: "text", as: String?.self)
            )
        }
    }

    // MARK: Decoding

    /// The rows' surveys, with the cohorts of those not to everyone read in one statement.
    private func decode(_ rows: [any SQLRow], on db: any SQLDatabase) async throws -> [Survey] {
        let audiences = try await CohortAudiences(of: rows, in: "survey_cohorts", by: "survey_id", on: db)
        return try rows.map { try decode($0, cohortIDs: audiences.cohortIDs(of: $0)) }
    }

    private func decode(_ row: any SQLRow, cohortIDs: [Int64]?) throws -> Survey {
        let id = try row.decode(column: "id", as: Int64.self)
        func day(_ column: String) throws -> CalendarDate {
            let text = try row.decode(column: column, as: String.self)
            guard let date = CalendarDate(iso: text) else { throw SurveyDataError(message: "surveys.\(column) of \(id) is not a date: \(text)") }
            return date
        }
        return Survey(
            id: id,
            title: try row.decode(column: "title", as: String.self),
            introduction: try row.decode(column: "introduction", as: String.self),
            status: Survey.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .draft,
            opensOn: try day("opens_on"),
            closesOn: try day("closes_on"),
            cohortIDs: cohortIDs,
            questionsLocked: try row.decode(column: "questions_locked", as: Bool.self),
            announcedAt: try row.decode(column: "announced_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            createdByName: try row.decode(column: "created_by_name", as: String.self),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            publishedAt: try row.decode(column: "published_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            closedAt: try row.decode(column: "closed_at", as: Int64?.self).map(Date.init(millisecondsSince1970:))
        )
    }

    private func decodeQuestion(_ row: any SQLRow) throws -> SurveyQuestion {
        let choices = try row.decode(column: "choices", as: String.self)
        return SurveyQuestion(
            id: try row.decode(column: "id", as: Int64.self),
            surveyID: try row.decode(column: "survey_id", as: Int64.self),
            position: try row.decode(column: "position", as: Int.self),
            kind: SurveyQuestion.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .text,
            prompt: try row.decode(column: "prompt", as: String.self),
            required: try row.decode(column: "required", as: Bool.self),
            choices: choices.isEmpty ? [] : choices.components(separatedBy: "\n"),
            scaleLowLabel: try row.decode(column: "scale_low_label", as: String?.self),
            scaleHighLabel: try row.decode(column: "scale_high_label", as: String?.self),
            maximumLength: try row.decode(column: "maximum_length", as: Int?.self)
        )
    }
}

struct SurveyDataError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
