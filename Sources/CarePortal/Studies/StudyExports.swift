import Foundation
import Hummingbird
import PortalPlatform
import SQLKit
import ZIPFoundation

/// The study's downloads: one CSV per kind of data, the data dictionary describing every column, and
/// all of them in one ZIP.
enum StudyExport: String, Sendable, CaseIterable, Equatable {
    case participants
    case todoOutcomes = "todo-outcomes"
    case appOpens = "app-opens"
    case feedback
    case dataDictionary = "data-dictionary"
    case all = "study-export"

    var fileName: String { self == .all ? "\(rawValue).zip" : "\(rawValue).csv" }

    var title: String {
        switch self {
        case .participants: "Participants"
        case .todoOutcomes: "Daily to-do outcomes"
        case .appOpens: "App opens"
        case .feedback: "Feedback"
        case .dataDictionary: "Data dictionary"
        case .all: "Everything, in one ZIP"
        }
    }

    var summary: String {
        switch self {
        case .participants: "One row per participant: study id, arm, enrolment, status."
        case .todoOutcomes: "One row per participant, closed day and to-do: done or not done."
        case .appOpens: "One row per app open (repeats within a minute are not counted)."
        case .feedback: "One row per message, with its text."
        case .dataDictionary: "What every column of the other files means."
        case .all: "The four files and the data dictionary."
        }
    }
}

/// One column of an export, as the data dictionary describes it.
struct StudyExportColumn: Sendable {
    let name: String
    let type: String
    let description: String
}

/// The export files' columns and rows. Study ids identify participants to the study team; nothing else
/// that names her (username, email) is exported.
enum StudyExportTables {
    static let columns: [StudyExport: [StudyExportColumn]] = [
        .participants: [
            .init(name: "study_id", type: "text", description: "The participant's study id, chosen by the study team at enrolment"),
            .init(name: "arm", type: "text", description: "Her arm or group label; empty when none was given"),
            .init(name: "enrolled_on", type: "date (YYYY-MM-DD)", description: "The day she was enrolled, on the study's clock"),
            .init(name: "status", type: "active | withdrawn", description: "Whether she is still in the study"),
            .init(name: "withdrawn_on", type: "date (YYYY-MM-DD)", description: "The day she was withdrawn; empty while active. Her days in the study end the day before"),
        ],
        .todoOutcomes: [
            .init(name: "study_id", type: "text", description: "The participant's study id"),
            .init(name: "day", type: "date (YYYY-MM-DD)", description: "The day on the study's clock; only closed days (before today) are listed"),
            .init(name: "item_id", type: "integer", description: "The to-do's number; a reworded to-do gets a new number from the day after the change"),
            .init(name: "item", type: "text", description: "The to-do as it was worded that day"),
            .init(name: "outcome", type: "done | not_done", description: "done when she marked it in the app that day; not_done when the day closed without it"),
            .init(name: "marked_at", type: "instant (ISO 8601, UTC)", description: "When she marked it done; empty when not done"),
            .init(name: "closed_at", type: "instant (ISO 8601, UTC)", description: "When the day closed: midnight at its end on the study's clock"),
        ],
        .appOpens: [
            .init(name: "study_id", type: "text", description: "The participant's study id"),
            .init(name: "opened_at", type: "instant (ISO 8601, UTC)", description: "When the app was opened; opens within a minute of the previous one are not recorded"),
            .init(name: "day", type: "date (YYYY-MM-DD)", description: "The day of the open on the study's clock"),
        ],
        .feedback: [
            .init(name: "study_id", type: "text", description: "The participant's study id"),
            .init(name: "submitted_at", type: "instant (ISO 8601, UTC)", description: "When she sent it"),
            .init(name: "day", type: "date (YYYY-MM-DD)", description: "The day she sent it on the study's clock"),
            .init(name: "message", type: "text", description: "What she wrote, exactly as sent"),
            .init(name: "handled_at", type: "instant (ISO 8601, UTC)", description: "When staff marked it handled; empty when not yet"),
        ],
        .dataDictionary: [
            .init(name: "file", type: "text", description: "The export file the column belongs to"),
            .init(name: "column", type: "text", description: "The column's name, as in the file's first row"),
            .init(name: "type", type: "text", description: "What its values are"),
            .init(name: "description", type: "text", description: "What it means"),
        ],
    ]

    static let csvFiles: [StudyExport] = [.participants, .todoOutcomes, .appOpens, .feedback, .dataDictionary]

