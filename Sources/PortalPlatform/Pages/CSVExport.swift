import CSV
import Foundation

/// CSV files people download: written by the CSV library, never by hand.
package enum CSVExport {
    /// CSV text written by the CSV library, with cells that a spreadsheet would run as a formula made inert.
    package static func bytes(rows: [[String]]) throws -> [UInt8] {
        let stream = OutputStream(toMemory: ())
        let writer = try CSVWriter(stream: stream, newline: .crlf)
        for row in rows {
            try writer.write(row: row.map(inertCell))
        }
        writer.stream.close()
        guard let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data else { return [] }
        // The writer separates rows; each batch also ends its last one, so batches join cleanly.
        return Array(data) + Array("\r\n".utf8)
    }

    /// OWASP's advice for CSV injection: a leading `=`, `+`, `-`, `@`, tab or return gets a quote before it.
    package static func inertCell(_ value: String) -> String {
        guard let first = value.first, "=+-@\t\r".contains(first) else { return value }
        return "'" + value
    }
}
