import Crypto
import Foundation
import PortalPlatform

/// The de-identified event export for the researcher's own statistics: each member's id replaced by an
/// id made for this export alone (so two exports cannot be joined on it), cohorts kept, and nothing she
/// wrote — events hold no text. Small counts do not apply: it is one row per event, and it is audited.
struct AnalyticsExport: Sendable {
    struct Column: Sendable, Encodable {
        let name: String
        let meaning: String
    }

    static let columns = [
        Column(name: "participant", meaning: "An id made for this export alone (P followed by 12 letters and digits); the same member has the same id throughout the file, and a different one in every other export. Empty for a member whose account was deleted."),
        Column(name: "cohort", meaning: "The member's cohort when it happened (\"Due April 2027\")."),
        Column(name: "kind", meaning: "What happened: the kinds are listed in the documentation (docs/events.md)."),
        Column(name: "local_date", meaning: "The day it happened on the program's clock (YYYY-MM-DD)."),
        Column(name: "local_time", meaning: "The time of day on the program's clock, to the minute (HH:MM)."),
        Column(name: "label", meaning: "A code from a fixed list: the mood, or the section of the app."),
        Column(name: "number", meaning: "A number: seconds spent in a section, a score, or points earned."),
    ]

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

    func row(_ event: AnalyticsRepository.ExportedEvent, cohorts: [Int64: String], clock: ProgramClock) -> [String] {
        let minute = clock.minuteOfDay(of: event.occurredAt)
        let time = String(format: "%02d:%02d", minute / 60, minute % 60)
        return [
            participant(event.memberID), event.cohortID.flatMap { cohorts[$0] } ?? "", event.kind,
            clock.date(of: event.occurredAt).iso, time, event.label ?? "", event.number.map(String.init) ?? "",
        ]
    }
}
