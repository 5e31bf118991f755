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
            .init(
                name: "withdrawn_on",
                type: "date (YYYY-MM-DD)",
                description: "The day she was withdrawn; empty while active. Her days in the study end the day before"
            )
        ],
        .todoOutcomes: [
            .init(name: "study_id", type: "text", description: "The participant's study id"),
            .init(name: "day", type: "date (YYYY-MM-DD)", description: "The day on the study's clock; only closed days (before today) are listed"),
            .init(
                name: "item_id",
                type: "integer",
                description: "The to-do's number; a reworded to-do gets a new number from the day after the change"
            ),
            .init(name: "item", type: "text", description: "The to-do as it was worded that day"),
            .init(
                name: "outcome",
                type: "done | not_done",
                description: "done when she marked it in the app that day; not_done when the day closed without it"
            ),
            .init(name: "marked_at", type: "instant (ISO 8601, UTC)", description: "When she marked it done; empty when not done"),
            .init(name: "closed_at", type: "instant (ISO 8601, UTC)", description: "When the day closed: midnight at its end on the study's clock")
        ],
        .appOpens: [
            .init(name: "study_id", type: "text", description: "The participant's study id"),
            .init(
                name: "opened_at",
                type: "instant (ISO 8601, UTC)",
                description: "When the app was opened; opens within a minute of the previous one are not recorded"
            ),
            .init(name: "day", type: "date (YYYY-MM-DD)", description: "The day of the open on the study's clock")
        ],
        .feedback: [
            .init(name: "study_id", type: "text", description: "The participant's study id"),
            .init(name: "submitted_at", type: "instant (ISO 8601, UTC)", description: "When she sent it"),
            .init(name: "day", type: "date (YYYY-MM-DD)", description: "The day she sent it on the study's clock"),
            .init(name: "message", type: "text", description: "What she wrote, exactly as sent"),
            .init(name: "handled_at", type: "instant (ISO 8601, UTC)", description: "When staff marked it handled; empty when not yet")
        ],
        .dataDictionary: [
            .init(name: "file", type: "text", description: "The export file the column belongs to"),
            .init(name: "column", type: "text", description: "The column's name, as in the file's first row"),
            .init(name: "type", type: "text", description: "What its values are"),
            .init(name: "description", type: "text", description: "What it means")
        ]
    ]

    static let csvFiles: [StudyExport] = [.participants, .todoOutcomes, .appOpens, .feedback, .dataDictionary]
}

/// What the export files are written from, read in one transaction so that the files agree with one
/// another. Kept as numbers and dates, not as text: each file's CSV is written from it straight into
/// bytes, one file at a time.
struct StudyExportData: Sendable {
    let participants: [StudyParticipant]
    let schedule: StudySchedule
    /// Her marks, by participant, with when each was made (milliseconds since 1970).
    let marks: [Int64: [StudyMark: Int64]]
    let opens: [(participantID: Int64, openedAt: Int64, day: String)]
    /// Newest first.
    let feedback: [FeedbackMessage]
    let today: CalendarDate
    let clock: ProgramClock

    static func read(on db: any SQLDatabase, clock: ProgramClock, now: Date) async throws -> StudyExportData {
        let studies = StudyRepository()
        return StudyExportData(
            participants: try await studies.participants(on: db),
            schedule: try await studies.schedule(on: db),
            marks: try await studies.allMarks(on: db),
            opens: try await studies.allOpens(on: db),
            feedback: try await FeedbackRepository(program: .researchStudy).messages(on: db),
            today: clock.date(of: now),
            clock: clock
        )
    }

    /// One file's CSV, header first.
    func csv(_ export: StudyExport) -> [UInt8] {
        var writer = CSVExport.Writer(capacity: export == .todoOutcomes ? 1 << 20 : 1 << 16)
        writer.row(StudyExportTables.columns[export]?.map(\.name) ?? [])
        switch export {
        case .participants:
            for participant in participants {
                writer.text(participant.studyCode)
                writer.text(participant.arm ?? "")
                writer.date(participant.enrolledOn)
                writer.text(participant.status.rawValue)
                if let withdrawnOn = participant.withdrawnOn { writer.date(withdrawnOn) } else { writer.empty() }
                writer.endRow()
            }
        case .todoOutcomes:
            writeOutcomes(to: &writer)
        case .appOpens:
            let codes = Dictionary(participants.map { ($0.id, $0.studyCode) }, uniquingKeysWith: { first, _ in first })
            for open in opens {
                guard let code = codes[open.participantID] else { continue }
                writer.text(code)
                writer.instant(milliseconds: open.openedAt)
                writer.text(open.day)
                writer.endRow()
            }
        case .feedback:
            let studyCodes = Dictionary(participants.map { ($0.id, $0.studyCode) }, uniquingKeysWith: { first, _ in first })
            for message in feedback.reversed() {
                writer.text(studyCodes[message.author.accountID] ?? "")
                writer.instant(milliseconds: Self.milliseconds(message.submittedAt))
                writer.date(clock.date(of: message.submittedAt))
                writer.text(message.body)
                if let handledAt = message.handledAt { writer.instant(milliseconds: Self.milliseconds(handledAt)) } else { writer.empty() }
                writer.endRow()
            }
        case .dataDictionary:
            for file in StudyExportTables.csvFiles {
                for column in StudyExportTables.columns[file] ?? [] {
                    writer.row([file.fileName, column.name, column.type, column.description])
                }
            }
        case .all:
            break
        }
        return writer.bytes
    }

