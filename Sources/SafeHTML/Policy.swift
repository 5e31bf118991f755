/// The elements sanitized HTML may contain. Changing this list is a security decision:
/// read docs/safe-html.md first.
enum AllowedElement: String, CaseIterable {
    case p, br, strong, b, em, i, u, s, blockquote, code, pre, ul, ol, li, h3, h4, a

    /// What may appear directly inside the element; `nil` for an element that has no content.
    var content: Content? {
        switch self {
        case .br: nil
        case .blockquote, .li: .flow
        case .ul, .ol: .listItems
        case .p, .h3, .h4, .pre, .strong, .b, .em, .i, .u, .s, .code, .a: .phrasing
        }
    }

    /// Text inside a phrasing element flows on the same line as its neighbours.
    var isPhrasing: Bool {
        switch self {
        case .br, .strong, .b, .em, .i, .u, .s, .code, .a: true
        case .p, .blockquote, .pre, .ul, .ol, .li, .h3, .h4: false
        }
    }
}

/// Which elements an element may contain. The rules keep the output to trees that every HTML
/// parser builds the same way, so sanitizing the output again changes nothing.
enum Content {
    /// Blocks and phrasing, as in a blockquote or list item.
    case flow
    /// Text and phrasing elements only: a browser would close a paragraph at a block's start tag.
    case phrasing
    /// List items only, as in ul and ol.
    case listItems
}

/// What the sanitizer does with an element, decided by its name.
enum ElementAction {
    /// Keep the element when it is allowed where it stands; otherwise unwrap it.
    case keep(AllowedElement)
    /// Remove the element and everything in it.
    case drop
    /// Remove the element's tags but keep what is inside it; a block's text stays a paragraph of its own.
    case unwrap(isBlock: Bool)

    init(elementName name: ElementName?) {
        self = name.flatMap { Self.byName[$0] } ?? .unwrap(isBlock: false)
    }

    private static let byName: [ElementName: ElementAction] = {
        var actions: [ElementName: ElementAction] = [:]
        for name in otherBlocks { actions[ElementName(name)] = .unwrap(isBlock: true) }
        for name in droppedWithContent { actions[ElementName(name)] = .drop }
        for element in AllowedElement.allCases { actions[ElementName(element.rawValue)] = .keep(element) }
        return actions
    }()

    /// Elements whose content is script, styling, another document, a form or a page's metadata:
    /// none of it is text a reader should see. docs/safe-html.md says why each one is here.
    static let droppedWithContent: Set<String> = [
        "script", "style", "template", "noscript", "iframe", "frame", "frameset", "object", "embed",
        "applet", "svg", "math", "textarea", "xmp", "noembed", "noframes", "plaintext", "title",
        "head", "meta", "link", "base", "form", "input", "button", "select", "option"
    ]

    /// Block elements that are not allowed: unwrapped, their text would run into the next block's.
    static let otherBlocks: Set<String> = [
        "address", "article", "aside", "caption", "center", "dd", "details", "dialog", "dir", "div", "dl",
        "dt", "fieldset", "figcaption", "figure", "footer", "h1", "h2", "h5", "h6", "header", "hgroup", "hr",
        "legend", "listing", "main", "menu", "nav", "section", "summary", "table", "tbody", "td", "tfoot",
        "th", "thead", "tr"
    ]
}

/// An element name of up to 16 bytes packed into two integers, so looking up the name of every
/// element the parser meets needs no String. Every name in the policy fits; a longer name is
/// unknown, so its element is unwrapped.
struct ElementName: Hashable {
    private var first8 = UInt64(0)
    private var next8 = UInt64(0)

    init?(_ name: UnsafePointer<UInt8>?) {
        guard let name else { return nil }
        var length = 0
        while name[length] != 0 {
            guard length < 16 else { return nil }
            let byte = UInt64(name[length]) << (UInt64(length % 8) * 8)
            if length < 8 { first8 |= byte } else { next8 |= byte }
            length += 1
        }
    }

    init(_ name: String) {
        let bytes = Array(name.utf8) + [0]
        self = bytes.withUnsafeBufferPointer { ElementName($0.baseAddress)! }
    }
}

enum SanitizerLimits {
    /// Elements nested deeper than this are unwrapped, so pages stay cheap to lay out.
    static let maximumNesting = 100
}

/// The only destinations a link may have.
enum LinkPolicy {
    /// Added to every link: no ranking credit for spam, no access to our window, no referrer leak.
    static let rel = "nofollow noopener noreferrer"

    /// The href to write for an author's link, or `nil` when the link must go.
    ///
    /// `value` is the attribute after the parser decoded its character references, as a browser
    /// does. Whitespace, control and invisible format characters are removed, then only absolute
    /// `http://`, `https://` and `mailto:` destinations are accepted; everything else, including
    /// relative and scheme-relative links, is refused. The result is exactly the string checked,
    /// so a browser cannot read a different scheme in it.
    static func safeHref(_ value: String) -> String? {
        let destination: String
        if value.utf8.allSatisfy({ $0 < 0x80 }) {
            destination = String(decoding: value.utf8.filter { $0 > 0x20 && $0 != 0x7F }, as: UTF8.self)
        } else {
            var href = String.UnicodeScalarView()
            for scalar in value.unicodeScalars where !isInvisible(scalar) {
                href.append(scalar)
            }
            destination = String(href)
        }
        let start = destination.utf8.prefix(allowedPrefixes[0].utf8.count)
        let lowercasedStart = String(decoding: start.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        guard allowedPrefixes.contains(where: lowercasedStart.hasPrefix) else { return nil }
        return destination
    }

    /// The longest first, as the check reads that many bytes.
    private static let allowedPrefixes = ["https://", "http://", "mailto:"]

    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return true
        default:
            return properties.isWhitespace
        }
    }
}
