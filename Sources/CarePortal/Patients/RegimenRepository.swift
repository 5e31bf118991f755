import Foundation
import PortalPlatform
import SQLKit

/// The only place prescriptions' and adherence logs' SQL lives.
struct RegimenRepository: Sendable {
    // MARK: Prescriptions

    /// Every prescription the patient ever had, current and ended, in the order they were written.
    func prescriptions(patientID: Int64, on db: any SQLDatabase) async throws -> [Prescription] {
        try await prescriptions(patientIDs: [patientID], on: db)
    }

    func prescriptions(patientIDs: [Int64], on db: any SQLDatabase) async throws -> [Prescription] {
        guard !patientIDs.isEmpty else { return [] }
        return try await db.raw(
            """
            SELECT p.id, p.patient_id, p.kind, p.medication_id, p.exercise_id, p.dose, p.amount_id, p.frequency_id, p.frequency_name,
                   p.times_per_day, p.every_days, p.note, p.position, p.starts_on, p.ends_on, p.created_at, p.created_by,
                   COALESCE(m.name, e.name) AS item_name, COALESCE(m.description, e.description) AS item_description,
                   e.illustration AS illustration
            FROM prescriptions p
            LEFT JOIN catalogue_medications m ON m.id = p.medication_id
            LEFT JOIN catalogue_exercises e ON e.id = p.exercise_id
            WHERE p.patient_id IN (\(binds: patientIDs))
            """
        ).all().map(decode)
            .sorted {
                ($0.patientID, $0.startsOn.dayNumber, $0.kind == .medication ? 0 : 1, $0.position, $0.id)
                    < ($1.patientID, $1.startsOn.dayNumber, $1.kind == .medication ? 0 : 1, $1.position, $1.id)
            }
    }

    /// When each of these patients' prescriptions, current and ended, is due.
    func schedules(patientIDs: [Int64], on db: any SQLDatabase) async throws -> [DoseSchedule] {
        guard !patientIDs.isEmpty else { return [] }
        return try await db.select().columns("patient_id", "starts_on", "ends_on", "times_per_day", "every_days").from("prescriptions")
            .where("patient_id", .in, patientIDs)
            .all().map { row in
                DoseSchedule(
                    patientID: try row.decode(column: "patient_id", as: Int64.self),
                    startsOn: try row.decode(column: "starts_on", as: Int.self),
                    endsOn: try row.decodeNil(column: "ends_on") ? nil : try row.decode(column: "ends_on", as: Int.self),
                    timesPerDay: try row.decode(column: "times_per_day", as: Int.self),
                    everyDays: try row.decode(column: "every_days", as: Int.self)
                )
            }
    }

    /// Writes each item as a prescription starting on `day`.
    func add(
        _ items: [PrescribedItem],
        patientID: Int64,
        startsOn day: CalendarDate,
        by accountID: Int64?,
        now: Date,
        on db: any SQLDatabase
    ) async throws {
        for (position, item) in items.enumerated() {
            try await db.insert(into: "prescriptions")
                .columns(
                    "patient_id",
                    "kind",
                    "medication_id",
                    "exercise_id",
                    "dose",
                    "amount_id",
                    "frequency_id",
                    "frequency_name",
                    "times_per_day",
                    "every_days",
                    "note",
                    "position",
                    "starts_on",
                    "created_at",
                    "created_by"
                )
                .values(
                    SQLBind(patientID),
                    SQLBind(item.kind.rawValue),
                    SQLBind(item.kind == .medication ? item.itemID : nil),
                    SQLBind(item.kind == .exercise ? item.itemID : nil),
                    SQLBind(item.dose),
                    SQLBind(item.amountID),
                    SQLBind(item.frequency.id),
                    SQLBind(item.frequency.name),
                    SQLBind(item.frequency.timesPerDay),
                    SQLBind(item.frequency.everyDays),
                    SQLBind(item.note),
                    SQLBind(position),
                    SQLBind(day.dayNumber),
                    SQLBind(now.millisecondsSince1970),
                    SQLBind(accountID)
                )
                .run()
        }
    }

