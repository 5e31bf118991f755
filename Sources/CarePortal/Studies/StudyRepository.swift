import Foundation
import PortalPlatform
import SQLKit

/// A study id already used by another participant.
struct StudyCodeTaken: Error {}

/// The only place the study's SQL lives (its events go through `MemberEvents`).
struct StudyRepository: Sendable {
    // MARK: Participants

    private static let participantColumns = [
        "id", "study_code", "arm", "email", "enrolled_on", "withdrawn_on", "status", "username", "must_change_password",
        "last_active_at", "created_at", "claim_sent_at", "claim_expires_at", "claim_revoked_at", "claimed_at"
    ]

    private func participant(_ row: any SQLRow) throws -> StudyParticipant {
        func instant(_ column: String) throws -> Date? {
            try row.decode(column: column, as: Int64?.self).map(Date.init(millisecondsSince1970:))
        }
        return StudyParticipant(
            id: try row.decode(column: "id", as: Int64.self),
            studyCode: try row.decode(column: "study_code", as: String.self),
            arm: try row.decode(column: "arm", as: String?.self),
            email: try row.decode(column: "email", as: String?.self),
            enrolledOn: CalendarDate(iso: try row.decode(column: "enrolled_on", as: String.self)) ?? CalendarDate(dayNumber: 0),
            withdrawnOn: try row.decode(column: "withdrawn_on", as: String?.self).flatMap(CalendarDate.init(iso:)),
            status: StudyParticipant.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .withdrawn,
            username: try row.decode(column: "username", as: String.self),
            mustChangePassword: try row.decode(column: "must_change_password", as: Int64.self) != 0,
            lastActiveAt: try row.decode(column: "last_active_at", as: Int64?.self).map(Date.init(millisecondsSince1970:)),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            claim: try instant("claim_sent_at").map { sentAt in
                StudyClaim(
                    sentAt: sentAt,
                    expiresAt: try instant("claim_expires_at"),
                    revokedAt: try instant("claim_revoked_at"),
                    claimedAt: try instant("claimed_at")
                )
            }
        )
    }

