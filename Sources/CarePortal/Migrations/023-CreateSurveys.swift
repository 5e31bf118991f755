import PortalPlatform
import SQLKit

/// Surveys administrators write for members: their questions, who they are for, and members' answers.
struct CreateSurveys: Migration {
    let version = 23
    let name = "CreateSurveys"
    private static let boolean = SQLDataType.custom(SQLRaw("BOOLEAN"))

    func apply(to db: any SQLDatabase, engine: Database.Engine) async throws {
        try await db.create(table: "surveys")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("title", type: .text, .notNull)
            .column("introduction", type: .text, .notNull)
            // `draft`, `open` or `closed`.
            .column("status", type: .text, .notNull)
            // Days on the program's clock, `YYYY-MM-DD`: open from the start of the first to the end of the last.
            .column("opens_on", type: .text, .notNull)
            .column("closes_on", type: .text, .notNull)
            .column("to_everyone", type: Self.boolean, .notNull)
            // Set by the first answer, in its transaction: from then on the questions never change.
            .column("questions_locked", type: Self.boolean, .notNull, .default(false))
            // When members were told it is open (once, by whichever server claims it).
            .column("announced_at", type: .bigint)
            .column("created_by", type: .bigint)
            .column("created_by_name", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("published_at", type: .bigint)
            .column("closed_at", type: .bigint)
            .run()
        try await db.create(index: "surveys_status").on("surveys").column("status").column("opens_on").run()

        try await db.create(table: "survey_cohorts")
            .column("survey_id", type: .bigint, .notNull, .references("surveys", "id", onDelete: .cascade))
            .column("cohort_id", type: .bigint, .notNull, .references("cohorts", "id", onDelete: .cascade))
            .primaryKey("survey_id", "cohort_id")
            .run()

        try await db.create(table: "survey_questions")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("survey_id", type: .bigint, .notNull, .references("surveys", "id", onDelete: .cascade))
            .column("position", type: .bigint, .notNull)
            // `single_choice`, `multiple_choice`, `scale` or `text`.
            .column("kind", type: .text, .notNull)
            .column("prompt", type: .text, .notNull)
            .column("required", type: Self.boolean, .notNull)
            // The choices of a choice question, one per line, numbered from 1 in answers.
            .column("choices", type: .text, .notNull)
            .column("scale_low_label", type: .text)
            .column("scale_high_label", type: .text)
            .column("maximum_length", type: .bigint)
            .run()
        try await db.create(index: "survey_questions_order").on("survey_questions").column("survey_id").column("position").run()

        // Ids are never reused (SQLite's AUTOINCREMENT; PostgreSQL's sequence), so a survey's number of responses
        // and its newest response's id change with every response added or deleted: the results cache's key.
        try await db.create(table: "survey_responses")
            .column(
                engine == .sqlite
                    ? SQLRaw(#""id" INTEGER PRIMARY KEY AUTOINCREMENT"#)
                    : SQLColumnDefinition("id", dataType: .bigint, constraints: [.primaryKey(autoIncrement: true)])
            )
            .column("survey_id", type: .bigint, .notNull, .references("surveys", "id", onDelete: .cascade))
            // Her answers go with her account when it is deleted.
            .column("member_id", type: .bigint, .notNull, .references("members", "id", onDelete: .cascade))
            .column("cohort_id", type: .bigint, .references("cohorts", "id", onDelete: .setNull))
            .column("client_id", type: .text, .notNull)
            .column("points_awarded", type: .bigint, .notNull)
            .column("submitted_at", type: .bigint, .notNull)
            .run()
        // One response per member per survey.
        try await db.create(index: "survey_responses_once").on("survey_responses").column("survey_id").column("member_id").unique().run()
        try await db.create(index: "survey_responses_member").on("survey_responses").column("member_id").run()

        try await db.create(table: "survey_answers")
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("response_id", type: .bigint, .notNull, .references("survey_responses", "id", onDelete: .cascade))
            .column("survey_id", type: .bigint, .notNull)
            .column("question_id", type: .bigint, .notNull, .references("survey_questions", "id", onDelete: .cascade))
            // The choice (from 1) or the point on the scale (1–5); one row per choice of a multiple-choice answer.
            .column("choice", type: .bigint)
            .column("text", type: .text)
            .run()
        // The results' counts read only this index.
        try await db.create(index: "survey_answers_counts").on("survey_answers")
            .column("survey_id").column("question_id").column("choice").column("response_id").run()
        // A question's written answers, newest first.
        try await db.create(index: "survey_answers_question").on("survey_answers").column("question_id").column("id").run()
        try await db.create(index: "survey_answers_response").on("survey_answers").column("response_id").run()
    }
}
