import Foundation
import Hummingbird
import PortalPlatform

/// Administrators' Learning pages: the baby's development week by week, and what each activity earns.
struct LearningController {
    static let access = Access.administrators
    static let sizeMaximumLength = 80
    static let textMaximumLength = 1_000
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.learning.pattern, access: Self.access, overview)
        routes.get(SiteURL.pattern(SiteURL.babyWeek), access: Self.access, editWeek)
        routes.post(SiteURL.pattern(SiteURL.babyWeek), access: Self.access, saveWeek)
        routes.get(SiteURL.pointsRules.pattern, access: Self.access, showRules)
        routes.post(SiteURL.pointsRules.pattern, access: Self.access, saveRules)
    }

    @Sendable func overview(request: Request, context: PortalContext) async throws -> Response {
        let (weeks, rules) = try await portal.database.read { db in
            (try await BabyWeekRepository().all(on: db), try await PointsRulesRepository().rules(on: db))
        }
        let written = Dictionary(uniqueKeysWithValues: weeks.map { ($0.week, $0) })
        return portal.pages.response(
            LearningPage(
                layout: portal.layout("Learning", context: context, current: .learning),
                weeks: BabyWeek.weeks.map { number in
                    LearningPage.WeekRow(
                        week: number,
                        trimester: BabyWeek.trimesterTitle(BabyWeek.trimester(of: number)),
                        size: written[number]?.size,
                        path: SiteURL.babyWeek(number).path
                    )
                },
                missing: BabyWeek.weeks.count - weeks.count,
                rules: rules,
                rulesPath: SiteURL.pointsRules.path,
                modulesPath: SiteURL.learningModules.path,
                videosPath: SiteURL.learningVideos.path
            )
        )
    }

    private func week(_ context: PortalContext) throws -> Int {
        guard let text = context.parameters.get("week"), let week = Int(text), BabyWeek.weeks.contains(week) else { throw HTTPError(.notFound) }
        return week
    }

    @Sendable func editWeek(request: Request, context: PortalContext) async throws -> Response {
        let number = try week(context)
        let found = try await portal.database.read { db in try await BabyWeekRepository().find(week: number, on: db) }
        return portal.pages.response(
            weekPage(found ?? BabyWeek(week: number, size: "", mother: "", baby: ""), errors: FormErrors(), context: context)
        )
    }

    private struct WeekForm: Decodable {
        var size: String?
        var mother: String?
        var baby: String?
    }

    @Sendable func saveWeek(request: Request, context: PortalContext) async throws -> Response {
        let number = try week(context)
        let form = try await request.form(WeekForm.self, context: context)
        let week = BabyWeek(week: number, size: form.size?.trimmed ?? "", mother: form.mother?.trimmed ?? "", baby: form.baby?.trimmed ?? "")
        var errors = FormErrors()
        if let problem = FieldRules.requiredTextProblem(
            week.size,
            name: "the baby's size, like the size of a lime",
            maximumLength: Self.sizeMaximumLength
        ) {
            errors.add("size", problem)
        }
        if let problem = FieldRules.requiredTextProblem(
            week.mother,
            name: "what the mother may be experiencing",
            maximumLength: Self.textMaximumLength
        ) {
            errors.add("mother", problem)
        }
        if let problem = FieldRules.requiredTextProblem(week.baby, name: "what is happening to the baby", maximumLength: Self.textMaximumLength) {
            errors.add("baby", problem)
        }
        guard errors.isEmpty else { return portal.pages.response(weekPage(week, errors: errors, context: context), status: .unprocessableContent) }
        let origin = portal.origin(of: request, context: context)
        try await portal.database.transaction { db in
            try await BabyWeekRepository().save(week, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .babyWeekChanged,
                    recordType: "baby_week",
                    recordID: String(number),
                    origin: origin
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "Week \(number) saved."), context: context)
        return seeOther(.learning)
    }

    private func weekPage(_ week: BabyWeek, errors: FormErrors, context: PortalContext) -> BabyWeekPage {
        var fields = [
            FormField(
                "size",
                label: "The baby's size",
                value: week.size,
                hint: "Compared to a fruit or vegetable, like the size of a lime",
                width: 30
            )
        ]
        errors.apply(to: &fields)
        func error(_ field: String) -> String? { errors.items.first { $0.field == field }?.message }
        return BabyWeekPage(
            layout: portal.layout("Week \(week.week)", context: context, current: .learning),
            errors: errors.items,
            week: week.week,
            trimester: BabyWeek.trimesterTitle(week.trimester),
            sizeField: fields[0],
            mother: week.mother,
            motherError: error("mother"),
            baby: week.baby,
            babyError: error("baby"),
            maximum: Self.textMaximumLength,
            action: SiteURL.babyWeek(week.week).path,
            backPath: SiteURL.learning.path
        )
    }

    @Sendable func showRules(request: Request, context: PortalContext) async throws -> Response {
        let rules = try await portal.database.read { db in try await PointsRulesRepository().rules(on: db) }
        return portal.pages.response(rulesPage(PointsRulesForm(rules), errors: FormErrors(), context: context))
    }

    @Sendable func saveRules(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(PointsRulesForm.self, context: context)
        let (rules, errors) = form.validated()
        guard let rules, errors.isEmpty else {
            return portal.pages.response(rulesPage(form, errors: errors, context: context), status: .unprocessableContent)
        }
        let origin = portal.origin(of: request, context: context)
        try await portal.database.transaction { db in
            try await PointsRulesRepository().save(rules, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .pointsRulesChanged,
                    recordType: "points_rules",
                    origin: origin,
                    detail:
                        "sign-in \(rules.dailySignIn), video \(rules.videoWatched), module \(rules.moduleCompleted), survey \(rules.surveyCompleted)"
                ),
                on: db
            )
        }
        try await portal.flash(Flash(.success, "Points saved. They apply to what members do from now on."), context: context)
        return seeOther(.learning)
    }

    private func rulesPage(_ form: PointsRulesForm, errors: FormErrors, context: PortalContext) -> PointsRulesPage {
        let hint = "A whole number from \(PointsRules.range.lowerBound) to \(PointsRules.range.upperBound); 0 earns nothing."
        var fields = [
            FormField("daily_sign_in", label: "Using the app, once a day", value: form.dailySignIn, hint: hint, width: 10),
            FormField("video_watched", label: "Watching a video", value: form.videoWatched, hint: hint, width: 10),
            FormField("module_completed", label: "Completing a learning module", value: form.moduleCompleted, hint: hint, width: 10),
            FormField("survey_completed", label: "Completing a survey", value: form.surveyCompleted, hint: hint, width: 10)
        ]
        errors.apply(to: &fields)
        return PointsRulesPage(
            layout: portal.layout("Points", context: context, current: .learning),
            errors: errors.items,
            fields: fields,
            action: SiteURL.pointsRules.path,
            backPath: SiteURL.learning.path
        )
    }
}

