import Foundation
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Adherence charts and reports: the charts draw the table's numbers, the CSV holds the page's table,
/// and the PDF reads back with the patient's name as typed.
@Suite struct PatientReportTests {
    /// A patient on levodopa three times and walking once a day for the last ten days, with a known mix of logs.
    static func patientWithLogs(_ portal: TestPortal) async throws -> (Visitor, Patient, CalendarDate, CalendarDate) {
        let catalogue = try await PatientFixtures.catalogue(portal)
        var (physician, account) = try await portal.signedIn(.physician)
        try await portal.database.transaction { db in
            try await StaffAccountRepository().createPhysicianProfile(
                PhysicianProfile(
                    firstName: "Åsa",
                    middleName: "",
                    lastName: "Ødegård",
                    practiceLocation: "Tromsø",
                    medicalIDNumber: "N-2"
                ),
                accountID: account.id,
                on: db
            )
        }
        let today = CalendarDate(portal.clock.now)
        let from = today.adding(days: -9)
        let (patient, _) = try await PatientFixtures.patient(portal, physicianID: account.id, catalogue: catalogue, startsOn: from)
        let prescriptions = try await portal.database.read { db in try await RegimenRepository().prescriptions(patientID: patient.id, on: db) }
        try await portal.database.transaction { db in
            for offset in 0..<10 {
                let day = from.adding(days: offset)
                // Day n: the first n % 4 levodopa doses done, the next one missed; walking done on even days.
                for slot in 1...3 where slot <= offset % 4 + 1 {
                    let status: AdherenceLog.Status = slot <= offset % 4 ? .done : .missed
                    try await RegimenRepository().log(
                        AdherenceLog(
                            prescriptionID: prescriptions[0].id,
                            day: day,
                            slot: slot,
                            status: status,
                            loggedAt: portal.clock.now
                        ),
                        patientID: patient.id,
                        now: portal.clock.now,
                        on: db
                    )
                }
                if offset % 2 == 0 {
                    try await RegimenRepository().log(
                        AdherenceLog(
                            prescriptionID: prescriptions[1].id,
                            day: day,
                            slot: 1,
                            status: .done,
                            loggedAt: portal.clock.now
                        ),
                        patientID: patient.id,
                        now: portal.clock.now,
                        on: db
                    )
                }
            }
        }
        try await physician.get("/patients")
        return (physician, patient, from, today)
    }

    /// The cells of each row of the table marked `data-table="name"`.
    static func table(_ name: String, in html: String) throws -> [[String]] {
        let start = try #require(html.range(of: "data-table=\"\(name)\""))
        let body = try #require(html[start.upperBound...].range(of: "<tbody>"))
        let end = try #require(html[body.upperBound...].range(of: "</tbody>"))
        return html[body.upperBound..<end.lowerBound].components(separatedBy: "<tr>").dropFirst().map { row in
            row.components(separatedBy: "<td").dropFirst().map { cell in
                let text = cell.drop { $0 != ">" }.dropFirst()
                return String(text.prefix { $0 != "<" })
            }
        }
    }

