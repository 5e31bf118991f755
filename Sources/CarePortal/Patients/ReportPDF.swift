import CHPDF
import Foundation
import PortalPlatform

/// The TrueType fonts reports are set in: DejaVu Sans from Debian's fonts-dejavu-core, which covers
/// the Latin, Greek and Cyrillic alphabets, so "José Núñez-Ødegård" prints as typed.
enum ReportFonts {
    static let directory = "/usr/share/fonts/truetype/dejavu"
    static let regular = "\(directory)/DejaVuSans.ttf"
    static let bold = "\(directory)/DejaVuSans-Bold.ttf"

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "The report fonts \(ReportFonts.regular) and \(ReportFonts.bold) are missing: apt-get install fonts-dejavu-core"
        }
    }

    /// Start-up stops here, not at the first report, when the fonts are not installed.
    static func check() throws {
        guard FileManager.default.isReadableFile(atPath: regular), FileManager.default.isReadableFile(atPath: bold) else { throw Missing() }
    }
}

/// A patient report as a PDF, drawn with libharu: the summary, the prescriptions in force, the daily
/// adherence chart, adherence per medication and exercise, and the daily figures.
struct ReportPDF {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    let report: PatientReport

    func render() throws -> [UInt8] {
        let document = try Document()
        try document.write(report)
        return try document.bytes()
    }
}

/// Keeps libharu's first error, so a failure is reported rather than a broken file returned.
private final class ErrorBox {
    var error: (HPDF_STATUS, HPDF_STATUS)?
}

private let recordError: HPDF_Error_Handler = { errorNumber, detail, userData in
    guard let userData else { return }
    let box = Unmanaged<ErrorBox>.fromOpaque(userData).takeUnretainedValue()
    if box.error == nil { box.error = (errorNumber, detail) }
}

/// One libharu document with a cursor that moves down the page and starts a new page when needed.
private final class Document {
    let pdf: HPDF_Doc
    let errors = ErrorBox()
    let regular: HPDF_Font
    let bold: HPDF_Font
    var page: HPDF_Page!
    var pageNumber = 0
    var y: Float = 0
    var footer = ""

    static let width: Float = 595.28
    static let height: Float = 841.89
    static let margin: Float = 50
    static var contentWidth: Float { width - 2 * margin }

    init() throws {
        guard let pdf = HPDF_New(recordError, Unmanaged.passUnretained(errors).toOpaque()) else {
            throw ReportPDF.Failed(description: "libharu could not start a document")
        }
        self.pdf = pdf
        HPDF_UseUTFEncodings(pdf)
        HPDF_SetCurrentEncoder(pdf, "UTF-8")
        HPDF_SetCompressionMode(pdf, UInt32(HPDF_COMP_ALL))
        guard let regularName = HPDF_LoadTTFontFromFile(pdf, ReportFonts.regular, HPDF_TRUE),
            let boldName = HPDF_LoadTTFontFromFile(pdf, ReportFonts.bold, HPDF_TRUE),
            let regular = HPDF_GetFont(pdf, regularName, "UTF-8"),
            let bold = HPDF_GetFont(pdf, boldName, "UTF-8")
        else {
            HPDF_Free(pdf)
            throw ReportPDF.Failed(description: "libharu could not load the report fonts")
        }
        self.regular = regular
        self.bold = bold
    }

    deinit { HPDF_Free(pdf) }

    func bytes() throws -> [UInt8] {
        if let error = errors.error {
            throw ReportPDF.Failed(description: String(format: "libharu error 0x%04X (detail %u)", error.0, error.1))
        }
        guard HPDF_SaveToStream(pdf) == UInt(HPDF_OK) else { throw ReportPDF.Failed(description: "libharu could not save the document") }
        var size = HPDF_GetStreamSize(pdf)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard HPDF_ReadFromStream(pdf, &bytes, &size) == UInt(HPDF_OK) || size > 0 else {
            throw ReportPDF.Failed(description: "libharu could not read the document back")
        }
        return Array(bytes.prefix(Int(size)))
    }

