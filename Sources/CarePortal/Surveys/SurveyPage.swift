import Foundation
import PortalPlatform
import SQLKit

extension SurveyPage {
    /// What a survey's staff page reads beside the survey.
    struct Reads: Sendable {
        let questions: [SurveyQuestion]
        let responses: Int
        let cohorts: [Cohort]

        static func load(_ survey: Survey, repository: SurveyRepository, on db: any SQLDatabase) async throws -> Reads {
            Reads(
                questions: try await repository.questions(surveyID: survey.id, on: db),
                responses: try await repository.responseCount(surveyID: survey.id, on: db),
                cohorts: try await MemberRepository().cohorts(on: db)
            )
        }
    }

    /// Its questions change only while it is a draft nobody has answered.
    init(_ survey: Survey, reads: Reads, today: CalendarDate, clock: ProgramClock, layout: Layout) {
        let (questions, responses) = (reads.questions, reads.responses)
        let editable = survey.status == .draft && !survey.questionsLocked
        let lockedNotice: String? =
            if survey.questionsLocked {
                "\(SurveySummary.count(responses, "member")) answered this survey, so its questions can no longer change."
            } else if survey.status != .draft {
                "Questions can change only while the survey is a draft."
                    + (survey.status == .open ? " Nobody has answered yet: you can take it back to a draft." : "")
            } else {
                nil
            }
        self.init(
            layout: layout,
            summary: SurveySummary(survey, cohorts: reads.cohorts, today: today),
            introduction: survey.introduction,
            createdBy: survey.createdByName,
            created: clock.dateTime(survey.createdAt),
            responses: SurveySummary.count(responses, "response"),
            questions: questions.enumerated().map { index, question in
                SurveyPage.QuestionRow(
                    number: index + 1,
                    kindTitle: question.kind.title,
                    prompt: question.prompt,
                    required: question.required,
                    details: SurveysController.details(of: question),
                    editPath: editable ? SiteURL.surveyQuestion(question.id).path : nil,
                    movePath: editable ? SiteURL.surveyQuestionMove(question.id).path : nil,
                    removePath: editable ? SiteURL.surveyQuestionRemove(question.id).path : nil,
                    canMoveUp: index > 0,
                    canMoveDown: index < questions.count - 1
                )
            },
            isDraft: survey.status == .draft,
            lockedNotice: lockedNotice,
            editPath: editable ? SiteURL.editSurvey(survey.id).path : nil,
            addLinks: editable
                ? SurveyQuestion.Kind.allCases.map { kind in
                    SurveyPage.AddLink(title: kind.title, path: SiteURL.newSurveyQuestion(survey.id).path + "?kind=\(kind.rawValue)")
                } : [],
            publishPath: survey.status == .draft ? SiteURL.surveyPublish(survey.id).path : nil,
            closePath: survey.status == .open ? SiteURL.surveyClose(survey.id).path : nil,
            draftPath: survey.status == .open && !survey.questionsLocked ? SiteURL.surveyBackToDraft(survey.id).path : nil,
            resultsPath: SiteURL.surveyResults(survey.id).path
        )
    }
}

extension SurveyResultsPage {
    /// Each question's answers counted, as a chart and a table, and the newest written answers.
    init(
        _ survey: Survey,
        questions: [SurveyQuestion],
        cohorts: [Cohort],
        results: SurveyResultsData,
        today: CalendarDate,
        clock: ProgramClock,
        pages: PageRenderer,
        layout: Layout
    ) {
        let (counts, texts) = (results.counts, results.texts)
        self.init(
            layout: layout,
            summary: SurveySummary(survey, cohorts: cohorts, today: today),
            responses: SurveySummary.count(results.responses, "response"),
            questions: questions.enumerated().map { index, question in
                let count = counts[question.id] ?? QuestionCounts()
                let labels: [String] =
                    switch question.kind {
                    case .singleChoice, .multipleChoice: question.choices
                    case .scale:
                        SurveyQuestion.scale.map { point in
                            point == 1 ? "1: \(question.scaleLowLabel ?? "")" : point == 5 ? "5: \(question.scaleHighLabel ?? "")" : String(point)
                        }
                    case .text: []
                    }
                let rows = SurveyResultsPage.rows(labels, counts: count.byChoice, answered: count.answered)
                let page = texts[question.id]
                return SurveyResultsPage.QuestionResult(
                    number: index + 1,
                    prompt: question.prompt,
                    kindTitle: question.kind.title,
                    answered: "\(SurveySummary.count(count.answered, "member")) answered"
                        + (question.kind == .multipleChoice ? "; each could choose more than one" : ""),
                    headingID: "question-\(question.id)-heading",
                    chart: rows.isEmpty ? .empty : SurveyResultsPage.chart(questionID: question.id, number: index + 1, rows: rows, pages: pages),
                    rows: rows,
                    isText: question.kind == .text,
                    texts: (page?.items ?? []).map { SurveyResultsPage.Text(text: $0.text, submitted: clock.dateTime($0.submittedAt)) },
                    textCount: page?.totalText ?? "0",
                    answersPath: question.kind == .text ? SiteURL.surveyTextAnswers(question.id).path : nil
                )
            },
            exportPath: SiteURL.surveyResultsCSV(survey.id).path,
            surveyPath: SiteURL.survey(survey.id).path
        )
    }
}