    /// One row per participant, closed day and item asked that day.
    private func writeOutcomes(to writer: inout CSVExport.Writer) {
        let yesterday = today.adding(days: -1)
        var closings: [Int: Int64] = [:]
        var asked: [Int: [StudyTodoItem]] = [:]
        var itemIDs: [Int64: String] = [:]
        for participant in participants {
            guard let days = participant.days(through: yesterday) else { continue }
            let hers = marks[participant.id] ?? [:]
            for day in days {
                let closed: Int64
                if let known = closings[day] {
                    closed = known
                } else {
                    closed = Self.milliseconds(clock.instant(startOf: CalendarDate(dayNumber: day + 1)))
                    closings[day] = closed
                }
                let items: [StudyTodoItem]
                if let known = asked[day] {
                    items = known
                } else {
                    items = schedule.items(onDayNumber: day)
                    asked[day] = items
                }
                let date = CalendarDate(dayNumber: day)
                for item in items {
                    writer.text(participant.studyCode)
                    writer.date(date)
                    if let id = itemIDs[item.id] {
                        writer.text(id)
                    } else {
                        let id = String(item.id)
                        itemIDs[item.id] = id
                        writer.text(id)
                    }
                    writer.text(item.title)
                    if let marked = hers[StudyMark(itemID: item.id, dayNumber: day)] {
                        writer.text("done")
                        writer.instant(milliseconds: marked)
                    } else {
                        writer.text("not_done")
                        writer.empty()
                    }
                    writer.instant(milliseconds: closed)
                    writer.endRow()
                }
            }
        }
    }

    /// An instant read from the database as milliseconds, back to the exact millisecond.
    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The CSV files and the data dictionary in one ZIP at `url`, written one file at a time.
    func zip(to url: URL, now: Date) throws {
        let archive = try Archive(url: url, accessMode: .create)
        for export in StudyExportTables.csvFiles {
            let bytes = csv(export)
            try archive.addEntry(
                with: export.fileName,
                type: .file,
                uncompressedSize: Int64(bytes.count),
                modificationDate: now,
                compressionMethod: .deflate
            ) { position, size in
                Data(bytes[Int(position)..<Int(position) + size])
            }
        }
    }
}

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
        portal.pages.response(
            StudyExportsPage(
                layout: portal.layout("Exports", context: context, current: .studyExports),
                files: StudyExport.allCases.map {
                    .init(title: $0.title, summary: $0.summary, path: SiteURL.studyExport($0).path, fileName: $0.fileName)
                },
                timeZone: portal.programSettings.current.timeZone.identifier
            )
        )
    }

    func download(_ export: StudyExport, request: Request, context: PortalContext) async throws -> Response {
        let now = portal.now
        let clock = portal.programSettings.current.clock
        let event = AuditEvent(
            actor: context.auditActor,
            action: .studyExported,
            recordType: "study",
            origin: portal.origin(of: request, context: context),
            detail: export.fileName
        )
        // Recorded before anything is sent, in the same transaction as the read.
        let data = try await portal.database.transaction { db in
            let data = try await StudyExportData.read(on: db, clock: clock, now: now)
            try await portal.audit.record(event, on: db)
            return data
        }
        let name = export.fileName.replacingOccurrences(of: ".", with: "-\(clock.date(of: now).iso).")
        let disposition = "attachment; filename=\"\(name)\""
        guard export == .all else {
            return Response(
                status: .ok,
                headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: disposition],
                body: .init(byteBuffer: ByteBuffer(bytes: data.csv(export)))
            )
        }
        let file = try StudyExportFile.zip(data, now: now, dataDirectory: portal.settings.dataDirectory)
        return Response(
            status: .ok,
            headers: [.contentType: "application/zip", .contentDisposition: disposition],
            body: file.body()
        )
    }
}

/// The ZIP, written to a file of its own under DATA_DIR and sent from there in pieces, so the server
/// never holds the whole archive. The file's name is removed as soon as it is open: nothing of it is
/// left on disk once it has been sent, or if sending stops half-way.
final class StudyExportFile: Sendable {
    let descriptor: Int32
    let size: Int

    private init(descriptor: Int32, size: Int) {
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }

    static func zip(_ data: StudyExportData, now: Date, dataDirectory: String) throws -> StudyExportFile {
        let folder = "\(dataDirectory)/study-exports"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = "\(folder)/\(UUID().uuidString).zip"
        defer { unlink(path) }
        try data.zip(to: URL(fileURLWithPath: path), now: now)
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw StudyExportFailed() }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            throw StudyExportFailed()
        }
        return StudyExportFile(descriptor: descriptor, size: Int(status.st_size))
    }

    /// The file from its start, 64 KiB at a time.
    func body() -> ResponseBody {
        ResponseBody(contentLength: size) { writer in
            var offset = 0
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while offset < self.size {
                let count = chunk.withUnsafeMutableBytes { pread(self.descriptor, $0.baseAddress, $0.count, off_t(offset)) }
                guard count > 0 else { throw StudyExportFailed() }
                try await writer.write(ByteBuffer(bytes: chunk[0..<count]))
                offset += count
            }
            try await writer.finish(nil)
        }
    }
}

struct StudyExportFailed: Error {}
