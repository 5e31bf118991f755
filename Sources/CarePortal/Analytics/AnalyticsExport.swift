import Crypto
import Foundation
import PortalPlatform

/// The de-identified event export for the researcher's own statistics: each member's id replaced by an
/// id made for this export alone (so two exports cannot be joined on it), and nothing she wrote — events hold no
/// text. So that one event someone knows of (she shared a mood that week, she opened the learning section) cannot
/// single out her row and with it her id's every other row:
/// - the cohort is the one the Analytics pages offer (`AnalyticsCohort`): due months with fewer than 5 members are
///   merged with their neighbours;
/// - the time is the week (its Monday on the program's clock), never the day or the minute;
/// - a row's label is kept only where 5 or more members share its cohort, week, kind and label; otherwise it reads
///   "withheld", and where fewer than 5 share even its cohort, week and kind the row is left out.
struct AnalyticsExport: Sendable {
    struct Column: Sendable, Encodable {
        let name: String
        let meaning: String
    }

    static let columns = [
        Column(
            name: "participant",
            meaning:
                "An id made for this export alone (P followed by 12 letters and digits); the same member has the same id throughout the file, and a different one in every other export. Empty for a member whose account was deleted."
        ),
        Column(
            name: "cohort",
            meaning:
                "The member's cohort when it happened (\"Due April 2027\"); due months with fewer than 5 members are merged with the next (\"Due April 2027 to June 2027\")."
        ),
        Column(name: "kind", meaning: "What happened: the kinds are listed in the documentation (docs/events.md)."),
        Column(
            name: "week",
            meaning:
                "The Monday of the week it happened in, on the program's clock (YYYY-MM-DD); never the day or time, so one event someone knows of does not single out a member."
        ),
        Column(
            name: "label",
            meaning:
                "A code from a fixed list: the mood, or the section of the app; \"withheld\" where fewer than 5 members of the cohort had that kind and label that week."
        ),
        Column(name: "number", meaning: "A number: seconds spent in a section, a score, or points earned.")
    ]

    /// Fewer members than this sharing a row's cohort, week, kind and label, and its label is withheld; sharing its
    /// cohort, week and kind, and the row is left out.
    static let alike = Int(Disclosure.threshold)

    private let keyBytes: [UInt8]

    init(randomBytes: (Int) -> [UInt8]) {
        keyBytes = randomBytes(32)
    }

    /// The member's id in this export: a keyed hash, so it cannot be turned back into her id.
    func participant(_ memberID: Int64?) -> String {
        guard let memberID else { return "" }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(String(memberID).utf8), using: SymmetricKey(data: keyBytes))
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return "P" + String(mac.prefix(12).map { alphabet[Int($0) % alphabet.count] })
    }

    /// The rows of `events` (oldest first), and how many were left out because fewer than 5 members were alike.
    func rows(_ events: [AnalyticsRepository.ExportedEvent], cohorts: [AnalyticsCohort], clock: ProgramClock) -> (rows: [[String]], leftOut: Int) {
        struct Alike: Hashable {
            let cohort: String
            let week: Int
            let kind: String
            let label: String?
        }
        var names: [Int64: String] = [:]
        for group in cohorts { for id in group.cohortIDs { names[id] = group.name } }
        let keyed = events.map { event in
            (
                event,
                Alike(
                    cohort: event.cohortID.flatMap { names[$0] } ?? "",
                    week: AnalyticsDay(clock.date(of: event.occurredAt)).week,
                    kind: event.kind,
                    label: event.label
                )
            )
        }
        // A deleted member's events have no member: they count towards no one.
        var members: [Alike: Set<Int64>] = [:]
        for (event, key) in keyed {
            guard let member = event.memberID else { continue }
            members[key, default: []].insert(member)
            if key.label != nil { members[Alike(cohort: key.cohort, week: key.week, kind: key.kind, label: nil), default: []].insert(member) }
        }
        var rows: [[String]] = []
        var leftOut = 0
        for (event, key) in keyed {
            let kind = Alike(cohort: key.cohort, week: key.week, kind: key.kind, label: nil)
            guard members[kind, default: []].count >= Self.alike else {
                leftOut += 1
                continue
            }
            let label = key.label.map { members[key, default: []].count >= Self.alike ? $0 : Disclosure.withheldText } ?? ""
            rows.append([
                participant(event.memberID), key.cohort, event.kind, AnalyticsDay.firstDay(ofWeek: key.week).date.iso, label,
                event.number.map(String.init) ?? ""
            ])
        }
        return (rows, leftOut)
    }
}
