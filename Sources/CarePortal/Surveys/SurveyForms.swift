import Foundation
import PortalPlatform

/// A survey's details as typed; every value is kept when the form is shown again.
struct SurveyForm: Decodable, Sendable {
    var title = ""
    var introduction = ""
    var opensDay = ""
    var opensMonth = ""
    var opensYear = ""
    var closesDay = ""
    var closesMonth = ""
    var closesYear = ""
    /// `everyone` or `cohorts`.
    var audience = ""
    var cohorts: [String] = []

    enum CodingKeys: String, CodingKey {
        case title, introduction, audience, cohorts
        case opensDay = "opens_on_day", opensMonth = "opens_on_month", opensYear = "opens_on_year"
        case closesDay = "closes_on_day", closesMonth = "closes_on_month", closesYear = "closes_on_year"
    }

    init() {}

    init(_ survey: Survey) {
        title = survey.title
        introduction = survey.introduction
        (opensDay, opensMonth, opensYear) = (String(survey.opensOn.day), String(survey.opensOn.month), String(survey.opensOn.year))
        (closesDay, closesMonth, closesYear) = (String(survey.closesOn.day), String(survey.closesOn.month), String(survey.closesOn.year))
        audience = survey.cohortIDs == nil ? "everyone" : "cohorts"
        cohorts = (survey.cohortIDs ?? []).map(String.init)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String { try container.decodeIfPresent(String.self, forKey: key) ?? "" }
        title = try text(.title).trimmed
        introduction = try text(.introduction).trimmed
        (opensDay, opensMonth, opensYear) = (try text(.opensDay), try text(.opensMonth), try text(.opensYear))
        (closesDay, closesMonth, closesYear) = (try text(.closesDay), try text(.closesMonth), try text(.closesYear))
        audience = try text(.audience)
        cohorts = try container.decodeIfPresent([String].self, forKey: .cohorts) ?? []
    }

    var opensValue: DateInputValue { DateInputValue(day: opensDay, month: opensMonth, year: opensYear) }
    var closesValue: DateInputValue { DateInputValue(day: closesDay, month: closesMonth, year: closesYear) }

    func validated(today: CalendarDate, cohortIDs known: [Int64]) -> (SurveyDetails?, FormErrors) {
        var errors = FormErrors()
        if let problem = FieldRules.requiredTextProblem(title, name: "a title", maximumLength: Surveys.titleMaximumLength) {
            errors.add("title", problem)
        }
        if introduction.count > Surveys.introductionMaximumLength {
            errors.add("introduction", "The introduction must be \(Surveys.introductionMaximumLength) characters or fewer")
        }
        var opensOn: CalendarDate?, closesOn: CalendarDate?
        switch opensValue.date(named: "The first day", missing: "Enter the first day it is open") {
        case .failure(let problem): errors.add(DateInputField.errorAnchor("opens_on", problem), problem.message)
        case .success(let day): opensOn = day
        }
        switch closesValue.date(named: "The last day", missing: "Enter the last day it is open") {
        case .failure(let problem): errors.add(DateInputField.errorAnchor("closes_on", problem), problem.message)
        case .success(let day):
            if day.dayNumber < today.dayNumber {
                errors.add("closes_on_day", "The last day must be today or later")
            } else if let opensOn, day.dayNumber < opensOn.dayNumber {
                errors.add("closes_on_day", "The last day must be the same as or after the first day")
            } else if day.dayNumber > today.dayNumber + 366 {
                errors.add("closes_on_day", "The last day must be within a year")
            } else {
                closesOn = day
            }
        }
        var cohortIDs: [Int64]?
        switch audience {
        case "everyone": cohortIDs = nil
        case "cohorts":
            let chosen = cohorts.compactMap(Int64.init).filter(known.contains)
            if chosen.isEmpty { errors.add("cohorts", "Choose at least one cohort") }
            cohortIDs = Array(Set(chosen)).sorted()
        default: errors.add("audience", "Choose who the survey is for")
        }
        guard errors.isEmpty, let opensOn, let closesOn else { return (nil, errors) }
        return (SurveyDetails(title: title, introduction: introduction, opensOn: opensOn, closesOn: closesOn, cohortIDs: cohortIDs), errors)
    }
}

