import Foundation
import PortalPlatform
import SQLKit

/// A catalogue name already used by another entry of the same list.
struct CatalogueNameTaken: Error {}

/// The only place the catalogue's SQL lives.
struct CatalogueRepository: Sendable {
    // MARK: Everything at once

    /// The whole catalogue, each list in the order people read it.
    func all(on db: any SQLDatabase) async throws -> Catalogue {
        Catalogue(
            medications: try await medications(on: db),
            exercises: try await exercises(on: db),
            frequencies: try await frequencies(on: db),
            amounts: try await amounts(on: db)
        )
    }

    // MARK: Medications

    func medications(on db: any SQLDatabase) async throws -> [CatalogueMedication] {
        try await db.select().column("*").from("catalogue_medications").all().map(decodeMedication)
            .sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }

    func medication(id: Int64, on db: any SQLDatabase) async throws -> CatalogueMedication? {
        try await db.select().column("*").from("catalogue_medications").where("id", .equal, id).first().map(decodeMedication)
    }

    func createMedication(name: String, doses: [String], description: String, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        try await requireFreeName(name, in: "catalogue_medications", except: nil, on: db)
        let time = now.millisecondsSince1970
        return try await insertReturningID(
            db.insert(into: "catalogue_medications")
                .columns("name", "name_key", "doses", "description", "created_at", "updated_at")
                .values(
                    SQLBind(name),
                    SQLBind(CatalogueRules.nameKey(name)),
                    SQLBind(doses.joined(separator: "\n")),
                    SQLBind(description),
                    SQLBind(time),
                    SQLBind(time)
                ),
            table: "catalogue_medications"
        )
    }

