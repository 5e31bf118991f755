import Logging
import NIOConcurrencyHelpers

/// Keeps every log line, with its metadata, so tests can look for what must never be logged.
final class CapturedLogs: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    var all: [String] { lines.withLockedValue { $0 } }

    func handler(label: String) -> any LogHandler {
        Handler(logs: self)
    }

    fileprivate func append(_ line: String) {
        lines.withLockedValue { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            logs.append("\(event.level) \(event.message) \(merged)")
        }
    }
}
