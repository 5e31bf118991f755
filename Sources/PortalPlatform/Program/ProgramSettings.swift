import Foundation
import SQLKit
import Synchronization

/// What administrators configure about their program, read by the portal and the member app.
public struct ProgramSettings: Sendable, Equatable {
    public var programName: String
    /// The number a member calls to have her data deleted (members cannot delete themselves).
    public var deletionPhone: String
    /// How many days a new sign-up code can be used.
    public var codeLifetimeDays: Int
    /// The questions a member chooses one of when she registers.
    public var securityQuestions: [String]
    /// The ids of the member avatars offered in the app, in `Avatar.memberSet` order.
    public var memberAvatarIDs: [String]
    /// The ids of the programs this deployment does not run; every program runs until switched off.
    public var programsSwitchedOff: Set<String> = []
    /// The program's time zone (an IANA id): where its days and months begin and end — points' monthly
    /// reset, reminders' times, a study day's midnight, the analytics' days.
    public var timeZoneID: String = ProgramTimeZone.defaultID
    /// Where the pharmacy hears of each new refill request (never the medication); empty for nobody.
    public var refillEmail: String = ""
    /// When true, the people a program serves read "A member of staff" (with the role) for each opening of
    /// their record; otherwise the staff member's username and role.
    public var hidesStaffNamesFromPeople = false

    public var timeZone: TimeZone { TimeZone(identifier: timeZoneID) ?? TimeZone(identifier: ProgramTimeZone.defaultID)! }

    public static let codeLifetimeRange = 1...365

    public static func defaults(programName: String) -> ProgramSettings {
        ProgramSettings(
            programName: programName,
            deletionPhone: "",
            codeLifetimeDays: 30,
            securityQuestions: [
                "What was the name of your first pet?",
                "What city were you born in?",
                "What is your favourite book?",
                "What was the name of your first school?",
                "What is your favourite food?"
            ],
            memberAvatarIDs: Avatar.memberSet.map(\.id)
        )
    }

    public var memberAvatars: [Avatar] {
        Avatar.memberSet.filter { memberAvatarIDs.contains($0.id) }
    }

    /// The avatar a member gets when she chooses none: the first one offered.
    public var defaultMemberAvatar: Avatar { memberAvatars.first ?? Avatar.memberDefault }

    public var codeLifetime: TimeInterval { TimeInterval(codeLifetimeDays) * 86_400 }

    /// True when `program` is switched on; the portal's own pages, which belong to no program, always run.
    package func runs(_ program: Program?) -> Bool {
        program.map { !programsSwitchedOff.contains($0.id) } ?? true
    }

    package init(
        programName: String,
        deletionPhone: String,
        codeLifetimeDays: Int,
        securityQuestions: [String],
        memberAvatarIDs: [String],
        programsSwitchedOff: Set<String> = []
    ) {
        self.programName = programName
        self.deletionPhone = deletionPhone
        self.codeLifetimeDays = codeLifetimeDays
        self.securityQuestions = securityQuestions
        self.memberAvatarIDs = memberAvatarIDs
        self.programsSwitchedOff = programsSwitchedOff
    }
}

/// The time zones a US program may choose, with the words the settings page shows.
public enum ProgramTimeZone {
    public static let defaultID = "America/New_York"
    /// Each zone with its name on the settings page and its abbreviations out of and in daylight saving.
    public static let choices: [(id: String, title: String, standard: String, daylight: String)] = [
        ("America/New_York", "Eastern (New York)", "EST", "EDT"),
        ("America/Chicago", "Central (Chicago)", "CST", "CDT"),
        ("America/Denver", "Mountain (Denver)", "MST", "MDT"),
        ("America/Phoenix", "Mountain, no daylight saving (Phoenix)", "MST", "MST"),
        ("America/Los_Angeles", "Pacific (Los Angeles)", "PST", "PDT"),
        ("America/Anchorage", "Alaska (Anchorage)", "AKST", "AKDT"),
        ("Pacific/Honolulu", "Hawaii (Honolulu)", "HST", "HST"),
        ("America/Puerto_Rico", "Atlantic (Puerto Rico)", "AST", "AST")
    ]

    /// The zone's name on the settings page; its identifier when it is not one of the choices.
    public static func title(of id: String) -> String {
        choices.first { $0.id == id }?.title ?? id
    }
}

