import Foundation
import SafeHTML

/// libFuzzer's entry point. The first byte picks the renderer, the rest is the author's text.
/// Besides crashes and sanitizer reports, it stops on any output that breaks the policy.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let selector = bytes.first else { return 0 }
    let source = bytes.dropFirst()

    let rendered: SanitizedText
    do {
        switch selector % 3 {
        case 0: rendered = try SafeHTML.sanitize(htmlUTF8: source)
        case 1: rendered = try SafeHTML.renderMarkdown(utf8: source)
        default: rendered = try SafeHTML.renderPlainText(utf8: source)
        }
    } catch {
        // Too large or not UTF-8: refusing it is the correct outcome.
        return 0
    }

    OutputCheck.requireOnlyAllowedTags(in: rendered.html)
    if selector % 3 != 2 {
        // Sanitized HTML must come back unchanged, or stored posts would drift each time they are cleaned.
        let again = try! SafeHTML.sanitize(html: rendered.html)
        OutputCheck.require(again == rendered, "sanitizing twice changed the output", rendered.html, again.html)
    }
    return 0
}

/// A deliberately simple scan of the output, independent of the sanitizer's own code. It reads
/// bytes, not Characters: a combining mark after ">" would otherwise hide the bracket.
enum OutputCheck {
    private static let allowedTags: Set<String> = [
        "p", "br", "strong", "b", "em", "i", "u", "s", "blockquote", "code", "pre", "ul", "ol", "li", "h3", "h4", "a"
    ]
    private static let linkStarts = [#"<a href="http://"#, #"<a href="https://"#, #"<a href="mailto:"#]
    private static let linkEnd = #" rel="nofollow noopener noreferrer">"#

    static func requireOnlyAllowedTags(in html: String) {
        let bytes = Array(html.utf8)
        var index = 0
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            guard let close = bytes[open...].firstIndex(of: UInt8(ascii: ">")) else {
                return require(false, "unclosed tag", html)
            }
            let tag = String(decoding: bytes[open...close], as: UTF8.self)
            let name = tag.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "/" }
            require(allowedTags.contains(String(name.drop { $0 == "/" })), "tag \(tag) is not allowed", html)
            if name == "a" {
                let isSafeLink = linkStarts.contains { tag.lowercased().hasPrefix($0) } && tag.hasSuffix(linkEnd)
                require(isSafeLink, "unsafe link \(tag)", html)
            } else {
                require(tag == "<\(name)>", "attributes on \(tag)", html)
            }
            index = close + 1
        }
    }

    static func require(_ condition: Bool, _ problem: String, _ outputs: String...) {
        guard !condition else { return }
        let report = (["SafeHTML fuzz failure: \(problem)"] + outputs).joined(separator: "\n---\n")
        FileHandle.standardError.write(Data((report + "\n").utf8))
        abort()
    }
}

/// Built by script/fuzz-safehtml (with -sanitize=fuzzer and SAFEHTML_FUZZING) it runs libFuzzer;
/// in a normal build it replays saved inputs, so a crash can be reproduced without it:
/// `SafeHTMLFuzz FILE...`.
@main
enum SafeHTMLFuzz {
    static func main() throws {
        #if SAFEHTML_FUZZING
            // SwiftPM links its own entry point, so libFuzzer is started through its driver function.
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(runLibFuzzer(&argc, &argv, fuzzOneInput))
        #else
            for path in CommandLine.arguments.dropFirst() {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                _ = bytes.withUnsafeBufferPointer { fuzzOneInput($0.baseAddress, $0.count) }
                print("\(path): ok")
            }
        #endif
    }
}

#if SAFEHTML_FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runLibFuzzer(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif
