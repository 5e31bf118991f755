import Foundation
import Hummingbird
import PortalPlatform

extension TemplateName {
    static let appSurveys = TemplateName("app/surveys/list")
    static let appSurvey = TemplateName("app/surveys/survey")
}

/// Surveys in the member's part of the web app (`/app/member/surveys`): her open, unanswered surveys
/// and one survey's questions on one page, answered through `Surveys.answer`, as the member API does
/// (the same checks, points and once-only answer; the form carries its own client id, so sending it
/// twice records it once).
struct SurveysAppController {
    let portal: Portal
    let surveys: Surveys

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.appSurveys.pattern, access: .memberPages, list)
        routes.get(SiteURL.pattern(SiteURL.appSurvey), access: .memberPages, survey)
        routes.post(SiteURL.pattern(SiteURL.appSurvey), access: .memberPages, answer)
    }

    private func me(_ context: PortalContext) async throws -> Member {
        guard let holder = context.appAccount, holder.kind == .member,
            let member = try await portal.database.read({ db in try await MemberRepository().find(id: holder.accountID, on: db) })
        else { throw HTTPError(.notFound) }
        return member
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        portal.appLayout(title, context: context, navigation: .member, currentPath: SiteURL.appSurveys.path)
    }

    private var clock: ProgramClock { portal.programSettings.current.clock }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let member = try await me(context)
        let today = clock.date(of: portal.now)
        let (open, counts) = try await portal.database.read { db in
            let open = try await surveys.repository.openUnanswered(memberID: member.id, cohortID: member.cohort.id, today: today, on: db)
            return (open, try await surveys.repository.questionCounts(surveyIDs: open.map(\.id), on: db))
        }
        return portal.pages.response(AppSurveysPage(layout: layout("Surveys", context), surveys: open, counts: counts))
    }

    /// The survey's page: its questions, or her thanks once answered; 404 when it is not open for her.
    private func page(
        _ id: Int64,
        member: Member,
        context: PortalContext,
        typed: [String: String] = [:],
        problems: [String: String] = [:],
        clientID: String? = nil
    ) async throws -> AppSurveyPage {
        let found = try await portal.database.read { db -> (Survey, [SurveyQuestion], SurveyResponse?)? in
            let response = try await surveys.repository.response(surveyID: id, memberID: member.id, on: db)
            // Her thanks stay after the survey closes; its questions only while it is open.
            guard
                let survey = response == nil
                    ? try await surveys.openSurvey(id: id, for: member, on: db) : try await surveys.repository.find(id: id, on: db)
            else { return nil }
            return (survey, try await surveys.repository.questions(surveyID: id, on: db), response)
        }
        guard let (survey, questions, response) = found else { throw HTTPError(.notFound) }
        return AppSurveyPage(
            layout: layout(survey.title, context),
            survey: survey,
            questions: questions,
            response: response,
            clock: clock,
            typed: typed,
            problems: problems,
            clientID: clientID ?? UUID().uuidString.lowercased()
        )
    }

    @Sendable func survey(request: Request, context: PortalContext) async throws -> Response {
        let member = try await me(context)
        return portal.pages.response(try await page(try context.parameters.recordID(), member: member, context: context))
    }

    @Sendable func answer(request: Request, context: PortalContext) async throws -> Response {
        let member = try await me(context)
        let id = try context.parameters.recordID()
        let form = try await request.form([String: String].self, context: context)
        let questions = try await portal.database.read { db in try await surveys.repository.questions(surveyID: id, on: db) }
        let given = questions.map { question -> SurveysAPI.GivenAnswer in
            let value = form[AppSurveyPage.field(question)]?.trimmed ?? ""
            var answer = SurveysAPI.GivenAnswer(questionId: question.id)
            switch question.kind {
            case .singleChoice: answer.choice = Int(value)
            case .scale: answer.scale = Int(value)
            case .multipleChoice:
                let chosen = question.choices.indices.map { $0 + 1 }.filter { form[AppSurveyPage.field(question, choice: $0)] == "on" }
                answer.choices = chosen.isEmpty ? nil : chosen
            case .text: answer.text = value.isEmpty ? nil : value
            }
            return answer
        }
        let clientID = form["client_id"] ?? ""
        do {
            _ = try await surveys.answer(surveyID: id, given: given, clientID: clientID, by: member)
        } catch let error as APIError where error.status == .unprocessableContent {
            return portal.pages.response(
                try await page(id, member: member, context: context, typed: form, problems: error.fields, clientID: clientID),
                status: .unprocessableContent
            )
        } catch let error as APIError where error.status == .conflict {
            // Answered already (another device): her thanks say so.
        } catch let error as APIError where error.status == .notFound {
            throw HTTPError(.notFound)
        }
        return seeOther(SiteURL.appSurvey(id).path)
    }
}

