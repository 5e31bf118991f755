import CSV
import Foundation
import Testing
@testable import PortalPlatform

/// The house CSV writer: what it writes reads back as the same fields, byte for byte what the CSV
/// library wrote before it, with formulas made inert and instants in ISO 8601.
@Suite struct CSVExportTests {
    static let awkward = [
        "", "plain", "a,b", #"she said "yes""#, "two\nlines", "two\r\nlines", "carriage\rreturn", #"""#, ",", "trailing space ",
        "=SUM(A1)", "+1", "-5", "@cmd", "\tTabbed", "=\"quoted\",\nformula", "café", "👩🏽‍⚕️ nurse, \"midwife\"", "e\u{301}", "\"\u{301}",
        ",\u{301}", "'already quoted"
    ]

    /// What the CSV library writes for the same rows, formulas made inert the same way.
    static func library(_ rows: [[String]]) throws -> [UInt8] {
        let stream = OutputStream(toMemory: ())
        let writer = try CSVWriter(stream: stream, newline: .crlf)
        for row in rows { try writer.write(row: row.map(CSVExport.inertCell)) }
        writer.stream.close()
        let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
        return Array(data) + Array("\r\n".utf8)
    }

    static func read(_ bytes: [UInt8]) throws -> [[String]] {
        let reader = try CSVReader(string: String(decoding: bytes, as: UTF8.self))
        var rows: [[String]] = []
        while let row = reader.next() { rows.append(row) }
        return rows
    }

    @Test func awkwardFieldsReadBackAsWrittenAndMatchTheLibrary() throws {
        var rows = Self.awkward.map { [$0, "x"] }
        rows.append(Self.awkward)
        rows.append(Self.awkward.reversed())
        let bytes = try CSVExport.bytes(rows: rows)
        #expect(try Self.read(bytes) == rows.map { $0.map(CSVExport.inertCell) })
        // The library compares characters, so a quote or comma carrying a combining mark is one
        // character that matches neither and goes out unquoted; the writer quotes it. Everything else
        // is the same bytes as before.
        let plain = rows.map { $0.filter { !$0.unicodeScalars.contains { $0.properties.generalCategory == .nonspacingMark } } }
        #expect(try CSVExport.bytes(rows: plain) == (try Self.library(plain)), "the same bytes the CSV library wrote")
        #expect(String(decoding: try CSVExport.bytes(rows: [["\"\u{301}", ",\u{301}"]]), as: UTF8.self) == "\"\"\"\u{301}\",\",\u{301}\"\r\n")
    }

    @Test func randomFieldsMatchTheLibrary() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [String] = ["a", "Z", "0", " ", ",", "\"", "\n", "\r", "=", "+", "-", "@", "\t", "é", "—", "'", ";"]
        for _ in 0..<200 {
            let rows = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                    (0..<Int.random(in: 0...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
                }
            }
            // A field starting "\r\n" is one character to the library, and left as it is there; the writer
            // reads bytes and guards it too (below).
            guard !rows.joined().contains(where: { $0.hasPrefix("\r\n") }) else { continue }
            #expect(try CSVExport.bytes(rows: rows) == (try Self.library(rows)), "\(rows)")
        }
    }

    @Test func formulaStartsAreMadeInertByTheirFirstByte() {
        for start in ["=", "+", "-", "@", "\t", "\r"] {
            #expect(CSVExport.inertCell(start + "1") == "'" + start + "1")
        }
        // A combining mark after the sign, or a line break after a return, is still a formula start.
        #expect(CSVExport.inertCell("=\u{301}1") == "'=\u{301}1")
        #expect(CSVExport.inertCell("\r\n=1") == "'\r\n=1")
        #expect(CSVExport.inertCell("1=2") == "1=2")
        #expect(CSVExport.inertCell("") == "")
    }

    @Test func typedFieldsAreWrittenWithoutATextConversion() throws {
        var writer = CSVExport.Writer()
        writer.integer(42)
        writer.integer(-7)
        writer.date(CalendarDate(iso: "2027-03-09")!)
        writer.empty()
        writer.instant(milliseconds: 1_804_000_000_123)
        writer.instant(milliseconds: 0)
        writer.instant(milliseconds: -1)
        writer.endRow()
        #expect(
            String(decoding: writer.take(), as: UTF8.self)
                == "42,'-7,2027-03-09,,2027-03-02T15:06:40.123Z,1970-01-01T00:00:00.000Z,1969-12-31T23:59:59.999Z\r\n"
        )
        #expect(writer.bytes.isEmpty)
    }

    @Test func instantsMatchISO8601DateFormatter() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let milliseconds = Int64.random(in: 0...4_102_444_800_000, using: &generator)
            var writer = CSVExport.Writer()
            writer.instant(milliseconds: milliseconds)
            let written = String(decoding: writer.bytes, as: UTF8.self)
            // Whole seconds, so the formatter's own rounding of a binary fraction does not come into it.
            let whole = milliseconds / 1000 * 1000
            var wholeWriter = CSVExport.Writer()
            wholeWriter.instant(milliseconds: whole)
            #expect(
                String(decoding: wholeWriter.bytes, as: UTF8.self) == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(whole / 1000)))
            )
            // And the text names the exact millisecond.
            #expect(formatter.date(from: written).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == milliseconds)
        }
    }

    /// Days as the database and JSON carry them, read byte by byte: exactly `YYYY-MM-DD`, real days only.
    @Test func isoDaysAreReadStrictly() {
        #expect(CalendarDate(iso: "2027-03-09") == CalendarDate(year: 2027, month: 3, day: 9))
        #expect(CalendarDate(iso: "2028-02-29") != nil)
        for text in [
            "", "2027-3-09", "2027-03-9", "2027-03-09 ", " 2027-03-09", "2027/03/09", "2027-03-091", "+027-03-09", "2027-+3-09",
            "2027-02-29", "2027-13-01", "2027-00-10", "2027-04-31", "0000-01-01", "２０２７-03-09", "2027-03-0\u{301}9", "2027-03-0a"
        ] {
            #expect(CalendarDate(iso: text) == nil, "\(text)")
        }
        for day in stride(from: -1_000, through: 30_000, by: 37) {
            let date = CalendarDate(dayNumber: day)
            #expect(CalendarDate(iso: date.iso) == date)
        }
    }
}