/// A question as typed.
struct QuestionForm: Decodable, Sendable {
    var kind = ""
    var prompt = ""
    /// `yes` when members must answer it.
    var required = ""
    /// One choice per line.
    var choices = ""
    var scaleLowLabel = ""
    var scaleHighLabel = ""
    var maximumLength = ""

    enum CodingKeys: String, CodingKey {
        case kind, prompt, required, choices
        case scaleLowLabel = "scale_low_label", scaleHighLabel = "scale_high_label", maximumLength = "maximum_length"
    }

    init(kind: SurveyQuestion.Kind) {
        self.kind = kind.rawValue
        required = "yes"
        maximumLength = kind == .text ? String(Surveys.defaultTextAnswerLength) : ""
    }

    init(_ question: SurveyQuestion) {
        kind = question.kind.rawValue
        prompt = question.prompt
        required = question.required ? "yes" : ""
        choices = question.choices.joined(separator: "\n")
        scaleLowLabel = question.scaleLowLabel ?? ""
        scaleHighLabel = question.scaleHighLabel ?? ""
        maximumLength = question.maximumLength.map(String.init) ?? ""
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String { try container.decodeIfPresent(String.self, forKey: key) ?? "" }
        kind = try text(.kind)
        prompt = try text(.prompt).trimmed
        required = try text(.required)
        choices = try text(.choices)
        scaleLowLabel = try text(.scaleLowLabel).trimmed
        scaleHighLabel = try text(.scaleHighLabel).trimmed
        maximumLength = try text(.maximumLength).trimmed
    }

    var choiceLines: [String] {
        choices.split(whereSeparator: \.isNewline).map { String($0).trimmed }.filter { !$0.isEmpty }
    }

    func validated(kind: SurveyQuestion.Kind) -> (QuestionDraft?, FormErrors) {
        var errors = FormErrors()
        if let problem = FieldRules.requiredTextProblem(prompt, name: "the question", maximumLength: Surveys.promptMaximumLength) {
            errors.add("prompt", problem)
        }
        var draft = QuestionDraft(kind: kind, prompt: prompt, required: required == "yes", choices: [])
        switch kind {
        case .singleChoice, .multipleChoice:
            let lines = choiceLines
            if lines.count < Surveys.choicesRange.lowerBound {
                errors.add("choices", "Enter at least \(Surveys.choicesRange.lowerBound) answers to choose from, one on each line")
            } else if lines.count > Surveys.choicesRange.upperBound {
                errors.add("choices", "Enter \(Surveys.choicesRange.upperBound) answers or fewer")
            } else if lines.contains(where: { $0.count > Surveys.choiceMaximumLength }) {
                errors.add("choices", "Each answer must be \(Surveys.choiceMaximumLength) characters or fewer")
            } else if Set(lines.map { $0.lowercased() }).count != lines.count {
                errors.add("choices", "Each answer must be different")
            }
            draft.choices = lines
        case .scale:
            if let problem = FieldRules.requiredTextProblem(scaleLowLabel, name: "what 1 means", maximumLength: Surveys.scaleLabelMaximumLength) {
                errors.add("scale_low_label", problem)
            }
            if let problem = FieldRules.requiredTextProblem(scaleHighLabel, name: "what 5 means", maximumLength: Surveys.scaleLabelMaximumLength) {
                errors.add("scale_high_label", problem)
            }
            draft.scaleLowLabel = scaleLowLabel
            draft.scaleHighLabel = scaleHighLabel
        case .text:
            let range = Surveys.textAnswerLengths
            if let length = Int(maximumLength), range.contains(length) {
                draft.maximumLength = length
            } else {
                errors.add("maximum_length", "Enter a whole number of characters from \(range.lowerBound) to \(range.upperBound)")
            }
        }
        return errors.isEmpty ? (draft, errors) : (nil, errors)
    }
}
