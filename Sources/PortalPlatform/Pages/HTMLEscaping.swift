import Mustache

/// How every template escapes a `{{value}}`: `<`, `>`, `&`, `"` and `'` become character references,
/// wherever they stand.
///
/// swift-mustache's own HTML escaping compares whole characters (grapheme clusters), so a `"` or `'`
/// followed by a combining mark (`"\u{301}`) is one character that matches nothing and is written
/// unescaped — and a browser, which reads code points, takes that `"` as the end of an attribute.
/// This one reads UTF-8 bytes: the five are ASCII, and an ASCII byte is never part of another
/// code point, so each one is found wherever it stands. Text without any of them (most text) is
/// returned as it is. `PageRenderer` loads every template with this content type.
package struct HTMLEscaping: MustacheContentType {
    /// The name templates select it by (`{{% CONTENT_TYPE: CAREPORTAL_HTML }}`).
    package static let name = "CAREPORTAL_HTML"

    /// Makes the content type known to swift-mustache's template parser; done before templates load.
    package static let registered: Void = MustacheContentTypes.register(HTMLEscaping(), named: name)

    package func escapeText(_ text: String) -> String {
        Self.escape(text)
    }

    package static func escape(_ text: String) -> String {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { reference(for: $0) != nil }) else { return text }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(utf8.count + 16)
        escaped.append(contentsOf: utf8[..<first])
        for byte in utf8[first...] {
            if let reference = reference(for: byte) {
                escaped.append(contentsOf: reference.utf8)
            } else {
                escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    private static func reference(for byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "\""): "&quot;"
        case UInt8(ascii: "'"): "&#39;"
        default: nil
        }
    }

    package init() {}
}
