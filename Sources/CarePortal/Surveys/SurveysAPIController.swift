import Foundation
import Hummingbird
import PortalPlatform

struct SurveysAPIController {
    let portal: Portal
    let surveys: Surveys

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiSurveys.pattern, access: .member, list)
        routes.get(SiteURL.pattern(SiteURL.apiSurvey), access: .member, show)
        routes.post(SiteURL.pattern(SiteURL.apiSurveyResponses), access: .member, submit)
    }

    private func me(_ context: PortalContext) async throws -> Member {
        let id = try context.requireMember().accountID
        guard let member = try await portal.database.read({ db in try await MemberRepository().find(id: id, on: db) }) else {
            throw APIError.unauthorized
        }
        return member
    }

    private func closesAt(_ survey: Survey) -> Date {
        portal.programSettings.current.clock.instant(startOf: survey.closesOn.adding(days: 1))
    }

    /// `GET /api/v1/surveys`: her open surveys she has not answered, soonest closing first.
    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let member = try await me(context)
        let today = portal.programSettings.current.clock.date(of: portal.now)
        let (open, counts) = try await portal.database.read { db in
            let open = try await surveys.repository.openUnanswered(memberID: member.id, cohortID: member.cohort.id, today: today, on: db)
            return (open, try await surveys.repository.questionCounts(surveyIDs: open.map(\.id), on: db))
        }
        return .json(
            SurveysAPI.List(
                surveys: open.map { survey in
                    SurveysAPI.Summary(
                        id: survey.id,
                        title: survey.title,
                        introduction: survey.introduction,
                        closesAt: closesAt(survey),
                        questionCount: counts[survey.id] ?? 0
                    )
                }
            )
        )
    }

    /// `GET /api/v1/surveys/{id}`: an open survey of hers and its questions, in order.
    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.apiRecordID()
        let member = try await me(context)
        let found = try await portal.database.read { db -> (Survey, [SurveyQuestion], SurveyResponse?)? in
            guard let survey = try await surveys.openSurvey(id: id, for: member, on: db) else { return nil }
            return (
                survey, try await surveys.repository.questions(surveyID: id, on: db),
                try await surveys.repository.response(surveyID: id, memberID: member.id, on: db)
            )
        }
        guard let (survey, questions, response) = found else { throw Surveys.notOpen }
        return .json(
            SurveysAPI.Detail(
                id: survey.id,
                title: survey.title,
                introduction: survey.introduction,
                closesAt: closesAt(survey),
                questions: questions.enumerated().map { SurveysAPI.Question($0.element, number: $0.offset + 1) },
                submittedAt: response?.submittedAt
            )
        )
    }

    /// `POST /api/v1/surveys/{id}/responses`: 201 with what she earned; 200 with the same for a retry under
    /// the same client id; 409 when she already answered under another.
    @Sendable func submit(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.apiRecordID()
        let body = try await request.json(SurveysAPI.NewResponse.self)
        let member = try await me(context)
        let submission = try await surveys.answer(surveyID: id, given: body.answers ?? [], clientID: body.clientId ?? "", by: member)
        return .json(Self.submitted(submission.response), status: submission.isNew ? .created : .ok)
    }

    private static func submitted(_ response: SurveyResponse) -> SurveysAPI.Submitted {
        SurveysAPI.Submitted(
            surveyId: response.surveyID,
            clientId: response.clientID,
            submittedAt: response.submittedAt,
            pointsAwarded: response.pointsAwarded
        )
    }
}
