/// The only place sanitized HTML is written: every text and attribute value passes through the
/// escaping here, and only allowed elements can be written at all.
struct HTMLWriter {
    private var html: [UInt8] = []
    private var plainText: [UInt8] = []

    init(expectedSize: Int) {
        html.reserveCapacity(expectedSize + expectedSize / 8)
        plainText.reserveCapacity(expectedSize)
    }

    /// What was written, without whitespace around it: parsers disagree on whether to keep it.
    var result: SanitizedText {
        let start = html.firstIndex { !Self.isLayoutWhitespace($0) } ?? html.endIndex
        let end = html.lastIndex { !Self.isLayoutWhitespace($0) }.map { $0 + 1 } ?? start
        return SanitizedText(
            html: String(decoding: html[start..<end], as: UTF8.self),
            plainText: Self.nonEmptyLines(of: plainText)
        )
    }

    mutating func text(_ text: UnsafeBufferPointer<UInt8>) {
        Self.appendEscaped(text, escapingQuotes: false, to: &html, copyingTo: &plainText)
    }

    mutating func text(_ text: String) {
        var text = text
        text.withUTF8 { self.text($0) }
    }

    mutating func startTag(_ element: AllowedElement) {
        if !element.isPhrasing { endPlainTextLine() }
        html.append(UInt8(ascii: "<"))
        html.append(contentsOf: element.rawValue.utf8)
        html.append(UInt8(ascii: ">"))
        if element == .br { plainText.append(UInt8(ascii: "\n")) }
    }

    mutating func startLink(href: String, title: String?) {
        html.append(contentsOf: #"<a href=""#.utf8)
        appendAttributeValue(href)
        if let title {
            html.append(contentsOf: #"" title=""#.utf8)
            appendAttributeValue(title)
        }
        html.append(contentsOf: Self.linkStartEnd)
    }

    mutating func endTag(_ element: AllowedElement) {
        html.append(contentsOf: "</".utf8)
        html.append(contentsOf: element.rawValue.utf8)
        html.append(UInt8(ascii: ">"))
        if !element.isPhrasing { endPlainTextLine() }
    }

    /// Spelled out once rather than for every link.
    private static let linkStartEnd = Array(#"" rel="\#(LinkPolicy.rel)">"#.utf8)

    private mutating func appendAttributeValue(_ value: String) {
        var value = value
        // Attribute values are not part of the plain text.
        var discarded: [UInt8] = []
        value.withUTF8 { Self.appendEscaped($0, escapingQuotes: true, to: &html, copyingTo: &discarded) }
    }

    /// Each line trimmed, blank lines left out: whitespace between blocks is not a line of its own.
    private static func nonEmptyLines(of text: [UInt8]) -> String {
        var lines: [UInt8] = []
        lines.reserveCapacity(text.count)
        text.withUnsafeBufferPointer { text in
            var lineStart = 0
            while lineStart < text.count {
                var lineEnd = lineStart
                while lineEnd < text.count && text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                var first = lineStart
                var last = lineEnd
                while first < last && isLayoutWhitespace(text[first]) { first += 1 }
                while last > first && isLayoutWhitespace(text[last - 1]) { last -= 1 }
                if first < last {
                    if !lines.isEmpty { lines.append(UInt8(ascii: "\n")) }
                    lines.append(contentsOf: UnsafeBufferPointer(rebasing: text[first..<last]))
                }
                lineStart = lineEnd + 1
            }
        }
        return String(decoding: lines, as: UTF8.self)
    }

    /// Space, tab and line feed: the only whitespace left after input normalisation and escaping.
    private static func isLayoutWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A
    }

    private mutating func endPlainTextLine() {
        if let last = plainText.last, last != UInt8(ascii: "\n") {
            plainText.append(UInt8(ascii: "\n"))
        }
    }

    /// Whether `text` would show as nothing but whitespace, once control characters are left out.
    static func isBlank(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < text.count {
            let byte = text[index]
            index += 1
            switch byte {
            case 0x00...0x20, 0x7F:
                continue
            case 0xC2 where index < text.count && (0x80...0x9F).contains(text[index]):
                index += 1
            default:
                return false
            }
        }
        return true
    }

    /// Bytes `appendEscaped` must look at: controls, markup characters, quotes and C1's lead byte.
    private static let needsCare: [Bool] = (0...255).map { (value: Int) -> Bool in
        let byte = UInt8(value)
        return byte < 0x20 || byte == 0x7F || byte == 0xC2 || "&<>\"'".utf8.contains(byte)
    }

    /// Escapes `text` into `escaped` and copies it unescaped into `raw`, leaving out control
    /// characters (C0 but tab and line feed, DEL, C1): they are invisible and parsers disagree on them.
    private static func appendEscaped(
        _ text: UnsafeBufferPointer<UInt8>,
        escapingQuotes: Bool,
        to escaped: inout [UInt8],
        copyingTo raw: inout [UInt8]
    ) {
        // Bytes that need no care are copied in runs; that is most of any text.
        var runStart = 0
        var index = 0
        func copyRun() {
            let run = UnsafeBufferPointer(rebasing: text[runStart..<index])
            escaped.append(contentsOf: run)
            raw.append(contentsOf: run)
        }
        while index < text.count {
            let byte = text[index]
            guard Self.needsCare[Int(byte)] else {
                index += 1
                continue
            }
            let replacement: StaticString
            var length = 1
            switch byte {
            case UInt8(ascii: "\t"), UInt8(ascii: "\n"):
                index += 1
                continue
            case 0x00...0x1F, 0x7F:
                replacement = ""
            case 0xC2 where index + 1 < text.count && (0x80...0x9F).contains(text[index + 1]):
                replacement = ""
                length = 2
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\"") where escapingQuotes: replacement = "&quot;"
            case UInt8(ascii: "'") where escapingQuotes: replacement = "&#39;"
            default:
                index += 1
                continue
            }
            copyRun()
            if replacement.utf8CodeUnitCount > 0 {
                escaped.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
                raw.append(byte)
            }
            index += length
            runStart = index
        }
        copyRun()
    }
}
