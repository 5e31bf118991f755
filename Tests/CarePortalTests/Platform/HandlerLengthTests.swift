import Foundation
import Testing

/// A handler decodes, loads, writes and renders; what it reads, checks and shows lives beside its page and
/// form (docs/architecture.md, "Adding a feature"). A handler that grows past 40 lines fails here, named.
@Suite struct HandlerLengthTests {
    static let longest = 40

    /// Every `@Sendable func name(request: Request, context: PortalContext)` in the app's sources, with its
    /// length from the `func` line to its closing brace.
    static func handlers() throws -> [(place: String, lines: Int)] {
        let sources = URL(fileURLWithPath: TestPortal.resourcesDirectory).appendingPathComponent("Sources/CarePortal")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        var found: [(String, Int)] = []
        for file in files where file.pathExtension == "swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            for (start, line) in lines.enumerated()
            where line.contains("@Sendable func ") && line.contains("(request: Request, context: PortalContext)") {
                var depth = 0, opened = false, end = start
                for index in start..<lines.count {
                    depth += lines[index].filter { $0 == "{" }.count - lines[index].filter { $0 == "}" }.count
                    opened = opened || lines[index].contains("{")
                    end = index
                    if opened && depth == 0 { break }
                }
                found.append(("\(file.lastPathComponent):\(start + 1)", end - start + 1))
            }
        }
        return found
    }

    @Test func noHandlerIsLongerThanFortyLines() throws {
        let handlers = try Self.handlers()
        #expect(handlers.count > 300, "the scan found only \(handlers.count) handlers")
        let long = handlers.filter { $0.lines > Self.longest }.map { "\($0.place) (\($0.lines) lines)" }
        #expect(long.isEmpty, "handlers over \(Self.longest) lines: \(long.joined(separator: ", "))")
    }
}