    /// Ends these prescriptions: `day` is the first day they no longer apply.
    func end(ids: [Int64], patientID: Int64, on day: CalendarDate, by accountID: Int64?, now: Date, on db: any SQLDatabase) async throws {
        guard !ids.isEmpty else { return }
        try await db.update("prescriptions")
            .set("ends_on", to: day.dayNumber).set("ended_at", to: now.millisecondsSince1970).set("ended_by", to: accountID)
            .where("id", .in, ids).where("patient_id", .equal, patientID).where("ends_on", .is, SQLLiteral.null)
            .run()
    }

    func setPosition(id: Int64, _ position: Int, on db: any SQLDatabase) async throws {
        try await db.update("prescriptions").set("position", to: position).where("id", .equal, id).run()
    }

    private func decode(_ row: any SQLRow) throws -> Prescription {
        let kind = Prescription.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .medication
        let itemID =
            kind == .medication
            ? try row.decode(column: "medication_id", as: Int64?.self)
            : try row.decode(column: "exercise_id", as: Int64?.self)
        let illustration = try row.decode(column: "illustration", as: String?.self)
        return Prescription(
            id: try row.decode(column: "id", as: Int64.self),
            patientID: try row.decode(column: "patient_id", as: Int64.self),
            kind: kind,
            itemID: itemID ?? 0,
            name: try row.decode(column: "item_name", as: String?.self) ?? "Unknown",
            description: try row.decode(column: "item_description", as: String?.self) ?? "",
            dose: try row.decode(column: "dose", as: String.self),
            amountID: try row.decode(column: "amount_id", as: Int64?.self),
            frequencyID: try row.decode(column: "frequency_id", as: Int64?.self),
            frequencyName: try row.decode(column: "frequency_name", as: String.self),
            timesPerDay: try row.decode(column: "times_per_day", as: Int.self),
            everyDays: try row.decode(column: "every_days", as: Int.self),
            note: try row.decode(column: "note", as: String.self),
            position: try row.decode(column: "position", as: Int.self),
            startsOn: CalendarDate(dayNumber: try row.decode(column: "starts_on", as: Int.self)),
            endsOn: try row.decode(column: "ends_on", as: Int?.self).map(CalendarDate.init(dayNumber:)),
            createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
            createdBy: try row.decode(column: "created_by", as: Int64?.self),
            hasIllustration: kind == .exercise && illustration != nil
        )
    }

    // MARK: Adherence logs

    /// Records what the patient did for one scheduled dose or session; sending it again changes nothing,
    /// and a later answer for the same slot replaces the earlier one.
    func log(_ entry: AdherenceLog, patientID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.insert(into: "adherence_logs")
            .columns("prescription_id", "on_day", "slot", "patient_id", "status", "logged_at")
            .values(
                SQLBind(entry.prescriptionID),
                SQLBind(entry.day.dayNumber),
                SQLBind(entry.slot),
                SQLBind(patientID),
                SQLBind(entry.status.rawValue),
                SQLBind(now.millisecondsSince1970)
            )
            .onConflict(with: ["prescription_id", "on_day", "slot"]) { $0.set(excludedValueOf: "status").set(excludedValueOf: "logged_at") }
            .run()
    }

    /// The patient's logs from `from` through `through`, without when each was made: the columns of the
    /// `adherence_logs_patient_day` index, so the read never touches the table.
    func logs(patientID: Int64, from: CalendarDate, through: CalendarDate, on db: any SQLDatabase) async throws -> [AdherenceLog] {
        try await db.select().columns("prescription_id", "on_day", "slot", "status").from("adherence_logs")
            .where("patient_id", .equal, patientID)
            .where("on_day", .greaterThanOrEqual, from.dayNumber)
            .where("on_day", .lessThanOrEqual, through.dayNumber)
            .all().map(decodeLog)
    }

    /// The patient's latest logs, newest first, for the "recent activity" list.
    func recentLogs(patientID: Int64, limit: Int, on db: any SQLDatabase) async throws -> [AdherenceLog] {
        try await db.select().columns("prescription_id", "on_day", "slot", "status", "logged_at").from("adherence_logs")
            .where("patient_id", .equal, patientID)
            .orderBy("logged_at", .descending)
            .limit(limit)
            .all().map(decodeLog)
    }

