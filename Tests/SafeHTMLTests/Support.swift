import Foundation
import SafeHTML
import Testing

/// One entry of Tests/safehtml/xss-corpus.json, shared with the Python checkers.
struct AttackVector: Decodable, Sendable, CustomTestStringConvertible {
    let id: Int
    let `class`: String
    let mode: String
    let input: String

    var testDescription: String { "#\(id) \(`class`)" }

    func render() throws -> SanitizedText {
        mode == "markdown" ? try SafeHTML.renderMarkdown(input) : try SafeHTML.sanitize(html: input)
    }

    static let corpus: [AttackVector] = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("safehtml/xss-corpus.json")
        do {
            return try JSONDecoder().decode([AttackVector].self, from: Data(contentsOf: url))
        } catch {
            fatalError("cannot read the corpus at \(url.path): \(error)")
        }
    }()
}

/// The HTML a sanitized fragment shows, for short expectations.
func sanitized(_ html: String) throws -> String {
    try SafeHTML.sanitize(html: html).html
}

let rel = #"rel="nofollow noopener noreferrer""#

/// An input the fuzzer once found a bug with, kept in Tests/safehtml/fuzz-regressions.
/// As in the fuzz target, the first byte picks the renderer: 0 HTML, 1 Markdown, 2 plain text.
struct FuzzFinding: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]

    var testDescription: String { name }

    /// Whether the output is sanitized HTML, which sanitizing again must leave unchanged.
    var isSanitizedHTML: Bool { (bytes.first ?? 0) % 3 != 2 }

    func render() throws -> SanitizedText {
        let source = bytes.dropFirst()
        switch (bytes.first ?? 0) % 3 {
        case 0: return try SafeHTML.sanitize(htmlUTF8: source)
        case 1: return try SafeHTML.renderMarkdown(utf8: source)
        default: return try SafeHTML.renderPlainText(utf8: source)
        }
    }

    static let all: [FuzzFinding] = {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("safehtml/fuzz-regressions")
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { name in
                FuzzFinding(name: name, bytes: [UInt8](try Data(contentsOf: folder.appendingPathComponent(name))))
            }
        } catch {
            fatalError("cannot read the fuzz findings in \(folder.path): \(error)")
        }
    }()
}
