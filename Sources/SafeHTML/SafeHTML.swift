/// Turns what people post into HTML that is safe to show to everyone else.
///
/// Every entry point refuses input over 64 KiB and, for bytes, input that is not UTF-8. All of
/// them may be called from any thread at the same time.
public enum SafeHTML {
    /// The most a post or message may hold, in bytes of UTF-8.
    public static let maximumInputBytes = AuthorInput.maximumBytes

    /// Renders a forum post written in Markdown (which may include a little HTML), then sanitizes it.
    public static func renderMarkdown(_ source: String) throws(SafeHTMLError) -> SanitizedText {
        MarkdownRenderer.render(try AuthorInput(source))
    }

    /// Renders Markdown received as bytes, refusing them unless they are UTF-8.
    public static func renderMarkdown(utf8 source: some Collection<UInt8>) throws(SafeHTMLError) -> SanitizedText {
        MarkdownRenderer.render(try AuthorInput(validating: source))
    }

    /// Keeps only the allowed elements and links of an HTML fragment.
    public static func sanitize(html: String) throws(SafeHTMLError) -> SanitizedText {
        HTMLSanitizer.sanitize(try AuthorInput(html))
    }

    /// Sanitizes HTML received as bytes, refusing them unless they are UTF-8.
    public static func sanitize(htmlUTF8 source: some Collection<UInt8>) throws(SafeHTMLError) -> SanitizedText {
        HTMLSanitizer.sanitize(try AuthorInput(validating: source))
    }

    /// Shows a chat message as typed: no markup, line breaks kept, bare http(s) addresses as links.
    public static func renderPlainText(_ source: String) throws(SafeHTMLError) -> SanitizedText {
        PlainTextRenderer.render(try AuthorInput(source))
    }

    /// Renders a chat message received as bytes, refusing them unless they are UTF-8.
    public static func renderPlainText(utf8 source: some Collection<UInt8>) throws(SafeHTMLError) -> SanitizedText {
        PlainTextRenderer.render(try AuthorInput(validating: source))
    }
}