struct PointsRulesForm: Decodable, Sendable {
    var dailySignIn: String
    var videoWatched: String
    var moduleCompleted: String
    var surveyCompleted: String

    enum CodingKeys: String, CodingKey {
        case dailySignIn = "daily_sign_in", videoWatched = "video_watched", moduleCompleted = "module_completed", surveyCompleted = "survey_completed"
    }

    init(_ rules: PointsRules) {
        dailySignIn = String(rules.dailySignIn)
        videoWatched = String(rules.videoWatched)
        moduleCompleted = String(rules.moduleCompleted)
        surveyCompleted = String(rules.surveyCompleted)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String { (try container.decodeIfPresent(String.self, forKey: key) ?? "").trimmed }
        dailySignIn = try text(.dailySignIn)
        videoWatched = try text(.videoWatched)
        moduleCompleted = try text(.moduleCompleted)
        surveyCompleted = try text(.surveyCompleted)
    }

    func validated() -> (PointsRules?, FormErrors) {
        var errors = FormErrors()
        func number(_ text: String, _ field: String) -> Int {
            guard let value = Int(text), PointsRules.range.contains(value) else {
                errors.add(field, "Enter a whole number of points from \(PointsRules.range.lowerBound) to \(PointsRules.range.upperBound)")
                return 0
            }
            return value
        }
        let rules = PointsRules(
            dailySignIn: number(dailySignIn, "daily_sign_in"),
            videoWatched: number(videoWatched, "video_watched"),
            moduleCompleted: number(moduleCompleted, "module_completed"),
            surveyCompleted: number(surveyCompleted, "survey_completed")
        )
        return errors.isEmpty ? (rules, errors) : (nil, errors)
    }
}

struct LearningPage: Page {
    struct WeekRow: Sendable, Encodable {
        let week: Int
        let trimester: String
        let size: String?
        let path: String
    }

    static let template = TemplateName.learning
    let layout: Layout
    let weeks: [WeekRow]
    let missing: Int
    let rules: PointsRules
    let rulesPath: String
    let modulesPath: String
    let videosPath: String
}

struct BabyWeekPage: Page {
    static let template = TemplateName.babyWeek
    let layout: Layout
    let errors: [FormErrors.Item]
    let week: Int
    let trimester: String
    let sizeField: FormField
    let mother: String
    let motherError: String?
    let baby: String
    let babyError: String?
    let maximum: Int
    let action: String
    let backPath: String
}

struct PointsRulesPage: Page {
    static let template = TemplateName.pointsRules
    let layout: Layout
    let errors: [FormErrors.Item]
    let fields: [FormField]
    let action: String
    let backPath: String
}
