import Foundation
import PortalPlatform

/// A medication physicians may prescribe, with the doses it comes in.
public struct CatalogueMedication: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var name: String
    /// Such as "25/100 mg tablet", in the order the administrator listed them.
    public var doses: [String]
    public var description: String
}

/// An exercise physicians may prescribe, with how to do it and an illustration.
public struct CatalogueExercise: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var name: String
    public var description: String
    /// The stored illustration, if one was uploaded.
    public var illustration: Illustration?

    /// A name the server chose, under `DATA_DIR/illustrations`, and the picture's type.
    public typealias Illustration = StoredUpload
}

/// How often a medication is taken or an exercise done.
public struct CatalogueFrequency: Sendable, Equatable, Identifiable {
    public var id: Int64
    /// Such as "Twice daily" or "Every 8 hours".
    public var name: String
    /// How many times on each day it applies.
    public var timesPerDay: Int
    /// 1 for every day, 2 for every other day, 7 for once a week.
    public var everyDays: Int

    static let timesPerDayRange = 1...12
    static let everyDaysRange = 1...28

    /// "3 times a day, every day", so an administrator sees what the schedule will do.
    public var scheduleDescription: String {
        let times = timesPerDay == 1 ? "Once" : timesPerDay == 2 ? "Twice" : "\(timesPerDay) times"
        let days =
            switch everyDays {
            case 1: "every day"
            case 2: "every other day"
            case 7: "once a week"
            default: "every \(everyDays) days"
            }
        return "\(times) a day, \(days)"
    }
}

/// How much of an exercise: "10 repetitions", "15 minutes".
public struct CatalogueExerciseAmount: Sendable, Equatable, Identifiable {
    public var id: Int64
    public var name: String
}

/// Everything the add-patient wizard's dropdowns offer.
struct Catalogue: Sendable {
    var medications: [CatalogueMedication]
    var exercises: [CatalogueExercise]
    var frequencies: [CatalogueFrequency]
    var amounts: [CatalogueExerciseAmount]

    func medication(_ id: Int64?) -> CatalogueMedication? { id.flatMap { id in medications.first { $0.id == id } } }
    func exercise(_ id: Int64?) -> CatalogueExercise? { id.flatMap { id in exercises.first { $0.id == id } } }
    func frequency(_ id: Int64?) -> CatalogueFrequency? { id.flatMap { id in frequencies.first { $0.id == id } } }
    func amount(_ id: Int64?) -> CatalogueExerciseAmount? { id.flatMap { id in amounts.first { $0.id == id } } }
}

/// The picture formats an illustration may be: the platform's upload types, limited by `CatalogueRules.illustrationRules`.
public typealias IllustrationType = UploadType

/// The checks on what an administrator types into the catalogue.
enum CatalogueRules {
    static let nameMaximumLength = 80
    static let descriptionMaximumLength = 2_000
    static let doseMaximumLength = 60
    static let maximumDoses = 20
    /// The largest illustration accepted, in bytes.
    static let illustrationMaximumSize = 2 * 1024 * 1024

    /// Names compare without regard to case or accents' composition.
    static func nameKey(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.lowercased()
    }

    static func nameProblem(_ name: String, noun: String) -> String? {
        if name.isEmpty { return "Enter the \(noun)’s name" }
        if name.count > nameMaximumLength { return "Name must be \(nameMaximumLength) characters or fewer" }
        if name.contains(where: { $0.isNewline }) { return "Name must be on one line" }
        return nil
    }

    static func descriptionProblem(_ description: String, noun: String) -> String? {
        if description.isEmpty { return "Enter a description of the \(noun)" }
        if description.count > descriptionMaximumLength { return "Description must be \(descriptionMaximumLength) characters or fewer" }
        return nil
    }

    /// The doses typed one per line, without blank lines or repeats, or what to fix.
    static func doses(_ text: String) -> Result<[String], DosesProblem> {
        var doses: [String] = []
        for line in text.split(whereSeparator: \.isNewline).map({ String($0).trimmed }) where !line.isEmpty {
            if line.count > doseMaximumLength { return .failure(DosesProblem(message: "Each dose must be \(doseMaximumLength) characters or fewer")) }
            if !doses.contains(where: { nameKey($0) == nameKey(line) }) { doses.append(line) }
        }
        if doses.isEmpty { return .failure(DosesProblem(message: "Enter at least one dose, such as 25/100 mg tablet")) }
        if doses.count > maximumDoses { return .failure(DosesProblem(message: "Enter \(maximumDoses) doses or fewer")) }
        return .success(doses)
    }

    struct DosesProblem: Error {
        let message: String
    }

    static let illustrationRules = UploadRules(types: UploadType.pictures, maximumSize: illustrationMaximumSize, noun: "illustration")

    /// Why an uploaded illustration is refused, or its type when it is accepted.
    static func illustration(_ bytes: [UInt8]) -> Result<IllustrationType, UploadProblem> {
        illustrationRules.check(bytes)
    }
}
