internal import CLibXML2

/// Parses HTML with libxml2 and writes back only what the policy allows.
///
/// libxml2 reports what it reads as events (its SAX interface) instead of building a tree:
/// the walk below sees the same elements, text and nesting a tree would hold, for less work.
enum HTMLSanitizer {
    static func sanitize(_ input: AuthorInput) -> SanitizedText {
        var walk = SanitizingWalk(writer: HTMLWriter(expectedSize: input.bytes.count))
        guard !input.bytes.isEmpty else { return walk.finish() }

        libxml2Initialization.ensure()
        // Error handlers are per thread in libxml2, and a thread may predate our initialization.
        safehtml_silence_errors_on_this_thread()

        input.bytes.withUnsafeBytes { buffer in
            guard
                let parser = htmlCreateMemoryParserCtxt(
                    buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
                    Int32(buffer.count)
                )
            else { return }
            defer { htmlFreeParserCtxt(parser) }

            htmlCtxtUseOptions(parser, parseOptions)
            if let utf8 = xmlFindCharEncodingHandler("UTF-8") {
                xmlSwitchToEncoding(parser, utf8)
            }
            reportEvents(of: parser)
            withUnsafeMutablePointer(to: &walk) { walk in
                parser.pointee.userData = UnsafeMutableRawPointer(walk)
                htmlParseDocument(parser)
            }
            // No handler builds a document; this only guards against a libxml2 that would.
            if let document = parser.pointee.myDoc { xmlFreeDoc(document) }
        }
        return walk.finish()
    }

    private static let parseOptions = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
            | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NODEFDTD.rawValue
            // Only our explicit UTF-8 counts; a <meta charset> in the input must not switch it.
            | HTML_PARSE_IGNORE_ENC.rawValue
    )

    /// Replaces the parser's handlers with ours: elements and text reach the walk, and nothing
    /// else (comments, processing instructions, doctypes, errors) is handled at all.
    private static func reportEvents(of parser: htmlParserCtxtPtr) {
        guard let handlers = parser.pointee.sax else { return }
        handlers.pointee = htmlSAXHandler()
        handlers.pointee.initialized = 1
        handlers.pointee.startElement = { walk, name, attributes in
            walk?.assumingMemoryBound(to: SanitizingWalk.self).pointee.start(ElementName(name), attributes: attributes)
        }
        handlers.pointee.endElement = { walk, _ in
            walk?.assumingMemoryBound(to: SanitizingWalk.self).pointee.end()
        }
        handlers.pointee.characters = { walk, text, count in
            guard let text, count > 0 else { return }
            walk?.assumingMemoryBound(to: SanitizingWalk.self).pointee.text(UnsafeBufferPointer(start: text, count: Int(count)))
        }
    }
}

/// libxml2's global set-up, run once before the first parse from any thread.
private struct LibXML2Initialization: Sendable {
    init() {
        xmlInitParser()
        safehtml_silence_errors_on_new_threads()
    }

    func ensure() {}
}

private let libxml2Initialization = LibXML2Initialization()

/// Follows the parser's events and writes what the policy allows. Its stack is on the heap, so no
/// nesting can exhaust the thread's stack.
private struct SanitizingWalk {
    private var writer: HTMLWriter
    /// The content rules of the nearest kept element.
    private var context = Context()
    /// One entry per element started and not yet ended, outside dropped ones.
    private var openElements: [OpenElement] = []
    /// How many elements deep the walk is inside a dropped element; nothing there is written.
    private var droppedDepth = 0
    /// Text is gathered until the next tag, as the parser may report one text in several parts.
    private var pendingText: [UInt8] = []
    /// Text and phrasing outside any block are wrapped in a paragraph, as parsers would otherwise
    /// wrap some of it themselves when the output is read again.
    private var topLevelParagraphIsOpen = false

    init(writer: HTMLWriter) {
        self.writer = writer
    }

