import Foundation
import SafeHTML

/// Runs SafeHTML from scripts: the corpus checkers and the benchmark call it.
///
///     safehtml-tool sanitize --mode html|markdown|plain < inputs.json > outputs.json
///     safehtml-tool bench --mode html --seconds 3 FILE...
///
/// `sanitize` reads a JSON array of strings and writes a JSON array with, for each input,
/// either `{"html": …, "plainText": …}` or `{"error": …}`.
/// `bench` renders each file repeatedly for the given time and prints its throughput as JSON.
@main
struct SafeHTMLTool {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        do {
            guard !arguments.isEmpty else { throw UsageError("missing command") }
            let command = arguments.removeFirst()
            let options = try Options(parsing: arguments)
            switch command {
            case "sanitize": try sanitize(mode: options.mode)
            case "bench": try bench(mode: options.mode, seconds: options.seconds, files: options.files)
            default: throw UsageError("unknown command \(command)")
            }
        } catch {
            FileHandle.standardError.write(Data("safehtml-tool: \(error)\n".utf8))
            FileHandle.standardError.write(Data("usage: safehtml-tool sanitize|bench --mode html|markdown|plain [--seconds N] [FILE...]\n".utf8))
            exit(2)
        }
    }

    private static func sanitize(mode: Mode) throws {
        let inputs = try JSONDecoder().decode([String].self, from: FileHandle.standardInput.readDataToEndOfFile())
        let outputs = inputs.map { input in
            do throws(SafeHTMLError) {
                let text = try mode.render(input)
                return Output(html: text.html, plainText: text.plainText, error: nil)
            } catch {
                return Output(html: nil, plainText: nil, error: error.message)
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        FileHandle.standardOutput.write(try encoder.encode(outputs))
    }

    private static func bench(mode: Mode, seconds: Double, files: [String]) throws {
        guard !files.isEmpty else { throw UsageError("bench needs at least one file") }
        for file in files {
            let input = try String(contentsOfFile: file, encoding: .utf8)
            // One untimed run, so start-up work is not counted.
            _ = try mode.render(input)
            let clock = ContinuousClock()
            let start = clock.now
            var iterations = 0
            var outputBytes = 0
            while clock.now - start < .seconds(seconds) {
                outputBytes &+= try mode.render(input).html.utf8.count
                iterations += 1
            }
            let elapsed = (clock.now - start) / .seconds(1)
            let megabytesPerSecond = Double(input.utf8.count * iterations) / elapsed / 1_000_000
            let result = BenchResult(
                file: file,
                bytes: input.utf8.count,
                iterations: iterations,
                seconds: elapsed,
                megabytesPerSecond: megabytesPerSecond,
                outputBytes: outputBytes / iterations
            )
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            FileHandle.standardOutput.write(try encoder.encode(result) + Data("\n".utf8))
        }
    }
}

private enum Mode: String {
    case html, markdown, plain

    func render(_ input: String) throws(SafeHTMLError) -> SanitizedText {
        switch self {
        case .html: try SafeHTML.sanitize(html: input)
        case .markdown: try SafeHTML.renderMarkdown(input)
        case .plain: try SafeHTML.renderPlainText(input)
        }
    }
}

private struct Options {
    var mode = Mode.html
    var seconds = 3.0
    var files: [String] = []

    init(parsing arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--mode":
                guard let value = remaining.popFirst(), let mode = Mode(rawValue: value) else {
                    throw UsageError("--mode needs html, markdown or plain")
                }
                self.mode = mode
            case "--seconds":
                guard let value = remaining.popFirst(), let seconds = Double(value), seconds > 0 else {
                    throw UsageError("--seconds needs a positive number")
                }
                self.seconds = seconds
            default:
                files.append(argument)
            }
        }
    }
}

private struct Output: Encodable {
    let html: String?
    let plainText: String?
    let error: String?
}

private struct BenchResult: Encodable {
    let file: String
    let bytes: Int
    let iterations: Int
    let seconds: Double
    let megabytesPerSecond: Double
    let outputBytes: Int
}

private struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
