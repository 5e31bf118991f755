import Foundation

/// CSV files people download (RFC 4180, CRLF line ends), written straight into bytes.
///
/// A field is quoted when it holds a comma, a double quote, a carriage return or a line feed, with
/// each double quote doubled inside; every other field is written as it is. A cell that a spreadsheet
/// would run as a formula is made inert first (`inertCell`). Bytes are compared, not characters: the
/// characters that matter are ASCII, and an ASCII byte is never part of another code point, so a quote
/// or comma followed by a combining mark is still found.
package enum CSVExport {
    /// The rows as CSV text; the last row ends with CRLF too, so batches join cleanly.
    package static func bytes(rows: [[String]]) throws -> [UInt8] {
        var writer = Writer()
        for row in rows { writer.row(row) }
        return writer.bytes
    }

    /// OWASP's advice for CSV injection: a leading `=`, `+`, `-`, `@`, tab or return gets a quote before it.
    package static func inertCell(_ value: String) -> String {
        guard let first = value.utf8.first, isFormulaStart(first) else { return value }
        return "'" + value
    }

    static func isFormulaStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): true
        default: false
        }
    }

    /// Appends fields and rows to a growing buffer; `take` hands over what was written so far, so a
    /// long file can be passed on in pieces.
    package struct Writer: Sendable {
        package private(set) var bytes: [UInt8] = []
        private var startsRow = true

        package init(capacity: Int = 0) {
            bytes.reserveCapacity(capacity)
        }

        /// A whole row of text fields.
        package mutating func row(_ fields: [String]) {
            for field in fields { text(field) }
            endRow()
        }

        /// A text field: made inert if it starts like a formula, quoted if it needs to be.
        package mutating func text(_ value: String) {
            separate()
            var value = value
            value.withUTF8 { utf8 in
                guard let first = utf8.first else { return }
                let needsQuotes = utf8.contains { byte in
                    byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n")
                }
                if needsQuotes { bytes.append(UInt8(ascii: "\"")) }
                if isFormulaStart(first) { bytes.append(UInt8(ascii: "'")) }
                if needsQuotes {
                    for byte in utf8 {
                        if byte == UInt8(ascii: "\"") { bytes.append(byte) }
                        bytes.append(byte)
                    }
                    bytes.append(UInt8(ascii: "\""))
                } else {
                    bytes.append(contentsOf: utf8)
                }
            }
        }

        /// A whole number, which never needs quotes (a negative one is made inert like any other
        /// field starting with `-`).
        package mutating func integer(_ value: Int64) {
            if value < 0 {
                text(String(value))
                return
            }
            separate()
            appendDigits(UInt64(value), width: 1)
        }

        /// A day as `YYYY-MM-DD`.
        package mutating func date(_ date: CalendarDate) {
            separate()
            appendDate(dayNumber: date.dayNumber)
        }

        /// An instant in UTC with milliseconds, as ISO 8601 (`2027-03-27T14:05:09.120Z`), the form
        /// `ISO8601DateFormatter` writes with internet date-time and fractional seconds.
        package mutating func instant(milliseconds: Int64) {
            separate()
            let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
            let millisecond = Int(milliseconds - seconds * 1000)
            let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let second = Int(seconds - day * 86_400)
            appendDate(dayNumber: Int(day))
            bytes.append(UInt8(ascii: "T"))
            appendDigits(UInt64(second / 3600), width: 2)
            bytes.append(UInt8(ascii: ":"))
            appendDigits(UInt64(second / 60 % 60), width: 2)
            bytes.append(UInt8(ascii: ":"))
            appendDigits(UInt64(second % 60), width: 2)
            bytes.append(UInt8(ascii: "."))
            appendDigits(UInt64(millisecond), width: 3)
            bytes.append(UInt8(ascii: "Z"))
        }

        /// An empty field.
        package mutating func empty() {
            separate()
        }

        package mutating func endRow() {
            bytes.append(UInt8(ascii: "\r"))
            bytes.append(UInt8(ascii: "\n"))
            startsRow = true
        }

        /// What was written since the last `take`, leaving the buffer empty (and its capacity kept).
        package mutating func take() -> [UInt8] {
            let taken = bytes
            bytes.removeAll(keepingCapacity: true)
            return taken
        }

        private mutating func separate() {
            if startsRow {
                startsRow = false
            } else {
                bytes.append(UInt8(ascii: ","))
            }
        }

        private mutating func appendDate(dayNumber: Int) {
            let (year, month, day) = CalendarDate.civil(dayNumber: dayNumber)
            if year < 0 { bytes.append(UInt8(ascii: "-")) }
            appendDigits(UInt64(abs(year)), width: 4)
            bytes.append(UInt8(ascii: "-"))
            appendDigits(UInt64(month), width: 2)
            bytes.append(UInt8(ascii: "-"))
            appendDigits(UInt64(day), width: 2)
        }

        private mutating func appendDigits(_ value: UInt64, width: Int) {
            var digits:
                (
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                    UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
                ) =
                    (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var count = 0
            var rest = value
            withUnsafeMutableBytes(of: &digits) { buffer in
                repeat {
                    buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                    count += 1
                } while rest > 0
                for _ in count..<max(width, count) { bytes.append(UInt8(ascii: "0")) }
                for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
            }
        }
    }
}
