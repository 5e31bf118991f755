import Foundation
import PortalPlatform
import SQLKit

/// What each activity earns, as administrators set it on the Points page.
struct PointsRules: Sendable, Equatable, Encodable {
    var dailySignIn: Int
    var videoWatched: Int
    var moduleCompleted: Int
    var surveyCompleted: Int

    /// The seed's activities (DR6.FR8.0): signing in once a day, watching videos, taking modules and surveys.
    static let defaults = PointsRules(dailySignIn: 1, videoWatched: 3, moduleCompleted: 10, surveyCompleted: 5)
    static let range = 0...100
}

/// The only place the points rules' SQL lives: one program setting each.
struct PointsRulesRepository: Sendable {
    private static let keys = ["points_daily_sign_in", "points_video_watched", "points_module_completed", "points_survey_completed"]

    func rules(on db: any SQLDatabase) async throws -> PointsRules {
        var values: [String: Int] = [:]
        for row in try await db.select().columns("name", "value").from("program_settings").where("name", .in, Self.keys).all() {
            values[try row.decode(column: "name", as: String.self)] = Int(try row.decode(column: "value", as: String.self))
        }
        let defaults = PointsRules.defaults
        return PointsRules(
            dailySignIn: values[Self.keys[0]] ?? defaults.dailySignIn,
            videoWatched: values[Self.keys[1]] ?? defaults.videoWatched,
            moduleCompleted: values[Self.keys[2]] ?? defaults.moduleCompleted,
            surveyCompleted: values[Self.keys[3]] ?? defaults.surveyCompleted
        )
    }

    func save(_ rules: PointsRules, now: Date, on db: any SQLDatabase) async throws {
        for (key, value) in zip(Self.keys, [rules.dailySignIn, rules.videoWatched, rules.moduleCompleted, rules.surveyCompleted]) {
            try await db.insert(into: "program_settings").columns("name", "value", "updated_at")
                .values(SQLBind(key), SQLBind(String(value)), SQLBind(now.millisecondsSince1970))
                .onConflict(with: ["name"]) { $0.set(excludedValueOf: "value").set(excludedValueOf: "updated_at") }
                .run()
        }
    }
}

/// Members' points: earned into the shared ledger, the balance this month on the program's clock.
enum MemberPoints {
    static let dailySignInReason = "daily_sign_in"

    /// Her point for using the app today — once a local day, at sign-in or the first use of her token that
    /// day — in the caller's transaction, with its event. The program's clock and rule are read on `db`.
    static func noteDailySignIn(memberID: Int64, at now: Date, on db: any SQLDatabase) async throws {
        let rules = try await PointsRulesRepository().rules(on: db)
        let clock = try await ProgramSettingsRepository().clock(on: db)
        let awarded = try await PointsLedger().award(
            PointsAward(reason: dailySignInReason, reference: clock.date(of: now).iso, amount: rules.dailySignIn, period: .day),
            to: .member(memberID),
            at: now,
            clock: clock,
            on: db
        )
        guard awarded, let cohortID = try await MemberRepository().find(id: memberID, on: db)?.cohort.id else { return }
        try await MemberEvents().record(
            MemberEvent(kind: .dailySignIn, memberID: memberID, cohortID: cohortID, occurredAt: now, number: Int64(rules.dailySignIn)),
            on: db
        )
    }
}
