import PortalPlatform
import SQLKit

/// Each survey's number of responses, kept on the survey as responses are stored and as members who gave
/// them are deleted (`SurveyRepository.insertResponse`, `uncountResponses`), rather than counted from the
/// responses each time the surveys' list shows them: its first page counted every response to the newest
/// survey. The responses already there are counted here.
struct KeepSurveyResponseCounts: Migration {
    let version = 46
    let name = "KeepSurveyResponseCounts"

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.alter(table: "surveys").column("response_count", type: .bigint, .notNull, .default(0)).run()
        try await SurveyRepository.countResponses(on: db)
    }
}
