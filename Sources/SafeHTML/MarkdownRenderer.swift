internal import CCmark
#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Renders Markdown with cmark, then hands the HTML to the sanitizer, which is the single gate.
enum MarkdownRenderer {
    static func render(_ input: AuthorInput) -> SanitizedText {
        HTMLSanitizer.sanitize(AuthorInput(renderedHTML: html(from: input.bytes)))
    }

    /// cmark's HTML, with raw HTML and every link left in on purpose: the sanitizer decides.
    private static func html(from markdown: [UInt8]) -> [UInt8] {
        let options = CMARK_OPT_UNSAFE
        let document = markdown.withUnsafeBytes { buffer in
            cmark_parse_document(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count, options)
        }
        guard let document else { return [] }
        defer { cmark_node_free(document) }

        fitHeadingsIntoPage(document)
        guard let rendered = cmark_render_html(document, options) else { return [] }
        defer { free(rendered) }
        return Array(UnsafeRawBufferPointer(start: rendered, count: strlen(rendered)))
    }

    /// Posts sit under the page's own headings, so `#` and `##` become h3 and the smallest levels h4.
    private static func fitHeadingsIntoPage(_ document: OpaquePointer) {
        guard let iterator = cmark_iter_new(document) else { return }
        defer { cmark_iter_free(iterator) }
        while cmark_iter_next(iterator) != CMARK_EVENT_DONE {
            let node = cmark_iter_get_node(iterator)
            guard cmark_node_get_type(node) == CMARK_NODE_HEADING else { continue }
            let level = cmark_node_get_heading_level(node)
            cmark_node_set_heading_level(node, min(max(level, 3), 4))
        }
    }
}