struct AppSurveysPage: Page {
    static let template = TemplateName.appSurveys

    struct Summary: Encodable, Sendable {
        let title: String
        let introduction: String
        let path: String
        let detail: String
    }

    let layout: Layout
    let surveys: [Summary]

    init(layout: Layout, surveys: [Survey], counts: [Int64: Int]) {
        self.layout = layout
        self.surveys = surveys.map { survey in
            let count = counts[survey.id] ?? 0
            return Summary(
                title: survey.title,
                introduction: survey.introduction,
                path: SiteURL.appSurvey(survey.id).path,
                detail: "\(count == 1 ? "1 question" : "\(count) questions") · open until \(survey.closesOn.weekdayAndDay)"
            )
        }
    }
}

/// One survey: every question on the page, each with its answer as typed and its problem beside it; or,
/// once she has answered, her thanks.
struct AppSurveyPage: Page {
    static let template = TemplateName.appSurvey

    struct Option: Encodable, Sendable {
        let id: String
        let name: String
        let value: String
        let label: String
        let isChecked: Bool
    }

    struct Question: Encodable, Sendable {
        let field: String
        let number: Int
        let prompt: String
        let isOptional: Bool
        let error: String?
        let isText: Bool
        let text: String
        let maximumLength: Int?
        let isCheckboxes: Bool
        let options: [Option]
        let scaleText: String?
    }

    let layout: Layout
    let errors: [FormErrors.Item]
    let title: String
    let introduction: String
    let closesText: String
    let answeredText: String?
    let questions: [Question]
    let clientID: String
    let action: String
    let surveysPath = SiteURL.appSurveys.path

    static func field(_ question: SurveyQuestion) -> String { "q-\(question.id)" }
    static func field(_ question: SurveyQuestion, choice: Int) -> String { "q-\(question.id)-\(choice)" }

    init(
        layout: Layout,
        survey: Survey,
        questions: [SurveyQuestion],
        response: SurveyResponse?,
        clock: ProgramClock,
        typed: [String: String],
        problems: [String: String],
        clientID: String
    ) {
        self.layout = layout
        title = survey.title
        introduction = survey.introduction
        closesText = "Open until the end of \(survey.closesOn.weekdayAndDay)."
        answeredText = response.map { response in
            "You answered on \(clock.dateTime(response.submittedAt)). Thank you!"
                + (response.pointsAwarded > 0 ? " You earned \(response.pointsAwarded) points." : "")
        }
        var errors = FormErrors()
        self.questions =
            response != nil
            ? []
            : questions.enumerated().map { index, question in
                let field = Self.field(question)
                let error = problems["answers.\(question.id)"]
                var options: [Option] = []
                switch question.kind {
                case .singleChoice:
                    options = question.choices.enumerated().map { offset, label in
                        Option(
                            id: offset == 0 ? field : "\(field)-\(offset + 1)",
                            name: field,
                            value: "\(offset + 1)",
                            label: label,
                            isChecked: typed[field] == "\(offset + 1)"
                        )
                    }
                case .multipleChoice:
                    options = question.choices.enumerated().map { offset, label in
                        let name = Self.field(question, choice: offset + 1)
                        return Option(id: offset == 0 ? field : name, name: name, value: "on", label: label, isChecked: typed[name] == "on")
                    }
                case .scale:
                    options = SurveyQuestion.scale.map { point in
                        let label =
                            point == SurveyQuestion.scale.lowerBound
                            ? question.scaleLowLabel.map { "\(point) – \($0)" }
                            : point == SurveyQuestion.scale.upperBound ? question.scaleHighLabel.map { "\(point) – \($0)" } : nil
                        return Option(
                            id: point == SurveyQuestion.scale.lowerBound ? field : "\(field)-\(point)",
                            name: field,
                            value: "\(point)",
                            label: label ?? "\(point)",
                            isChecked: typed[field] == "\(point)"
                        )
                    }
                case .text:
                    break
                }
                if let error { errors.add(field, error) }
                return Question(
                    field: field,
                    number: index + 1,
                    prompt: question.prompt,
                    isOptional: !question.required,
                    error: error,
                    isText: question.kind == .text,
                    text: typed[field] ?? "",
                    maximumLength: question.kind == .text ? question.maximumLength ?? Surveys.defaultTextAnswerLength : nil,
                    isCheckboxes: question.kind == .multipleChoice,
                    options: options,
                    scaleText: question.kind == .scale ? "From 1 to 5." : nil
                )
            }
        for (field, problem) in problems where !field.hasPrefix("answers.") { errors.add(field, problem) }
        self.errors = errors.items
        self.clientID = clientID
        action = SiteURL.appSurvey(survey.id).path
    }
}