    /// Enrols a participant with her app login; throws `StudyCodeTaken` when the id is in use. With a
    /// `claimToken` she is to claim the account with it (and `passwordHash` is of a password nobody knows).
    func enrol(
        studyCode: String,
        arm: String?,
        email: String?,
        enrolledOn: CalendarDate,
        passwordHash: String,
        claimToken: ClaimToken? = nil,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Int64 {
        let key = StudyRules.studyCodeKey(studyCode)
        let username = StudyRules.username(for: studyCode)
        if try await db.select().column("id").from("study_participants")
            .where("study_code_key", .equal, key).orWhere("username_key", .equal, username).first() != nil
        {
            throw StudyCodeTaken()
        }
        let time = now.millisecondsSince1970
        guard
            let row = try await db.insert(into: "study_participants")
                .columns(
                    "study_code",
                    "study_code_key",
                    "arm",
                    "email",
                    "enrolled_on",
                    "status",
                    "username",
                    "username_key",
                    "password_hash",
                    "must_change_password",
                    "created_at",
                    "updated_at"
                )
                .values(
                    SQLBind(studyCode),
                    SQLBind(key),
                    SQLBind(arm),
                    SQLBind(email),
                    SQLBind(enrolledOn.iso),
                    SQLBind(StudyParticipant.Status.active.rawValue),
                    SQLBind(username),
                    SQLBind(username),
                    SQLBind(passwordHash),
                    SQLBind(Int64(1)),
                    SQLBind(time),
                    SQLBind(time)
                )
                .returning("id")
                .first()
        else { throw StudyCodeTaken() }
        let id = try row.decode(column: "id", as: Int64.self)
        if let claimToken { _ = try await Self.claims.issue(ownerID: id, token: claimToken, now: now, on: db) }
        return id
    }

    func participant(id: Int64, on db: any SQLDatabase) async throws -> StudyParticipant? {
        try await db.select().columns(Self.participantColumns).from("study_participants").where("id", .equal, id).first().map(participant)
    }

    /// The study ids of these participants (those still enrolled), by participant.
    func studyCodes(ids: [Int64], on db: any SQLDatabase) async throws -> [Int64: String] {
        guard !ids.isEmpty else { return [:] }
        var codes: [Int64: String] = [:]
        for row in try await db.select().columns("id", "study_code").from("study_participants").where("id", .in, ids).all() {
            codes[try row.decode(column: "id", as: Int64.self)] = try row.decode(column: "study_code", as: String.self)
        }
        return codes
    }

    /// Every participant, by study id.
    func participants(on db: any SQLDatabase) async throws -> [StudyParticipant] {
        try await db.select().columns(Self.participantColumns).from("study_participants").orderBy("study_code_key").all().map(participant)
    }

    /// One page of the participants, by study id, for the participants list.
    func participants(page: PageRequest, on db: any SQLDatabase) async throws -> PageOf<StudyParticipant> {
        try await db.seek(
            page,
            order: ListOrder("study-id", keys: [.text("study_code_key"), .integer("id")], descending: false),
            columns: (Self.participantColumns + ["study_code_key"]).map { SQLColumn($0) },
            rows: { $0.from("study_participants") },
            decode: participant
        )
    }

    /// The account a username signs in to.
    func credentials(username: String, on db: any SQLDatabase) async throws -> (id: Int64, passwordHash: String, active: Bool)? {
        guard
            let row = try await db.select().columns("id", "password_hash", "status").from("study_participants")
                .where("username_key", .equal, username.trimmed.lowercased()).first()
        else { return nil }
        return (
            try row.decode(column: "id", as: Int64.self), try row.decode(column: "password_hash", as: String.self),
            try row.decode(column: "status", as: String.self) == StudyParticipant.Status.active.rawValue
        )
    }

    func passwordHash(id: Int64, on db: any SQLDatabase) async throws -> String? {
        try await db.select().column("password_hash").from("study_participants").where("id", .equal, id).first()?
            .decode(column: "password_hash", as: String.self)
    }

    /// Her own password, replacing the one-time one.
    func setPassword(id: Int64, hash: String, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("study_participants")
            .set("password_hash", to: hash).set("must_change_password", to: Int64(0)).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    func markActive(id: Int64, at now: Date, on db: any SQLDatabase) async throws {
        try await db.update("study_participants").set("last_active_at", to: now.millisecondsSince1970).where("id", .equal, id).run()
    }

    /// Withdraws an active participant; false when she was not active.
    func withdraw(id: Int64, on day: CalendarDate, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.update("study_participants")
            .set("status", to: StudyParticipant.Status.withdrawn.rawValue)
            .set("withdrawn_on", to: day.iso)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("status", .equal, StudyParticipant.Status.active.rawValue)
            .returning("id").first() != nil
    }

    /// Deletes her and everything that is hers (tokens, marks, opens go by their foreign keys; her feedback goes with `FeedbackRepository.deleteAll`);
    /// her events stay counted, no longer hers.
    func delete(id: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "study_participants").where("id", .equal, id).run()
    }

    /// How many participants are in each status.
    func statusCounts(on db: any SQLDatabase) async throws -> [StudyParticipant.Status: Int] {
        let rows = try await db.select().column("status").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count")
            .from("study_participants").groupBy("status").all()
        var counts: [StudyParticipant.Status: Int] = [:]
        for row in rows {
            if let status = StudyParticipant.Status(rawValue: try row.decode(column: "status", as: String.self)) {
                counts[status] = try row.decode(column: "count", as: Int.self)
            }
        }
        return counts
    }

    /// Per status, how many participants, the highest id, and the latest enrolment and change: enrolling,
    /// withdrawing or deleting anyone moves at least one of them.
    struct ParticipantsVersion: Sendable, Equatable {
        let status: String
        let count: Int
        let lastID: Int64
        let lastCreated: Int64
        let lastUpdated: Int64
    }

    func participantsVersion(on db: any SQLDatabase) async throws -> [ParticipantsVersion] {
        try await db.select().column("status")
            .column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count")
            .column(SQLFunction("MAX", args: SQLColumn("id")), as: "last_id")
            .column(SQLFunction("MAX", args: SQLColumn("created_at")), as: "last_created")
            .column(SQLFunction("MAX", args: SQLColumn("updated_at")), as: "last_updated")
            .from("study_participants").groupBy("status").orderBy("status").all().map { row in
                ParticipantsVersion(
                    status: try row.decode(column: "status", as: String.self),
                    count: try row.decode(column: "count", as: Int.self),
                    lastID: try row.decode(column: "last_id", as: Int64.self),
                    lastCreated: try row.decode(column: "last_created", as: Int64.self),
                    lastUpdated: try row.decode(column: "last_updated", as: Int64.self)
                )
            }
    }

    /// How many participants were in the study on each day from `first` to `last`: enrolled on or before
    /// it and not withdrawn on or before it (her last day is the day before she withdrew). Counted in
    /// SQL: those who joined or left before `first`, then the joins and leaves on each day of the range.
    func inStudyPerDay(from first: CalendarDate, through last: CalendarDate, on db: any SQLDatabase) async throws -> [Int: Int] {
        guard first <= last else { return [:] }
        /// Never in the study: withdrawn on or before the day she was to start.
        func counted(_ query: SQLSelectBuilder) -> SQLSelectBuilder {
            query.where { group in
                group.where("withdrawn_on", .is, SQLLiteral.null).orWhere(SQLColumn("withdrawn_on"), .greaterThan, SQLColumn("enrolled_on"))
            }
        }
        func changes(_ column: String) async throws -> (before: Int, perDay: [Int: Int]) {
            let before =
                try await counted(
                    db.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count")
                        .from("study_participants").where(column, .lessThan, first.iso)
                ).first()?.decode(column: "count", as: Int.self) ?? 0
            var perDay: [Int: Int] = [:]
            for row in try await counted(
                db.select().column(SQLColumn(column), as: "day").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count")
                    .from("study_participants").where(column, .greaterThanOrEqual, first.iso).where(column, .lessThanOrEqual, last.iso)
            )
            .groupBy(column).all() {
                guard let day = CalendarDate(iso: try row.decode(column: "day", as: String.self)) else { continue }
                perDay[day.dayNumber] = try row.decode(column: "count", as: Int.self)
            }
            return (before, perDay)
        }
        let joined = try await changes("enrolled_on")
        let left = try await changes("withdrawn_on")
        var inStudy: [Int: Int] = [:]
        var count = joined.before - left.before
        for day in first.dayNumber...last.dayNumber {
            count += (joined.perDay[day] ?? 0) - (left.perDay[day] ?? 0)
            inStudy[day] = count
        }
        return inStudy
    }

    // MARK: Daily to-dos

    private static let itemColumns = ["id", "title", "starts_on", "ends_on", "position", "replaces_id"]

    private func item(_ row: any SQLRow) throws -> StudyTodoItem {
        StudyTodoItem(
            id: try row.decode(column: "id", as: Int64.self),
            title: try row.decode(column: "title", as: String.self),
            startsOn: CalendarDate(iso: try row.decode(column: "starts_on", as: String.self)) ?? CalendarDate(dayNumber: 0),
            endsOn: try row.decode(column: "ends_on", as: String?.self).flatMap(CalendarDate.init(iso:)),
            position: try row.decode(column: "position", as: Int.self),
            replacesID: try row.decode(column: "replaces_id", as: Int64?.self)
        )
    }

    /// Every item the study has had, in order.
    func schedule(on db: any SQLDatabase) async throws -> StudySchedule {
        StudySchedule(
            items: try await db.select().columns(Self.itemColumns).from("study_todo_items").orderBy("position").orderBy("id").all().map(item)
        )
    }

    func item(id: Int64, on db: any SQLDatabase) async throws -> StudyTodoItem? {
        try await db.select().columns(Self.itemColumns).from("study_todo_items").where("id", .equal, id).first().map(item)
    }

    func addItem(
        title: String,
        startsOn: CalendarDate,
        endsOn: CalendarDate?,
        position: Int? = nil,
        replacesID: Int64? = nil,
        now: Date,
        on db: any SQLDatabase
    ) async throws -> Int64 {
        let next: Int
        if let position {
            next = position
        } else {
            next =
                (try await db.select().column(SQLFunction("MAX", args: SQLColumn("position")), as: "last").from("study_todo_items").first()?
                    .decode(column: "last", as: Int?.self) ?? 0) + 1
        }
        let time = now.millisecondsSince1970
        return try await db.insert(into: "study_todo_items")
            .columns("title", "starts_on", "ends_on", "position", "replaces_id", "created_at", "updated_at")
            .values(
                SQLBind(title),
                SQLBind(startsOn.iso),
                SQLBind(endsOn?.iso),
                SQLBind(Int64(next)),
                SQLBind(replacesID),
                SQLBind(time),
                SQLBind(time)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
    }

    /// Changes an item's wording and days in place: only for days that have not yet come (the caller checks).
    func updateItem(id: Int64, title: String, startsOn: CalendarDate, endsOn: CalendarDate?, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("study_todo_items")
            .set("title", to: title).set("starts_on", to: startsOn.iso).set("ends_on", to: endsOn?.iso)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    // MARK: Marks

    /// Marks an item done on a day; marking it again changes nothing.
    func mark(participantID: Int64, itemID: Int64, day: CalendarDate, now: Date, on db: any SQLDatabase) async throws -> Bool {
        try await db.insert(into: "study_todo_marks")
            .columns("participant_id", "item_id", "day", "marked_at")
            .values(SQLBind(participantID), SQLBind(itemID), SQLBind(day.iso), SQLBind(now.millisecondsSince1970))
            .ignoringConflicts(with: ["participant_id", "day", "item_id"])
            .returning("item_id")
            .first() != nil
    }

    /// Her marks, with when each was made.
    func marks(participantID: Int64, on db: any SQLDatabase) async throws -> [StudyMark: Date] {
        var marks: [StudyMark: Date] = [:]
        for row in try await db.select().columns("item_id", "day", "marked_at").from("study_todo_marks")
            .where("participant_id", .equal, participantID).all()
        {
            guard let day = CalendarDate(iso: try row.decode(column: "day", as: String.self)) else { continue }
            marks[StudyMark(itemID: try row.decode(column: "item_id", as: Int64.self), dayNumber: day.dayNumber)] =
                Date(millisecondsSince1970: try row.decode(column: "marked_at", as: Int64.self))
        }
        return marks
    }

    /// Her marks alone, without when each was made: read from the index of marks, no table rows.
    func markKeys(participantID: Int64, on db: any SQLDatabase) async throws -> Set<StudyMark> {
        var marks = Set<StudyMark>()
        for row in try await db.select().columns("item_id", "day").from("study_todo_marks").where("participant_id", .equal, participantID).all() {
            guard let day = CalendarDate(iso: try row.decode(column: "day", as: String.self)) else { continue }
            marks.insert(StudyMark(itemID: try row.decode(column: "item_id", as: Int64.self), dayNumber: day.dayNumber))
        }
        return marks
    }

    /// Every participant's marks, by participant, with when each was made (milliseconds since 1970).
    func allMarks(on db: any SQLDatabase) async throws -> [Int64: [StudyMark: Int64]] {
        var marks: [Int64: [StudyMark: Int64]] = [:]
        for row in try await db.select().columns("participant_id", "item_id", "day", "marked_at").from("study_todo_marks").all() {
            guard let day = CalendarDate(iso: try row.decode(column: "day", as: String.self)) else { continue }
            marks[try row.decode(column: "participant_id", as: Int64.self), default: [:]][
                StudyMark(itemID: try row.decode(column: "item_id", as: Int64.self), dayNumber: day.dayNumber)
            ] = try row.decode(column: "marked_at", as: Int64.self)
        }
        return marks
    }

    /// How many marks each item got on each day from `first` on.
    func markCounts(from first: CalendarDate, on db: any SQLDatabase) async throws -> [StudyMark: Int] {
        var counts: [StudyMark: Int] = [:]
        for row in try await db.select().column("item_id").column("day").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count")
            .from("study_todo_marks").where("day", .greaterThanOrEqual, first.iso).groupBy("day").groupBy("item_id").all()
        {
            guard let day = CalendarDate(iso: try row.decode(column: "day", as: String.self)) else { continue }
            counts[StudyMark(itemID: try row.decode(column: "item_id", as: Int64.self), dayNumber: day.dayNumber)] = try row.decode(
                column: "count",
                as: Int.self
            )
        }
        return counts
    }

    // MARK: App opens

    /// Records an open unless she had one in the minute before; true when recorded.
    func recordOpen(participantID: Int64, day: CalendarDate, now: Date, on db: any SQLDatabase) async throws -> Bool {
        let time = now.millisecondsSince1970
        if try await db.select().column("id").from("study_app_opens")
            .where("participant_id", .equal, participantID).where("opened_at", .greaterThan, time - 60_000)
            .limit(1).first() != nil
        {
            return false
        }
        try await db.insert(into: "study_app_opens").columns("participant_id", "opened_at", "day")
            .values(SQLBind(participantID), SQLBind(time), SQLBind(day.iso)).run()
        return true
    }

    /// Her opens per day, newest day first.
    func opensPerDay(participantID: Int64, on db: any SQLDatabase) async throws -> [(day: CalendarDate, count: Int)] {
        try await db.select().column("day").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "count").from("study_app_opens")
            .where("participant_id", .equal, participantID).groupBy("day").orderBy("day", .descending).all()
            .compactMap { row in
                guard let day = CalendarDate(iso: try row.decode(column: "day", as: String.self)) else { return nil }
                return (day, try row.decode(column: "count", as: Int.self))
            }
    }

    /// Opens and how many participants opened, per day from `first` on.
    func opensPerDay(from first: CalendarDate, on db: any SQLDatabase) async throws -> [CalendarDate: (opens: Int, participants: Int)] {
        var found: [CalendarDate: (Int, Int)] = [:]
        for row in try await db.select().column("day").column(SQLFunction("COUNT", args: SQLLiteral.all), as: "opens")
            .column(SQLFunction("COUNT", args: SQLDistinct(SQLColumn("participant_id"))), as: "participants")
            .from("study_app_opens").where("day", .greaterThanOrEqual, first.iso).groupBy("day").all()
        {
            guard let day = CalendarDate(iso: try row.decode(column: "day", as: String.self)) else { continue }
            found[day] = (try row.decode(column: "opens", as: Int.self), try row.decode(column: "participants", as: Int.self))
        }
        return found
    }

    /// Every open, oldest first: participant, when (milliseconds since 1970), day.
    func allOpens(on db: any SQLDatabase) async throws -> [(participantID: Int64, openedAt: Int64, day: String)] {
        try await db.select().columns("participant_id", "opened_at", "day").from("study_app_opens").orderBy("opened_at").orderBy("id").all().map {
            row in
            (
                try row.decode(column: "participant_id", as: Int64.self), try row.decode(column: "opened_at", as: Int64.self),
                try row.decode(column: "day", as: String.self)
            )
        }
    }

    // MARK: Contact and appointments

    func contact(on db: any SQLDatabase) async throws -> (markdown: String, html: String, updatedAt: Date)? {
        guard let row = try await db.select().columns("markdown", "html", "updated_at").from("study_contact").where("id", .equal, 1).first() else {
            return nil
        }
        return (
            try row.decode(column: "markdown", as: String.self), try row.decode(column: "html", as: String.self),
            Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self))
        )
    }

    func saveContact(markdown: String, html: String, by staffID: Int64?, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "study_contact").columns("id", "markdown", "html", "updated_at", "updated_by")
            .values(SQLBind(Int64(1)), SQLBind(markdown), SQLBind(html), SQLBind(now.millisecondsSince1970), SQLBind(staffID))
            .onConflict(with: ["id"]) {
                $0.set(excludedValueOf: "markdown").set(excludedValueOf: "html")
                    .set(excludedValueOf: "updated_at").set(excludedValueOf: "updated_by")
            }
            .run()
    }
}