    // MARK: Pages and text

    func newPage() {
        page = HPDF_AddPage(pdf)
        HPDF_Page_SetWidth(page, Self.width)
        HPDF_Page_SetHeight(page, Self.height)
        pageNumber += 1
        y = Self.height - Self.margin
        let number = "Page \(pageNumber)"
        let numberWidth = width(number, size: 8, font: regular)
        text(
            fitted(footer, size: 8, font: regular, available: Self.contentWidth - numberWidth - 12),
            x: Self.margin,
            y: 28,
            size: 8,
            font: regular,
            gray: 0.35
        )
        text(number, x: Self.width - Self.margin - numberWidth, y: 28, size: 8, font: regular, gray: 0.35)
    }

    /// Starts a new page unless `height` points still fit above the footer.
    func need(_ height: Float) {
        if page == nil || y - height < Self.margin + 10 { newPage() }
    }

    func width(_ string: String, size: Float, font: HPDF_Font) -> Float {
        let bytes = Array(string.utf8)
        return Float(HPDF_Font_TextWidth(font, bytes, UInt32(bytes.count)).width) * size / 1000
    }

    func text(_ string: String, x: Float, y: Float, size: Float, font: HPDF_Font? = nil, gray: Float = 0) {
        guard !string.isEmpty else { return }
        HPDF_Page_SetGrayFill(page, gray)
        HPDF_Page_BeginText(page)
        HPDF_Page_SetFontAndSize(page, font ?? regular, size)
        HPDF_Page_TextOut(page, x, y, string)
        HPDF_Page_EndText(page)
    }

    /// `string` shortened with an ellipsis to fit `available` points.
    func fitted(_ string: String, size: Float, font: HPDF_Font, available: Float) -> String {
        guard width(string, size: size, font: font) > available else { return string }
        var characters = Array(string)
        while !characters.isEmpty, width(String(characters) + "…", size: size, font: font) > available { characters.removeLast() }
        return String(characters) + "…"
    }