    func updateMedication(id: Int64, name: String, doses: [String], description: String, now: Date, on db: any SQLDatabase) async throws {
        try await requireFreeName(name, in: "catalogue_medications", except: id, on: db)
        try await db.update("catalogue_medications")
            .set("name", to: name).set("name_key", to: CatalogueRules.nameKey(name))
            .set("doses", to: doses.joined(separator: "\n")).set("description", to: description)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    private func decodeMedication(_ row: any SQLRow) throws -> CatalogueMedication {
        CatalogueMedication(
            id: try row.decode(column: "id", as: Int64.self),
            name: try row.decode(column: "name", as: String.self),
            doses: try row.decode(column: "doses", as: String.self).split(separator: "\n").map(String.init),
            description: try row.decode(column: "description", as: String.self)
        )
    }

    // MARK: Exercises

    func exercises(on db: any SQLDatabase) async throws -> [CatalogueExercise] {
        try await db.select().column("*").from("catalogue_exercises").all().map(decodeExercise)
            .sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }

    func exercise(id: Int64, on db: any SQLDatabase) async throws -> CatalogueExercise? {
        try await db.select().column("*").from("catalogue_exercises").where("id", .equal, id).first().map(decodeExercise)
    }

    func createExercise(name: String, description: String, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        try await requireFreeName(name, in: "catalogue_exercises", except: nil, on: db)
        let time = now.millisecondsSince1970
        return try await insertReturningID(
            db.insert(into: "catalogue_exercises")
                .columns("name", "name_key", "description", "created_at", "updated_at")
                .values(SQLBind(name), SQLBind(CatalogueRules.nameKey(name)), SQLBind(description), SQLBind(time), SQLBind(time)),
            table: "catalogue_exercises"
        )
    }

    func updateExercise(id: Int64, name: String, description: String, now: Date, on db: any SQLDatabase) async throws {
        try await requireFreeName(name, in: "catalogue_exercises", except: id, on: db)
        try await db.update("catalogue_exercises")
            .set("name", to: name).set("name_key", to: CatalogueRules.nameKey(name)).set("description", to: description)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    func setIllustration(exerciseID: Int64, _ illustration: CatalogueExercise.Illustration?, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("catalogue_exercises")
            .set("illustration", to: illustration?.fileName)
            .set("illustration_type", to: illustration?.type.rawValue)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, exerciseID).run()
    }

    private func decodeExercise(_ row: any SQLRow) throws -> CatalogueExercise {
        let file = try row.decode(column: "illustration", as: String?.self)
        let type = try row.decode(column: "illustration_type", as: String?.self).flatMap(IllustrationType.init(rawValue:))
        return CatalogueExercise(
            id: try row.decode(column: "id", as: Int64.self),
            name: try row.decode(column: "name", as: String.self),
            description: try row.decode(column: "description", as: String.self),
            illustration: file.flatMap { file in type.map { CatalogueExercise.Illustration(fileName: file, type: $0) } }
        )
    }

    // MARK: Frequencies

    func frequencies(on db: any SQLDatabase) async throws -> [CatalogueFrequency] {
        try await db.select().column("*").from("catalogue_frequencies")
            .orderBy("every_days").orderBy("times_per_day").orderBy("name_key")
            .all().map(decodeFrequency)
    }

    func frequency(id: Int64, on db: any SQLDatabase) async throws -> CatalogueFrequency? {
        try await db.select().column("*").from("catalogue_frequencies").where("id", .equal, id).first().map(decodeFrequency)
    }

    func createFrequency(name: String, timesPerDay: Int, everyDays: Int, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        try await requireFreeName(name, in: "catalogue_frequencies", except: nil, on: db)
        let time = now.millisecondsSince1970
        return try await insertReturningID(
            db.insert(into: "catalogue_frequencies")
                .columns("name", "name_key", "times_per_day", "every_days", "created_at", "updated_at")
                .values(SQLBind(name), SQLBind(CatalogueRules.nameKey(name)), SQLBind(timesPerDay), SQLBind(everyDays), SQLBind(time), SQLBind(time)),
            table: "catalogue_frequencies"
        )
    }

    /// Changes a frequency for prescriptions written from now on; those already written keep the schedule they had.
    func updateFrequency(id: Int64, name: String, timesPerDay: Int, everyDays: Int, now: Date, on db: any SQLDatabase) async throws {
        try await requireFreeName(name, in: "catalogue_frequencies", except: id, on: db)
        try await db.update("catalogue_frequencies")
            .set("name", to: name).set("name_key", to: CatalogueRules.nameKey(name))
            .set("times_per_day", to: timesPerDay).set("every_days", to: everyDays)
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    private func decodeFrequency(_ row: any SQLRow) throws -> CatalogueFrequency {
        CatalogueFrequency(
            id: try row.decode(column: "id", as: Int64.self),
            name: try row.decode(column: "name", as: String.self),
            timesPerDay: try row.decode(column: "times_per_day", as: Int.self),
            everyDays: try row.decode(column: "every_days", as: Int.self)
        )
    }

    // MARK: Exercise amounts

    func amounts(on db: any SQLDatabase) async throws -> [CatalogueExerciseAmount] {
        try await db.select().column("*").from("catalogue_exercise_amounts").all().map(decodeAmount)
            .sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }

    func amount(id: Int64, on db: any SQLDatabase) async throws -> CatalogueExerciseAmount? {
        try await db.select().column("*").from("catalogue_exercise_amounts").where("id", .equal, id).first().map(decodeAmount)
    }

    func createAmount(name: String, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        try await requireFreeName(name, in: "catalogue_exercise_amounts", except: nil, on: db)
        let time = now.millisecondsSince1970
        return try await insertReturningID(
            db.insert(into: "catalogue_exercise_amounts")
                .columns("name", "name_key", "created_at", "updated_at")
                .values(SQLBind(name), SQLBind(CatalogueRules.nameKey(name)), SQLBind(time), SQLBind(time)),
            table: "catalogue_exercise_amounts"
        )
    }

    func updateAmount(id: Int64, name: String, now: Date, on db: any SQLDatabase) async throws {
        try await requireFreeName(name, in: "catalogue_exercise_amounts", except: id, on: db)
        try await db.update("catalogue_exercise_amounts")
            .set("name", to: name).set("name_key", to: CatalogueRules.nameKey(name))
            .set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).run()
    }

    private func decodeAmount(_ row: any SQLRow) throws -> CatalogueExerciseAmount {
        CatalogueExerciseAmount(id: try row.decode(column: "id", as: Int64.self), name: try row.decode(column: "name", as: String.self))
    }

    // MARK: Removal

    /// The four lists, as removal names them.
    enum List: String, Sendable, CaseIterable {
        case medications, exercises, frequencies, amounts

        var table: String {
            switch self {
            case .medications: "catalogue_medications"
            case .exercises: "catalogue_exercises"
            case .frequencies: "catalogue_frequencies"
            case .amounts: "catalogue_exercise_amounts"
            }
        }

        /// The prescriptions' column that points at this list.
        var prescriptionColumn: String {
            switch self {
            case .medications: "medication_id"
            case .exercises: "exercise_id"
            case .frequencies: "frequency_id"
            case .amounts: "amount_id"
            }
        }
    }

    /// The entry's name, or nil when there is no such entry.
    func name(of id: Int64, in list: List, on db: any SQLDatabase) async throws -> String? {
        try await db.select().column("name").from(list.table).where("id", .equal, id).first()?.decode(column: "name", as: String.self)
    }

    /// Whether any prescription, current or past, was written with this entry.
    func isPrescribed(_ id: Int64, in list: List, on db: any SQLDatabase) async throws -> Bool {
        try await db.select().column("id").from("prescriptions").where(list.prescriptionColumn, .equal, id).limit(1).first() != nil
    }

    func remove(_ id: Int64, from list: List, on db: any SQLDatabase) async throws {
        try await db.delete(from: list.table).where("id", .equal, id).run()
    }

    // MARK: Shared

    private func requireFreeName(_ name: String, in table: String, except id: Int64?, on db: any SQLDatabase) async throws {
        let query = db.select().column("id").from(table).where("name_key", .equal, CatalogueRules.nameKey(name))
        if let id { query.where("id", .notEqual, id) }
        if try await query.first() != nil { throw CatalogueNameTaken() }
    }

    private func insertReturningID(_ insert: SQLInsertBuilder, table: String) async throws -> Int64 {
        guard let id = try await insert.returning("id").first()?.decode(column: "id", as: Int64.self) else {
            throw StorageInconsistency(description: "insert into \(table) returned no id")
        }
        return id
    }
}