/// The only place program settings are read and written: one row per setting.
package struct ProgramSettingsRepository: Sendable {
    private enum Key: String, CaseIterable {
        case programName = "program_name"
        case deletionPhone = "deletion_phone"
        case codeLifetimeDays = "code_lifetime_days"
        case securityQuestions = "security_questions"
        case memberAvatars = "member_avatars"
        case programsSwitchedOff = "programs_switched_off"
        case timeZone = "time_zone"
        case refillEmail = "pharmacy_refill_email"
        case hidesStaffNames = "hides_staff_names_from_people"
    }

    /// The stored settings, with `defaults` for anything never saved.
    package func load(defaults: ProgramSettings, on db: any SQLDatabase) async throws -> ProgramSettings {
        var values: [String: String] = [:]
        for row in try await db.select().columns("name", "value").from("program_settings").all() {
            values[try row.decode(column: "name", as: String.self)] = try row.decode(column: "value", as: String.self)
        }
        var settings = defaults
        if let value = values[Key.programName.rawValue] { settings.programName = value }
        if let value = values[Key.deletionPhone.rawValue] { settings.deletionPhone = value }
        if let value = values[Key.codeLifetimeDays.rawValue].flatMap(Int.init) { settings.codeLifetimeDays = value }
        if let value = values[Key.securityQuestions.rawValue].flatMap(Self.decodeList) { settings.securityQuestions = value }
        if let value = values[Key.memberAvatars.rawValue].flatMap(Self.decodeList) { settings.memberAvatarIDs = value }
        if let value = values[Key.programsSwitchedOff.rawValue].flatMap(Self.decodeList) { settings.programsSwitchedOff = Set(value) }
        if let value = values[Key.timeZone.rawValue], TimeZone(identifier: value) != nil { settings.timeZoneID = value }
        if let value = values[Key.refillEmail.rawValue] { settings.refillEmail = value }
        if let value = values[Key.hidesStaffNames.rawValue] { settings.hidesStaffNamesFromPeople = value == "true" }
        return settings
    }

    /// The program's clock as stored, read on `db` (inside a transaction that must not wait for the store's refresh).
    package func clock(on db: any SQLDatabase) async throws -> ProgramClock {
        let stored = try await db.select().column("value").from("program_settings").where("name", .equal, Key.timeZone.rawValue)
            .first()?.decode(column: "value", as: String.self)
        return ProgramClock(timeZone: stored.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: ProgramTimeZone.defaultID)!)
    }

    package func save(_ settings: ProgramSettings, now: Date, on db: any SQLDatabase) async throws {
        let values: [(Key, String)] = [
            (.programName, settings.programName),
            (.deletionPhone, settings.deletionPhone),
            (.codeLifetimeDays, String(settings.codeLifetimeDays)),
            (.securityQuestions, Self.encodeList(settings.securityQuestions)),
            (.memberAvatars, Self.encodeList(settings.memberAvatarIDs)),
            (.programsSwitchedOff, Self.encodeList(settings.programsSwitchedOff.sorted())),
            (.timeZone, settings.timeZoneID),
            (.refillEmail, settings.refillEmail),
            (.hidesStaffNames, settings.hidesStaffNamesFromPeople ? "true" : "false")
        ]
        for (key, value) in values {
            try await db.insert(into: "program_settings").columns("name", "value", "updated_at")
                .values(SQLBind(key.rawValue), SQLBind(value), SQLBind(now.millisecondsSince1970))
                .onConflict(with: ["name"]) { $0.set(excludedValueOf: "value").set(excludedValueOf: "updated_at") }
                .run()
        }
    }

    private static func encodeList(_ list: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(list), as: UTF8.self)) ?? "[]"
    }

    private static func decodeList(_ text: String) -> [String]? {
        try? JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    package init() {}
}

/// The settings in force, kept in memory so every page can read them without a query.
/// Saved changes apply at once on this server and within `refreshInterval` on others.
package final class ProgramSettingsStore: Sendable {
    package static let refreshInterval: Duration = .seconds(30)

    private let database: Database
    private let defaults: ProgramSettings
    private let repository = ProgramSettingsRepository()
    private let cached: Mutex<ProgramSettings>

    package init(database: Database, defaults: ProgramSettings) {
        self.database = database
        self.defaults = defaults
        cached = Mutex(defaults)
    }

    package var current: ProgramSettings { cached.withLock { $0 } }

    /// Reads the stored settings again (at start-up and every `refreshInterval`).
    package func refresh() async throws {
        let loaded = try await database.read { db in try await repository.load(defaults: defaults, on: db) }
        cached.withLock { $0 = loaded }
    }

    /// Saves within the caller's transaction; call `adopt` once it has committed.
    package func save(_ settings: ProgramSettings, now: Date, on db: any SQLDatabase) async throws {
        try await repository.save(settings, now: now, on: db)
    }

    package func adopt(_ settings: ProgramSettings) {
        cached.withLock { $0 = settings }
    }
}
