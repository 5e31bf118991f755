import Foundation
import Hummingbird
import PortalPlatform

/// The member app's surveys: what her home screen shows while a survey is open and unanswered, one
/// survey's questions, and her answers. Described in `api/openapi.json` and docs/member-api.md.
enum SurveysAPI {
    struct Summary: Encodable, Sendable {
        let id: Int64
        let title: String
        let introduction: String
        /// The first moment it is closed: the start of the day after its last, on the program's clock.
        let closesAt: Date
        let questionCount: Int
    }

    struct List: Encodable, Sendable {
        let surveys: [Summary]
    }

    struct Choice: Encodable, Sendable {
        /// What to send as `choice` or in `choices`.
        let value: Int
        let label: String
    }

    struct Question: Encodable, Sendable {
        let id: Int64
        let number: Int
        /// `single_choice`, `multiple_choice`, `scale` or `text`.
        let kind: String
        let prompt: String
        let required: Bool
        let choices: [Choice]?
        let scaleMin: Int?
        let scaleMax: Int?
        let scaleMinLabel: String?
        let scaleMaxLabel: String?
        let maximumLength: Int?

        init(_ question: SurveyQuestion, number: Int) {
            id = question.id
            self.number = number
            kind = question.kind.rawValue
            prompt = question.prompt
            required = question.required
            choices = question.kind.hasChoices ? question.choices.enumerated().map { Choice(value: $0.offset + 1, label: $0.element) } : nil
            let isScale = question.kind == .scale
            scaleMin = isScale ? SurveyQuestion.scale.lowerBound : nil
            scaleMax = isScale ? SurveyQuestion.scale.upperBound : nil
            scaleMinLabel = isScale ? question.scaleLowLabel : nil
            scaleMaxLabel = isScale ? question.scaleHighLabel : nil
            maximumLength = question.kind == .text ? question.maximumLength ?? Surveys.defaultTextAnswerLength : nil
        }
    }

    struct Detail: Encodable, Sendable {
        let id: Int64
        let title: String
        let introduction: String
        let closesAt: Date
        let questions: [Question]
        /// When she submitted her answers; absent while she has not.
        let submittedAt: Date?
    }

    struct GivenAnswer: Decodable, Sendable {
        var questionId: Int64?
        var choice: Int?
        var choices: [Int]?
        var scale: Int?
        var text: String?
    }

    struct NewResponse: Decodable, Sendable {
        var clientId: String?
        var answers: [GivenAnswer]?
    }

    struct Submitted: Encodable, Sendable {
        let surveyId: Int64
        let clientId: String
        let submittedAt: Date
        /// What it earned (0 when points for surveys are switched off); the same on a retry.
        let pointsAwarded: Int
    }
}