    /// Writes a paragraph, wrapping at word boundaries.
    func paragraph(_ string: String, size: Float = 10, font: HPDF_Font? = nil, gap: Float = 4) {
        let font = font ?? regular
        var line = ""
        var lines: [String] = []
        for word in string.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : "\(line) \(word)"
            if width(candidate, size: size, font: font) > Self.contentWidth, !line.isEmpty {
                lines.append(line)
                line = String(word)
            } else {
                line = candidate
            }
        }
        if !line.isEmpty { lines.append(line) }
        for line in lines {
            need(size + 4)
            y -= size + 3
            text(line, x: Self.margin, y: y, size: size, font: font)
        }
        y -= gap
    }

    func heading(_ string: String, size: Float = 13) {
        need(size + 60)
        y -= 10
        paragraph(string, size: size, font: bold, gap: 6)
    }

    /// A table with a header row repeated on each new page.
    func table(columns: [(title: String, width: Float, alignRight: Bool)], rows: [[String]], size: Float = 8.5) {
        let rowHeight = size + 6
        func header() {
            y -= rowHeight
            var x = Self.margin
            for column in columns {
                let title = fitted(column.title, size: size, font: bold, available: column.width - 4)
                let left = column.alignRight ? x + column.width - 4 - width(title, size: size, font: bold) : x
                text(title, x: left, y: y + 3, size: size, font: bold)
                x += column.width
            }
            line(from: (Self.margin, y), to: (Self.margin + Self.contentWidth, y), gray: 0.2, width: 0.8)
        }
        need(rowHeight * 3)
        header()
        for row in rows {
            if y - rowHeight < Self.margin + 10 {
                newPage()
                header()
            }
            y -= rowHeight
            var x = Self.margin
            for (column, cell) in zip(columns, row) {
                let value = fitted(cell, size: size, font: regular, available: column.width - 4)
                let left = column.alignRight ? x + column.width - 4 - width(value, size: size, font: regular) : x
                text(value, x: left, y: y + 3, size: size)
                x += column.width
            }
            line(from: (Self.margin, y), to: (Self.margin + Self.contentWidth, y), gray: 0.8, width: 0.4)
        }
        y -= 8
    }

    // MARK: Drawing

    func line(from start: (Float, Float), to end: (Float, Float), gray: Float, width: Float, dashed: Bool = false) {
        HPDF_Page_SetGrayStroke(page, gray)
        HPDF_Page_SetLineWidth(page, width)
        if dashed {
            var pattern: [UInt16] = [4, 3]
            HPDF_Page_SetDash(page, &pattern, 2, 0)
        }
        HPDF_Page_MoveTo(page, start.0, start.1)
        HPDF_Page_LineTo(page, end.0, end.1)
        HPDF_Page_Stroke(page)
        if dashed { HPDF_Page_SetDash(page, nil, 0, 0) }
    }

    func rectangle(x: Float, y: Float, width: Float, height: Float, rgb: (Float, Float, Float)) {
        guard width > 0, height > 0 else { return }
        HPDF_Page_SetRGBFill(page, rgb.0, rgb.1, rgb.2)
        HPDF_Page_Rectangle(page, x, y, width, height)
        HPDF_Page_Fill(page)
    }

    static let barColour: (Float, Float, Float) = (0.114, 0.439, 0.722)

    // MARK: The report

    func write(_ report: PatientReport) throws {
        let patient = report.patient
        footer = "\(patient.fullName) · medical number \(patient.contact.medicalNumber) · \(report.periodText)"
        HPDF_SetInfoAttr(pdf, HPDF_INFO_TITLE, "Adherence report: \(patient.fullName)")
        HPDF_SetInfoAttr(pdf, HPDF_INFO_CREATOR, "CarePortal")
        newPage()
        paragraph("Adherence report", size: 20, font: bold, gap: 8)
        paragraph(patient.fullName, size: 15, font: bold, gap: 6)
        paragraph("Medical number: \(patient.contact.medicalNumber)")
        paragraph("Physician: \(report.physicianName)")
        paragraph("Period: \(report.periodText)")
        paragraph("Produced: \(DisplayTime.dateTime(report.producedAt))", gap: 10)
        paragraph("Overall adherence: \(report.overallText)", size: 11, font: bold, gap: 4)
        paragraph(
            "Adherence is the share of scheduled doses and exercise sessions the patient logged as done. Days are UTC days.",
            size: 8.5,
            gap: 6
        )

        heading("Prescriptions in force")
        if report.prescriptions.isEmpty {
            paragraph("No medication or exercise was prescribed in this period.")
        } else {
            table(
                columns: [
                    ("Type", 60, false), ("Medication or exercise", 125, false), ("Dose or amount", 95, false),
                    ("Frequency", 85, false), ("From", 65, false), ("Until", 65.28, false)
                ],
                rows: report.prescriptions.map {
                    [
                        $0.kind.title, $0.name, $0.dose, $0.frequencyName, $0.startsOn.short,
                        $0.endsOn.map { CalendarDate(dayNumber: $0.dayNumber - 1).short } ?? "Now"
                    ]
                }
            )
        }

        dailyChart(report.summary)
        itemChart(report.summary)

        heading("Each day")
        table(
            columns: [
                ("Date", 110, false), ("Scheduled", 75, true), ("Done", 75, true), ("Missed", 75, true), ("Not logged", 80, true),
                ("Adherence", 80.28, true)
            ],
            rows: report.summary.days.map {
                [$0.day.displayed, "\($0.count.scheduled)", "\($0.count.done)", "\($0.count.missed)", "\($0.count.notLogged)", $0.count.percentText]
            }
        )
        paragraph("Each medication and exercise on each day is in the CSV export of this report.", size: 8.5)
    }

    /// Bars for each day under a dashed 100% line, with the axes labelled.
    func dailyChart(_ summary: AdherenceSummary) {
        let chartHeight: Float = 150
        heading("Daily adherence")
        need(chartHeight + 50)
        let left = Self.margin + 34, right = Self.margin + Self.contentWidth
        let bottom = y - chartHeight - 6, top = bottom + chartHeight
        for percent in stride(from: 0, through: 100, by: 25) {
            let lineY = bottom + Float(percent) * chartHeight / 100
            let label = "\(percent)%"
            text(label, x: left - 6 - width(label, size: 7.5, font: regular), y: lineY - 2.5, size: 7.5)
            line(
                from: (left, lineY),
                to: (right, lineY),
                gray: percent == 100 ? 0.1 : 0.85,
                width: percent == 100 ? 0.9 : 0.4,
                dashed: percent == 100
            )
        }
        let count = max(1, summary.days.count)
        let slot = (right - left) / Float(count)
        for (index, day) in summary.days.enumerated() {
            guard let percent = day.count.percent else { continue }
            rectangle(
                x: left + Float(index) * slot + slot * 0.12,
                y: bottom,
                width: max(0.4, slot * 0.76),
                height: Float(percent) * chartHeight / 100,
                rgb: Self.barColour
            )
        }
        line(from: (left, bottom), to: (right, bottom), gray: 0, width: 0.8)
        line(from: (left, bottom), to: (left, top), gray: 0, width: 0.8)
        // A label at the first day of each month, or about eight labels for short spans.
        let every = max(1, Int((Float(count) / 8).rounded(.up)))
        var lastLabelEnd: Float = 0
        for (index, day) in summary.days.enumerated() where count > 62 ? day.day.day == 1 || index == 0 : index % every == 0 {
            let label =
                count > 62
                ? "\(CalendarDate.monthNames[day.day.month - 1].prefix(3)) \(day.day.year % 100 < 10 ? "0" : "")\(day.day.year % 100)" : day.day.short
            let x = left + Float(index) * slot
            guard x >= lastLabelEnd else { continue }
            text(label, x: x, y: bottom - 11, size: 7)
            lastLabelEnd = x + width(label, size: 7, font: regular) + 6
        }
        text("Day", x: (left + right) / 2, y: bottom - 22, size: 7.5, font: bold)
        y = bottom - 30
        paragraph(
            "Bars: the share of the day’s scheduled doses and sessions logged as done. Dashed line: 100%. Days with nothing scheduled have no bar.",
            size: 8
        )
    }

    /// One bar per medication and exercise, each labelled with its percentage and counts.
    func itemChart(_ summary: AdherenceSummary) {
        heading("By medication and exercise")
        guard !summary.items.isEmpty else {
            paragraph("Nothing was scheduled in this period.")
            return
        }
        let labelWidth: Float = 160, barArea: Float = 220
        for item in summary.items {
            need(22)
            y -= 20
            let name = fitted("\(item.name) (\(item.kind.title.lowercased()))", size: 8.5, font: regular, available: labelWidth - 8)
            text(name, x: Self.margin, y: y + 5, size: 8.5)
            let percent = item.count.percent ?? 0
            rectangle(x: Self.margin + labelWidth, y: y, width: Float(percent) * barArea / 100, height: 14, rgb: Self.barColour)
            line(
                from: (Self.margin + labelWidth + barArea, y - 2),
                to: (Self.margin + labelWidth + barArea, y + 16),
                gray: 0.1,
                width: 0.8,
                dashed: true
            )
            let value = "\(item.count.percentText) (\(item.count.done) of \(item.count.scheduled) done)"
            text(value, x: Self.margin + labelWidth + barArea + 8, y: y + 4, size: 8.5)
        }
        y -= 8
        paragraph("Dashed line: 100%.", size: 8)
    }
}
