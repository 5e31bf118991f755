import Foundation
import PortalPlatform

/// The choices form every analytics page starts with (a GET form: the choices live in the address).
struct AnalyticsChoicesForm: Sendable, Encodable {
    struct CohortChoice: Sendable, Encodable {
        let id: String
        let name: String
        let isChosen: Bool
    }

    let action: String
    let ranges: [FilterOption]
    let isCustom: Bool
    let from: String
    let to: String
    let granularities: [FilterOption]
    let comparisons: [FilterOption]
    let cohorts: [CohortChoice]
    /// The surveys to choose from, on the survey results' page only.
    let surveys: [FilterOption]
    let hasSurveys: Bool
    let errors: [FormErrors.Item]
    let fromError: String?
    let toError: String?

    init(action: String, choices: AnalyticsChoices, cohorts: [AnalyticsCohort], period: ClosedRange<AnalyticsDay>, surveys: [FilterOption]? = nil) {
        self.surveys = surveys ?? []
        hasSurveys = !(surveys ?? []).isEmpty
        self.action = action
        ranges = AnalyticsChoices.Range.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == choices.range) }
        isCustom = choices.range == .custom
        from = choices.from?.iso ?? period.lowerBound.date.iso
        to = choices.to?.iso ?? period.upperBound.date.iso
        granularities = AnalyticsChoices.Granularity.allCases.map {
            FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == choices.granularity)
        }
        comparisons = AnalyticsChoices.Comparison.allCases.map {
            FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0 == choices.comparison)
        }
        self.cohorts = cohorts.map { CohortChoice(id: String($0.id), name: $0.name, isChosen: choices.cohortIDs.contains($0.id)) }
        let anchors = ["range": "range", "by": "by", "compare": "compare", "cohort": "cohorts", "from": "from", "to": "to", "survey": "survey"]
        errors = choices.problems.sorted { $0.key < $1.key }.map { FormErrors.Item(field: anchors[$0.key] ?? $0.key, message: $0.value) }
        fromError = choices.problems["from"]
        toError = choices.problems["to"]
    }
}

struct AnalyticsOverviewPage: Page {
    static let template = TemplateName.analyticsOverview

    struct Topic: Sendable, Encodable {
        let title: String
        let summary: String
        let path: String
    }

    let layout: Layout
    let topics: [Topic]
    let exportPath: String
    let eventsToday: String
    let activeLastWeek: String
}

struct AnalyticsTopicPage: Page {
    static let template = TemplateName.analyticsTopic
    let layout: Layout
    let heading: String
    let summary: String
    let overviewPath: String
    let periodText: String
    let form: AnalyticsChoicesForm
    /// The graphs' HTML, each with its table and CSV link.
    let graphs: [RenderedHTML]
    let nothingToShow: String?
}

struct AnalyticsExportPage: Page {
    static let template = TemplateName.analyticsExport
    let layout: Layout
    let overviewPath: String
    let action: String
    let csrfToken: String
    let form: AnalyticsChoicesForm
    let columns: [AnalyticsExport.Column]
}