    /// For each patient, how many scheduled doses and sessions from `from` through `through` were logged done.
    ///
    /// Counts only logs of days and slots the prescription scheduled, as the patient page does.
    func doneCounts(patientIDs: [Int64], from: CalendarDate, through: CalendarDate, on db: any SQLDatabase) async throws -> [Int64: Int] {
        guard !patientIDs.isEmpty else { return [:] }
        var counts: [Int64: Int] = [:]
        for row in try await db.raw(
            """
            SELECT l.patient_id, COUNT(*) AS done
            FROM adherence_logs l JOIN prescriptions p ON p.id = l.prescription_id
            WHERE l.patient_id IN (\(binds: patientIDs)) AND l.on_day >= \(bind: from.dayNumber) AND l.on_day <= \(bind: through.dayNumber)
              AND l.status = \(bind: AdherenceLog.Status.done.rawValue)
              AND l.on_day >= p.starts_on AND (p.ends_on IS NULL OR l.on_day < p.ends_on)
              AND l.slot <= p.times_per_day AND (l.on_day - p.starts_on) % p.every_days = 0
            GROUP BY l.patient_id
            """
        ).all() {
            counts[try row.decode(column: "patient_id", as: Int64.self)] = try row.decode(column: "done", as: Int.self)
        }
        return counts
    }

    private func decodeLog(_ row: any SQLRow) throws -> AdherenceLog {
        AdherenceLog(
            prescriptionID: try row.decode(column: "prescription_id", as: Int64.self),
            day: CalendarDate(dayNumber: try row.decode(column: "on_day", as: Int.self)),
            slot: try row.decode(column: "slot", as: Int.self),
            status: AdherenceLog.Status(rawValue: try row.decode(column: "status", as: String.self)) ?? .missed,
            loggedAt: row.contains(column: "logged_at")
                ? Date(millisecondsSince1970: try row.decode(column: "logged_at", as: Int64.self)) : nil
        )
    }

    // MARK: Drafts

    func createDraft(physicianID: Int64, _ draft: PatientDraft, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        let time = now.millisecondsSince1970
        guard
            let id = try await db.insert(into: "patient_drafts")
                .columns("physician_id", "step", "data", "created_at", "updated_at")
                .values(SQLBind(physicianID), SQLBind(draft.step.rawValue), SQLBind(try draft.encoded()), SQLBind(time), SQLBind(time))
                .returning("id").first()?.decode(column: "id", as: Int64.self)
        else { throw StorageInconsistency(description: "insert into patient_drafts returned no id") }
        return id
    }

    /// A physician's own draft; another physician's is not found.
    func draft(id: Int64, physicianID: Int64, on db: any SQLDatabase) async throws -> PatientDraft? {
        try await db.select().columns("id", "step", "data", "updated_at").from("patient_drafts")
            .where("id", .equal, id).where("physician_id", .equal, physicianID)
            .first().map(decodeDraft)
    }

    /// How many new patients the physician started and has not finished.
    func draftCount(physicianID: Int64, on db: any SQLDatabase) async throws -> Int {
        try await db.count(in: "patient_drafts") { $0.where("physician_id", .equal, physicianID) }
    }

    func drafts(physicianID: Int64, on db: any SQLDatabase) async throws -> [PatientDraft] {
        try await db.select().columns("id", "step", "data", "updated_at").from("patient_drafts")
            .where("physician_id", .equal, physicianID)
            .orderBy("updated_at", .descending).orderBy("id", .descending)
            .limit(50)
            .all().map(decodeDraft)
    }

    func saveDraft(_ draft: PatientDraft, physicianID: Int64, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("patient_drafts")
            .set("step", to: draft.step.rawValue).set("data", to: try draft.encoded()).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, draft.id).where("physician_id", .equal, physicianID)
            .run()
    }

    func deleteDraft(id: Int64, physicianID: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "patient_drafts").where("id", .equal, id).where("physician_id", .equal, physicianID).run()
    }

    private func decodeDraft(_ row: any SQLRow) throws -> PatientDraft {
        var draft = try PatientDraft.decoded(try row.decode(column: "data", as: String.self))
        draft.id = try row.decode(column: "id", as: Int64.self)
        draft.step = PatientDraft.Step(rawValue: try row.decode(column: "step", as: String.self)) ?? .contact
        draft.updatedAt = Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self))
        return draft
    }
}