    mutating func start(_ name: ElementName?, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        guard droppedDepth == 0 else {
            droppedDepth += 1
            return
        }
        writePendingText()
        let element: AllowedElement
        switch ElementAction(elementName: name) {
        case .drop:
            droppedDepth = 1
            return
        case .unwrap(let isBlock):
            let endsParagraph = isBlock && context.nesting == 0
            if endsParagraph { closeTopLevelParagraph() }
            return enter(OpenElement(closingTag: nil, outerContext: context, endsParagraph: endsParagraph))
        case .keep(let allowed):
            element = allowed
        }
        let unwrap = OpenElement(closingTag: nil, outerContext: context, endsParagraph: false)
        guard context.permits(element) else { return enter(unwrap) }

        if context.nesting == 0 {
            if element.isPhrasing { openTopLevelParagraph() } else { closeTopLevelParagraph() }
        }
        if element == .a {
            let link = LinkAttributes(attributes)
            guard let href = link.href.flatMap(LinkPolicy.safeHref) else { return enter(unwrap) }
            writer.startLink(href: href, title: link.title)
        } else {
            writer.startTag(element)
        }
        // A void element's end event closes nothing.
        guard let content = element.content else { return enter(unwrap) }
        var childContext = context.entering(element, content: content)
        if context.nesting == 0 && topLevelParagraphIsOpen { childContext.nesting += 1 }
        openElements.append(OpenElement(closingTag: element, outerContext: context, endsParagraph: false))
        context = childContext
    }

    mutating func end() {
        guard droppedDepth == 0 else {
            droppedDepth -= 1
            return
        }
        writePendingText()
        guard let open = openElements.popLast() else { return }
        if let closingTag = open.closingTag { writer.endTag(closingTag) }
        if open.endsParagraph { closeTopLevelParagraph() }
        context = open.outerContext
    }

    mutating func text(_ text: UnsafeBufferPointer<UInt8>) {
        guard droppedDepth == 0 else { return }
        // Only between blocks does it matter whether the whole text is blank; elsewhere write at once.
        if pendingText.isEmpty && context.nesting > 0 && context.content != .listItems {
            writer.text(text)
        } else {
            pendingText.append(contentsOf: text)
        }
    }

    /// Closes whatever the input left open and returns the result.
    mutating func finish() -> SanitizedText {
        writePendingText()
        while !openElements.isEmpty { end() }
        closeTopLevelParagraph()
        return writer.result
    }

    private mutating func enter(_ open: OpenElement) {
        openElements.append(open)
    }

    private mutating func writePendingText() {
        guard !pendingText.isEmpty else { return }
        defer { pendingText.removeAll(keepingCapacity: true) }
        pendingText.withUnsafeBufferPointer { text in
            if HTMLWriter.isBlank(text) {
                // Whitespace between blocks and list items means nothing, and parsers disagree on keeping it.
                let isBetweenBlocks = context.content == .listItems || (context.nesting == 0 && !topLevelParagraphIsOpen)
                if isBetweenBlocks { return }
            } else if context.nesting == 0 {
                openTopLevelParagraph()
            }
            writer.text(text)
        }
    }

    private mutating func openTopLevelParagraph() {
        guard !topLevelParagraphIsOpen else { return }
        writer.startTag(.p)
        topLevelParagraphIsOpen = true
    }

    private mutating func closeTopLevelParagraph() {
        guard topLevelParagraphIsOpen else { return }
        writer.endTag(.p)
        topLevelParagraphIsOpen = false
    }
}

private struct OpenElement {
    /// The end tag to write, or `nil` for an element that was unwrapped.
    let closingTag: AllowedElement?
    let outerContext: Context
    /// An unwrapped block at the top level: its text must not run into what follows.
    let endsParagraph: Bool
}

/// The content rules in force at one point of the walk.
private struct Context {
    var content = Content.flow
    var insideLink = false
    /// A list item is open with no list started inside it: a browser would close it at the next `<li>`.
    var insideListItem = false
    var nesting = 0

    func permits(_ element: AllowedElement) -> Bool {
        if element == .br { return content != .listItems }
        guard nesting < SanitizerLimits.maximumNesting else { return false }
        if element == .a && insideLink { return false }
        switch content {
        case .listItems: return element == .li
        case .phrasing: return element.isPhrasing
        case .flow: return !(element == .li && insideListItem)
        }
    }

    func entering(_ element: AllowedElement, content: Content) -> Context {
        var inner = self
        inner.content = content
        inner.insideLink = insideLink || element == .a
        switch element {
        case .li: inner.insideListItem = true
        case .ul, .ol: inner.insideListItem = false
        default: break
        }
        inner.nesting += 1
        return inner
    }
}

/// The attributes a link may keep, with character references already decoded by the parser.
private struct LinkAttributes {
    var href: String?
    var title: String?

    /// `attributes` is libxml2's list of name and value pairs, ended by a null name.
    init(_ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        guard let attributes else { return }
        var index = 0
        while let name = attributes[index] {
            let value = attributes[index + 1].map { String(cString: $0) } ?? ""
            // The first of duplicate attributes wins, as in browsers.
            switch String(cString: name) {
            case "href" where href == nil: href = value
            case "title" where title == nil: title = value
            default: break
            }
            index += 2
        }
    }
}
