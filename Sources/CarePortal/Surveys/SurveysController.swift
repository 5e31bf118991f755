import Foundation
import Hummingbird
import PortalPlatform

/// Administrators write surveys (details, then questions of four kinds, while a draft), publish and close
/// them, read the results per question and export every answer as CSV.
struct SurveysController {
    static let access = Access.administrators
    let portal: Portal
    let surveys: Surveys

    private var repository: SurveyRepository { surveys.repository }
    private var clock: ProgramClock { portal.programSettings.current.clock }
    private var today: CalendarDate { clock.date(of: portal.now) }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.surveys.pattern, access: Self.access, list)
        routes.get(SiteURL.newSurvey.pattern, access: Self.access, new)
        routes.post(SiteURL.newSurvey.pattern, access: Self.access, create)
        routes.get(SiteURL.pattern(SiteURL.survey), access: Self.access, show)
        routes.get(SiteURL.pattern(SiteURL.editSurvey), access: Self.access, edit)
        routes.post(SiteURL.pattern(SiteURL.editSurvey), access: Self.access, update)
        routes.get(SiteURL.pattern(SiteURL.newSurveyQuestion), access: Self.access, newQuestion)
        routes.post(SiteURL.pattern(SiteURL.newSurveyQuestion), access: Self.access, addQuestion)
        routes.get(SiteURL.pattern(SiteURL.surveyQuestion), access: Self.access, editQuestion)
        routes.post(SiteURL.pattern(SiteURL.surveyQuestion), access: Self.access, saveQuestion)
        routes.post(SiteURL.pattern(SiteURL.surveyQuestionMove), access: Self.access, moveQuestion)
        routes.post(SiteURL.pattern(SiteURL.surveyQuestionRemove), access: Self.access, removeQuestion)
        routes.post(SiteURL.pattern(SiteURL.surveyPublish), access: Self.access, publish)
        routes.post(SiteURL.pattern(SiteURL.surveyClose), access: Self.access, close)
        routes.post(SiteURL.pattern(SiteURL.surveyBackToDraft), access: Self.access, backToDraft)
        routes.get(SiteURL.pattern(SiteURL.surveyResults), access: Self.access, results)
        routes.get(SiteURL.pattern(SiteURL.surveyResultsCSV), access: Self.access, export)
        routes.get(SiteURL.pattern(SiteURL.surveyTextAnswers), access: Self.access, textAnswers)
    }

    private func cohorts() async throws -> [Cohort] {
        try await portal.database.read { db in try await MemberRepository().cohorts(on: db) }
    }

    private func survey(_ context: PortalContext) async throws -> Survey {
        let id = try context.parameters.recordID()
        guard let survey = try await portal.database.read({ db in try await repository.find(id: id, on: db) }) else { throw HTTPError(.notFound) }
        return survey
    }

    private func question(_ context: PortalContext) async throws -> (SurveyQuestion, Survey) {
        let id = try context.parameters.recordID()
        let found = try await portal.database.read { db -> (SurveyQuestion, Survey)? in
            guard let question = try await repository.question(id: id, on: db), let survey = try await repository.find(id: question.surveyID, on: db)
            else { return nil }
            return (question, survey)
        }
        guard let found else { throw HTTPError(.notFound) }
        return found
    }

    private func auditEvent(_ action: AuditAction, _ surveyID: Int64, detail: String? = nil, request: Request, context: PortalContext) -> AuditEvent {
        AuditEvent(
            actor: context.auditActor,
            action: action,
            recordType: "survey",
            recordID: String(surveyID),
            origin: portal.origin(of: request, context: context),
            detail: detail
        )
    }

    // MARK: The list and a survey's details

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let pageRequest = try request.pageRequest()
        let (page, cohorts) = try await portal.database.read { db in
            (try await repository.list(page: pageRequest, on: db), try await MemberRepository().cohorts(on: db))
        }
        let today = today
        let rows = SurveyRows.html(page.items.map { (SurveySummary($0.survey, cohorts: cohorts, today: today), $0.questionCount, $0.responseCount) })
        return portal.pages.response(
            SurveysPage(
                layout: portal.layout("Surveys", context: context, current: .surveys),
                rows: rows.html,
                hasRows: !rows.isEmpty,
                pagination: portal.pages.html(PaginationView(page, address: ListAddress(path: SiteURL.surveys.path, parameters: []), noun: "surveys"))
            )
        )
    }

    private func formPage(
        _ form: SurveyForm,
        errors: FormErrors,
        surveyID: Int64?,
        context: PortalContext,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let cohorts = try await cohorts()
        let heading = surveyID == nil ? "Create a survey" : "Change the survey's details"
        return portal.pages.response(
            SurveyFormPage(
                form,
                errors: errors,
                cohorts: cohorts,
                timeZone: clock.timeZone,
                heading: heading,
                action: surveyID.map { SiteURL.editSurvey($0).path } ?? SiteURL.newSurvey.path,
                backPath: surveyID.map { SiteURL.survey($0).path } ?? SiteURL.surveys.path,
                backTitle: surveyID == nil ? "All surveys" : "Back to the survey",
                layout: portal.layout(heading, context: context, current: .surveys)
            ),
            status: status
        )
    }

    @Sendable func new(request: Request, context: PortalContext) async throws -> Response {
        try await formPage(SurveyForm(), errors: FormErrors(), surveyID: nil, context: context)
    }

    @Sendable func create(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(SurveyForm.self, context: context)
        let (details, errors) = form.validated(today: today, cohortIDs: try await cohorts().map(\.id))
        guard let details else { return try await formPage(form, errors: errors, surveyID: nil, context: context, status: .unprocessableContent) }
        let staff = try context.requireStaff()
        let id = try await portal.database.transaction { db in
            let id = try await repository.create(details, by: staff, now: portal.now, on: db)
            try await portal.audit.record(auditEvent(.surveyCreated, id, request: request, context: context), on: db)
            return id
        }
        try await portal.flash(Flash(.success, "Survey created. Now add its questions."), context: context)
        return seeOther(.survey(id))
    }

    @Sendable func edit(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        guard survey.status == .draft else { return seeOther(.survey(survey.id)) }
        return try await formPage(SurveyForm(survey), errors: FormErrors(), surveyID: survey.id, context: context)
    }

    @Sendable func update(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        let form = try await request.form(SurveyForm.self, context: context)
        let (details, errors) = form.validated(today: today, cohortIDs: try await cohorts().map(\.id))
        guard let details else {
            return try await formPage(form, errors: errors, surveyID: survey.id, context: context, status: .unprocessableContent)
        }
        let changed = try await portal.database.transaction { db in
            guard try await repository.update(id: survey.id, details, now: portal.now, on: db) else { return false }
            try await portal.audit.record(auditEvent(.surveyChanged, survey.id, detail: "details", request: request, context: context), on: db)
            return true
        }
        try await portal.flash(changed ? Flash(.success, "Survey saved.") : Flash(.warning, Self.notDraftMessage), context: context)
        return seeOther(.survey(survey.id))
    }

    static let notDraftMessage = "This survey is no longer a draft, so it cannot be changed."

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        let reads = try await portal.database.read { db in try await SurveyPage.Reads.load(survey, repository: repository, on: db) }
        let layout = portal.layout(survey.title, context: context, current: .surveys)
        return portal.pages.response(SurveyPage(survey, reads: reads, today: today, clock: clock, layout: layout))
    }

    static func details(of question: SurveyQuestion) -> [String] {
        switch question.kind {
        case .singleChoice, .multipleChoice: question.choices
        case .scale: ["1: \(question.scaleLowLabel ?? "")", "5: \(question.scaleHighLabel ?? "")"]
        case .text: ["Up to \(question.maximumLength ?? Surveys.defaultTextAnswerLength) characters"]
        }
    }

    // MARK: Questions

    private func questionPage(
        _ form: QuestionForm,
        kind: SurveyQuestion.Kind,
        errors: FormErrors,
        heading: String,
        action: String,
        surveyID: Int64,
        context: PortalContext,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        portal.pages.response(
            QuestionFormPage(
                form,
                kind: kind,
                errors: errors,
                heading: heading,
                action: action,
                backPath: SiteURL.survey(surveyID).path,
                layout: portal.layout(heading, context: context, current: .surveys)
            ),
            status: status
        )
    }

    @Sendable func newQuestion(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        guard let kind = SurveyQuestion.Kind(rawValue: request.query("kind") ?? "") else { throw HTTPError(.notFound) }
        guard survey.status == .draft, !survey.questionsLocked else { return seeOther(.survey(survey.id)) }
        return questionPage(
            QuestionForm(kind: kind),
            kind: kind,
            errors: FormErrors(),
            heading: "Add a question",
            action: SiteURL.newSurveyQuestion(survey.id).path,
            surveyID: survey.id,
            context: context
        )
    }

    @Sendable func addQuestion(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        let form = try await request.form(QuestionForm.self, context: context)
        guard let kind = SurveyQuestion.Kind(rawValue: form.kind) else { throw HTTPError(.badRequest) }
        let (draft, errors) = form.validated(kind: kind)
        guard let draft else {
            return questionPage(
                form,
                kind: kind,
                errors: errors,
                heading: "Add a question",
                action: SiteURL.newSurveyQuestion(survey.id).path,
                surveyID: survey.id,
                context: context,
                status: .unprocessableContent
            )
        }
        let added = try await portal.database.transaction { db in
            guard let id = try await repository.addQuestion(draft, surveyID: survey.id, on: db) else { return false }
            try await portal.audit.record(
                auditEvent(.surveyChanged, survey.id, detail: "question \(id) added", request: request, context: context),
                on: db
            )
            return true
        }
        try await portal.flash(added ? Flash(.success, "Question added.") : Flash(.warning, Self.notDraftMessage), context: context)
        return seeOther(.survey(survey.id))
    }

    @Sendable func editQuestion(request: Request, context: PortalContext) async throws -> Response {
        let (question, survey) = try await question(context)
        guard survey.status == .draft, !survey.questionsLocked else { return seeOther(.survey(survey.id)) }
        return questionPage(
            QuestionForm(question),
            kind: question.kind,
            errors: FormErrors(),
            heading: "Change question \(question.position)",
            action: SiteURL.surveyQuestion(question.id).path,
            surveyID: survey.id,
            context: context
        )
    }

    @Sendable func saveQuestion(request: Request, context: PortalContext) async throws -> Response {
        let (question, survey) = try await question(context)
        let form = try await request.form(QuestionForm.self, context: context)
        let (draft, errors) = form.validated(kind: question.kind)
        guard let draft else {
            return questionPage(
                form,
                kind: question.kind,
                errors: errors,
                heading: "Change question \(question.position)",
                action: SiteURL.surveyQuestion(question.id).path,
                surveyID: survey.id,
                context: context,
                status: .unprocessableContent
            )
        }
        let saved = try await portal.database.transaction { db in
            guard try await repository.updateQuestion(question, with: draft, on: db) else { return false }
            try await portal.audit.record(
                auditEvent(.surveyChanged, survey.id, detail: "question \(question.id) changed", request: request, context: context),
                on: db
            )
            return true
        }
        try await portal.flash(saved ? Flash(.success, "Question saved.") : Flash(.warning, Self.notDraftMessage), context: context)
        return seeOther(.survey(survey.id))
    }

    private struct MoveForm: Decodable {
        var direction: String?
    }

    @Sendable func moveQuestion(request: Request, context: PortalContext) async throws -> Response {
        let (question, survey) = try await question(context)
        let form = try await request.form(MoveForm.self, context: context)
        let moved = try await portal.database.transaction { db in
            guard try await repository.moveQuestion(question, up: form.direction == "up", on: db) else { return false }
            try await portal.audit.record(
                auditEvent(
                    .surveyChanged,
                    survey.id,
                    detail: "question \(question.id) moved \(form.direction == "up" ? "up" : "down")",
                    request: request,
                    context: context
                ),
                on: db
            )
            return true
        }
        if !moved { try await portal.flash(Flash(.warning, Self.notDraftMessage), context: context) }
        return seeOther(.survey(survey.id))
    }

    @Sendable func removeQuestion(request: Request, context: PortalContext) async throws -> Response {
        let (question, survey) = try await question(context)
        let removed = try await portal.database.transaction { db in
            guard try await repository.removeQuestion(question, on: db) else { return false }
            try await portal.audit.record(
                auditEvent(.surveyChanged, survey.id, detail: "question \(question.id) removed", request: request, context: context),
                on: db
            )
            return true
        }
        try await portal.flash(removed ? Flash(.success, "Question removed.") : Flash(.warning, Self.notDraftMessage), context: context)
        return seeOther(.survey(survey.id))
    }

    // MARK: Publishing

    @Sendable func publish(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        let outcome = try await surveys.publish(id: survey.id, actor: context.auditActor, origin: portal.origin(of: request, context: context))
        let flash =
            switch outcome {
            case .published(let announced?): Flash(.success, "Survey published. \(SurveySummary.count(announced, "member")) told it is open.")
            case .published(nil): Flash(.success, "Survey published. Members will be told on \(SurveySummary.day(survey.opensOn)), when it opens.")
            case .noQuestions: Flash(.warning, "Add at least one question before you publish the survey.")
            case .closesInThePast: Flash(.warning, "The survey's last day has passed. Change its days before you publish it.")
            case .notDraft: Flash(.warning, "This survey has already been published.")
            }
        try await portal.flash(flash, context: context)
        return seeOther(.survey(survey.id))
    }

    @Sendable func close(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        let closed = try await surveys.close(id: survey.id, actor: context.auditActor, origin: portal.origin(of: request, context: context))
        try await portal.flash(
            closed
                ? Flash(.success, "Survey closed. Members can no longer answer it.")
                : Flash(.warning, "This survey is not open."),
            context: context
        )
        return seeOther(.survey(survey.id))
    }

    @Sendable func backToDraft(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        let done = try await surveys.returnToDraft(id: survey.id, actor: context.auditActor, origin: portal.origin(of: request, context: context))
        try await portal.flash(
            done
                ? Flash(.success, "The survey is a draft again: members no longer see it.")
                : Flash(.warning, "Members have answered this survey, so it cannot go back to a draft."),
            context: context
        )
        return seeOther(.survey(survey.id))
    }

    // MARK: Results

    @Sendable func results(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        let (questions, cohorts) = try await portal.database.read { db in
            (try await repository.questions(surveyID: survey.id, on: db), try await MemberRepository().cohorts(on: db))
        }
        let results = try await surveys.results(of: survey, questions: questions)
        return portal.pages.response(
            SurveyResultsPage(
                survey,
                questions: questions,
                cohorts: cohorts,
                results: results,
                today: today,
                clock: clock,
                pages: portal.pages,
                layout: portal.layout("Results: \(survey.title)", context: context, current: .surveys)
            )
        )
    }

    @Sendable func textAnswers(request: Request, context: PortalContext) async throws -> Response {
        let (question, survey) = try await question(context)
        guard question.kind == .text else { throw HTTPError(.notFound) }
        let pageRequest = try request.pageRequest()
        let page = try await portal.database.read { db in try await repository.textAnswers(questionID: question.id, page: pageRequest, on: db) }
        return portal.pages.response(
            TextAnswersPage(
                layout: portal.layout("Answers: \(question.prompt)", context: context, current: .surveys),
                surveyTitle: survey.title,
                prompt: question.prompt,
                count: SurveySummary.count(page, "answer"),
                answers: page.items.map { SurveyResultsPage.Text(text: $0.text, submitted: clock.dateTime($0.submittedAt)) },
                pagination: portal.pages.html(
                    PaginationView(page, address: ListAddress(path: SiteURL.surveyTextAnswers(question.id).path, parameters: []), noun: "answers")
                ),
                resultsPath: SiteURL.surveyResults(survey.id).path
            )
        )
    }

    static let csvHeader = ["survey_id", "response", "cohort", "submitted_at_utc", "question_number", "question", "kind", "answer_number", "answer"]
    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Every answer, one row each (a multiple-choice answer one row per choice), free text included. Audited.
    @Sendable func export(request: Request, context: PortalContext) async throws -> Response {
        let survey = try await survey(context)
        let (questions, rows) = try await portal.database.transaction { db in
            try await portal.audit.record(auditEvent(.surveyResultsExported, survey.id, request: request, context: context), on: db)
            return (try await repository.questions(surveyID: survey.id, on: db), try await repository.exportRows(surveyID: survey.id, on: db))
        }
        let byID = Dictionary(uniqueKeysWithValues: questions.enumerated().map { ($0.element.id, ($0.offset + 1, $0.element)) })
        let lines =
            [Self.csvHeader]
            + rows.compactMap { row -> [String]? in
                guard let (number, question) = byID[row.questionID] else { return nil }
                let answer: String =
                    if let choice = row.choice {
                        question.kind == .scale ? String(choice) : question.choices.indices.contains(choice - 1) ? question.choices[choice - 1] : ""
                    } else {
                        row.text ?? ""
                    }
                return [
                    String(survey.id), String(row.responseID), row.cohortName ?? "", Self.timestampStyle.format(row.submittedAt), String(number),
                    question.prompt, question.kind.rawValue, row.choice.map(String.init) ?? "", answer
                ]
            }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8",
                .contentDisposition: "attachment; filename=\"survey-\(survey.id)-results-\(DisplayTime.isoDate(portal.now)).csv\""
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: try CSVExport.bytes(rows: lines)))
        )
    }
}