    /// The bars of one chart drawn by the shared chart kinds, in order: each one's `attribute` (its
    /// height or width) and its tooltip.
    static func bars(_ attribute: String, chart: String, in html: String) throws -> [(size: Double, tooltip: String)] {
        let start = try #require(html.range(of: "data-chart=\"\(chart)\""))
        let end = try #require(html[start.upperBound...].range(of: "</svg>"))
        return try html[start.upperBound..<end.lowerBound].components(separatedBy: "<rect ").dropFirst()
            .filter { $0.contains("class=\"chart__box\"><title>") }
            .map { rect in
                let value = try #require(rect.components(separatedBy: " \(attribute)=\"").dropFirst().first?.prefix { $0 != "\"" })
                let tooltip = try #require(rect.components(separatedBy: "<title>").dropFirst().first?.prefix { $0 != "<" })
                return (try #require(Double(value)), String(tooltip))
            }
    }

    /// Each `attribute="…"` value of the chart elements of one chart, in order.
    static func values(_ attribute: String, chart: String, in html: String) throws -> [String] {
        let start = try #require(html.range(of: "data-chart=\"\(chart)\""))
        let end = try #require(html[start.upperBound...].range(of: "</svg>"))
        return html[start.upperBound..<end.lowerBound].components(separatedBy: " \(attribute)=\"").dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
    }

    @Test(arguments: TestEngines.all)
    func theChartsDrawTheNumbersOfTheTablesBeneathThem(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (physician, patient, from, today) = try await Self.patientWithLogs(portal)
            let html = try await physician.get("/patients/\(patient.id)?from=\(from.iso)&to=\(today.iso)").text

            // Daily columns: one per day done in part, its height the table's percentage on the chart's 0–100% scale.
            let daily = try Self.table("daily", in: html)
            #expect(daily.count == 10)
            let columns = try Self.bars("height", chart: "daily", in: html)
            let drawn = daily.filter { $0[5] != "0%" && $0[5] != "—" }
            #expect(columns.count == drawn.count)
            let first = try #require(columns.first), firstRow = try #require(drawn.first)
            let perPercent = first.size / (try #require(Double(firstRow[5].dropLast())))
            for (column, row) in zip(columns, drawn) {
                #expect(column.tooltip.contains(": \(row[5]) (\(row[2]) of \(row[1]) done)"), "\(column.tooltip) against \(row)")
                let percent = try #require(Double(row[5].dropLast()))
                #expect(abs(column.size - percent * perPercent) <= 0.2, "a \(row[5]) column is \(column.size) high")
            }
            // Worked by hand: day 0 is 0 of 3 levodopa + walking done = 1 of 4; day 3 is 3 of 3 + 0 of 1 = 3 of 4.
            #expect(daily[0].prefix(6) == [from.displayed, "4", "1", "1", "2", "25%"])
            #expect(daily[3].prefix(6) == [from.adding(days: 3).displayed, "4", "3", "0", "1", "75%"])

            // Per medication and exercise: the bar widths and labels are the table's percentages.
            let items = try Self.table("items", in: html)
            #expect(items.map { $0[0] } == ["Levodopa/carbidopa", "Walking"])
            // Levodopa: done 0+1+2+3+0+1+2+3+0+1 = 13 of 30, missed on 8 days; walking: 5 of 10.
            #expect(items[0][2...6] == ["30", "13", "8", "9", "43%"])
            #expect(items[1][2...6] == ["10", "5", "0", "5", "50%"])
            let bars = try Self.bars("width", chart: "items", in: html)
            #expect(bars.map(\.tooltip) == ["Levodopa/carbidopa: 43% (13 of 30)", "Walking: 50% (5 of 10)"])
            #expect(bars.count == 2 && abs(bars[0].size / 43 - bars[1].size / 50) < 0.01, "the bars' lengths are in proportion")

            // The month calendar labels each day with the same percentage.
            let calendarDays = try Self.values("data-day", chart: "calendar", in: html)
            let calendarPercents = try Self.values("data-percent", chart: "calendar", in: html)
            let byDay = Dictionary(uniqueKeysWithValues: zip(calendarDays, calendarPercents))
            for (index, row) in daily.enumerated() {
                let day = from.adding(days: index)
                guard day.month == today.month else { continue }
                #expect(byDay[day.iso]?.hasPrefix(row[5]) == true, "\(day.iso): calendar \(byDay[day.iso] ?? "none"), table \(row[5])")
            }
            #expect(html.contains("<title id=\"daily-title\">Daily adherence, \(from.displayed) to \(today.displayed)</title>"))
            #expect(html.contains(">Day</text>") && html.contains(">Doses and sessions done (%)</text>"), "both axes are labelled")
        }
    }

    @Test(arguments: TestEngines.all)
    func theCSVHoldsTheReportPagesTableRowForRow(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (physician, patient, from, today) = try await Self.patientWithLogs(portal)
            let query = "from=\(from.iso)&to=\(today.iso)"
            let page = try await physician.get("/patients/\(patient.id)/report?\(query)")
            #expect(page.status == .ok)
            let headers = page.text.components(separatedBy: "<th class=\"table__header\" scope=\"col\">").dropFirst().map {
                String($0.prefix { $0 != "<" })
            }
            let pageRows = try Self.table("report", in: page.text)
            #expect(pageRows.count == 20, "one row per scheduled item per day")

            let csv = try await physician.get("/patients/\(patient.id)/report.csv?\(query)")
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.headers[.contentDisposition] == "attachment; filename=\"patient-\(patient.id)-report-\(from.iso)-to-\(today.iso).csv\"")
            let lines = csv.text.split(separator: "\r\n").map(String.init)
            let parsed = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            #expect(parsed[0] == PatientReport.columns)
            #expect(headers.suffix(PatientReport.columns.count) == ArraySlice(PatientReport.columns))
            #expect(Array(parsed.dropFirst()) == pageRows)
            #expect(parsed[1] == [from.iso, "Medication", "Levodopa/carbidopa", "25/100 mg tablet", "Three times daily", "3", "0", "1", "2", "0%"])
            #expect(try await portal.auditEntries(action: .patientReportExported).first?.detail == "csv \(from.iso) to \(today.iso)")
            // A range that makes no sense is refused rather than guessed at.
            #expect(try await physician.get("/patients/\(patient.id)/report.csv?from=\(today.iso)&to=\(from.iso)").status == .badRequest)
        }
    }

    @Test(arguments: TestEngines.all)
    func csvCellsAreEscapedByTheLibraryAndFormulasMadeInert(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (physician, patient, from, today) = try await Self.patientWithLogs(portal)
            try await portal.database.transaction { db in
                try await db.update("catalogue_medications").set("name", to: "=HYPERLINK(\"x\"), \"quoted\"").run()
            }
            let csv = try await physician.get("/patients/\(patient.id)/report.csv?from=\(from.iso)&to=\(today.iso)")
            #expect(csv.text.contains(#"Medication,"'=HYPERLINK(""x""), ""quoted""",25/100 mg tablet"#))
        }
    }

    @Test(arguments: TestEngines.all)
    func thePDFReadsBackWithTheReportAndTheNameAsTyped(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (physician, patient, from, today) = try await Self.patientWithLogs(portal)
            let response = try await physician.get("/patients/\(patient.id)/report.pdf?from=\(from.iso)&to=\(today.iso)")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/pdf")
            let bytes = Data(response.body.readableBytesView)
            #expect(bytes.starts(with: Data("%PDF-".utf8)))
            let text = try Self.pdfText(bytes)
            for expected in [
                "Adherence report", "José María Núñez-Ødegård", "Medical number: 9876 543 210", "Physician: Dr Åsa Ødegård",
                "Period: \(from.displayed) to \(today.displayed)", "Prescriptions in force", "Levodopa/carbidopa", "25/100 mg tablet",
                "Three times daily", "Daily adherence", "By medication and exercise", "43% (13 of 30 done)", "50% (5 of 10 done)", "Each day"
            ] {
                #expect(text.contains(expected), "the PDF text lacks \(expected)")
            }
            // 18 of 40 scheduled done: 45%.
            #expect(
                text.replacingOccurrences(of: "\n", with: " ").contains(
                    "Overall adherence: 45% — 18 of 40 scheduled doses and sessions done, 8 missed, 14 not logged."
                )
            )
            #expect(text.contains("\(from.displayed) 4 1 1 2 25%"), "the daily table's first row")
            #expect(try await portal.auditEntries(action: .patientReportExported).first?.detail == "pdf \(from.iso) to \(today.iso)")
        }
    }

    @Test(arguments: TestEngines.all)
    func aYearLongPDFSpansPagesAndKeepsItsTableHeaders(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (physician, patient, _, today) = try await Self.patientWithLogs(portal)
            let from = today.adding(days: -364)
            let response = try await physician.get("/patients/\(patient.id)/report.pdf?from=\(from.iso)&to=\(today.iso)")
            let text = try Self.pdfText(Data(response.body.readableBytesView))
            let pages = text.split(separator: "\u{0C}").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            #expect(pages.count >= 8)
            #expect(pages.last?.contains("Page \(pages.count)") == true)
            #expect(
                pages.dropFirst(2).allSatisfy { $0.contains("Date") && $0.contains("Adherence") },
                "each page of the daily table repeats its header"
            )
            #expect(text.contains("\(from.displayed) 0 0 0 0 —"), "days before the regimen started have nothing scheduled")
        }
    }

    /// The PDF's text as poppler's `pdftotext` extracts it, in reading layout.
    static func pdfText(_ pdf: Data) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("careportal-pdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("report.pdf"), output = directory.appendingPathComponent("report.txt")
        try pdf.write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pdftotext")
        process.arguments = ["-layout", "-enc", "UTF-8", input.path, output.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "pdftotext could not read the PDF")
        let layout = try String(contentsOf: output, encoding: .utf8)
        // Runs of spaces from the layout become one, so a table row reads as its cells in order.
        return layout.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
            .joined(separator: "\n")
    }
}