    /// Every CSV file's rows, header first.
    static func tables(on db: any SQLDatabase, clock: ProgramClock, now: Date) async throws -> [StudyExport: [[String]]] {
        let studies = StudyRepository()
        let participants = try await studies.participants(on: db)
        let schedule = try await studies.schedule(on: db)
        let marks = try await studies.allMarks(on: db)
        let opens = try await studies.allOpens(on: db)
        let feedback = try await studies.feedback(on: db)
        let today = clock.date(of: now)
        let instant = ISO8601DateFormatter()
        instant.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func header(_ export: StudyExport) -> [String] { columns[export]!.map(\.name) }
        let codes = Dictionary(uniqueKeysWithValues: participants.map { ($0.id, $0.studyCode) })

        var tables: [StudyExport: [[String]]] = [:]
        tables[.participants] = [header(.participants)] + participants.map {
            [$0.studyCode, $0.arm ?? "", $0.enrolledOn.iso, $0.status.rawValue, $0.withdrawnOn?.iso ?? ""]
        }
        var outcomes = [header(.todoOutcomes)]
        var closings: [Int: String] = [:]
        for participant in participants {
            guard let days = participant.days(through: today.adding(days: -1)) else { continue }
            let hers = marks[participant.id] ?? [:]
            for day in days {
                let date = CalendarDate(dayNumber: day)
                let closed = closings[day] ?? instant.string(from: clock.instant(startOf: date.nextDay))
                closings[day] = closed
                for item in schedule.items(onDayNumber: day) {
                    let marked = hers[StudyMark(itemID: item.id, dayNumber: day)]
                    outcomes.append([participant.studyCode, date.iso, String(item.id), item.title, marked == nil ? "not_done" : "done",
                                     marked.map(instant.string) ?? "", closed])
                }
            }
        }
        tables[.todoOutcomes] = outcomes
        tables[.appOpens] = [header(.appOpens)] + opens.compactMap { open in
            codes[open.participantID].map { [$0, instant.string(from: open.openedAt), open.day] }
        }
        tables[.feedback] = [header(.feedback)] + feedback.reversed().map {
            [$0.studyCode, instant.string(from: $0.submittedAt), clock.date(of: $0.submittedAt).iso, $0.body, $0.handledAt.map(instant.string) ?? ""]
        }
        tables[.dataDictionary] = [header(.dataDictionary)] + csvFiles.flatMap { export in
            columns[export]!.map { [export.fileName, $0.name, $0.type, $0.description] }
        }
        return tables
    }

    /// The CSV files and the data dictionary in one ZIP, written by ZIPFoundation in memory.
    static func zip(_ tables: [StudyExport: [[String]]], now: Date) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for export in csvFiles {
            let data = Data(try CSVExport.bytes(rows: tables[export] ?? []))
            try archive.addEntry(with: export.fileName, type: .file, uncompressedSize: Int64(data.count), modificationDate: now,
                                 compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let data = archive.data else { throw StudyExportFailed() }
        return data
    }
}

struct StudyExportFailed: Error {}

/// The exports page and the downloads, each audited.
struct StudyExportsController {
    let portal: Portal

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.studyExports.pattern, access: .studyStaff, page)
        for export in StudyExport.allCases {
            routes.get(SiteURL.studyExport(export).pattern, access: .studyStaff) { request, context in
                try await download(export, request: request, context: context)
            }
        }
    }

    @Sendable func page(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(StudyExportsPage(
            layout: portal.layout("Exports", context: context, current: .studyExports),
            files: StudyExport.allCases.map { .init(title: $0.title, summary: $0.summary, path: SiteURL.studyExport($0).path, fileName: $0.fileName) },
            timeZone: portal.programSettings.current.timeZone.identifier
        ))
    }

    func download(_ export: StudyExport, request: Request, context: PortalContext) async throws -> Response {
        let now = portal.now
        let clock = portal.programSettings.current.clock
        let event = AuditEvent(
            actor: context.auditActor, action: .studyExported, recordType: "study", origin: portal.origin(of: request, context: context),
            detail: export.fileName
        )
        // Recorded before anything is sent, in the same transaction as the read.
        let tables = try await portal.database.transaction { db in
            let tables = try await StudyExportTables.tables(on: db, clock: clock, now: now)
            try await portal.audit.record(event, on: db)
            return tables
        }
        let stamp = clock.date(of: now).iso
        let bytes: [UInt8]
        let type: String
        if export == .all {
            bytes = Array(try StudyExportTables.zip(tables, now: now))
            type = "application/zip"
        } else {
            bytes = try CSVExport.bytes(rows: tables[export] ?? [])
            type = "text/csv; charset=utf-8"
        }
        let name = export.fileName.replacingOccurrences(of: ".", with: "-\(stamp).")
        return Response(
            status: .ok,
            headers: [.contentType: type, .contentDisposition: "attachment; filename=\"\(name)\""],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
