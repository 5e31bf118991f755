/// The rows of a summary list (`<dl class="summary-list">`), written in Swift as `TableRows` writes a table's:
/// each a key and its value, every text escaped; a template writes them with `{{{rows}}}`.
package struct SummaryRows: Sendable {
    private var markup = ""

    package init() {}

    /// The rows written so far.
    package var html: RenderedHTML { RenderedHTML(markup: markup) }

    /// A row: `key` and its `value`. `wrapsText` lets a long value (an address, an email address) break where it must.
    package mutating func row(_ key: String, _ value: String, wrapsText: Bool = false) {
        markup += #"<div class="summary-list__row"><dt class="summary-list__key">"#
        markup += HTMLEscaping.escape(key)
        markup += wrapsText ? #"</dt><dd class="summary-list__value summary-list__value--text">"# : #"</dt><dd class="summary-list__value">"#
        markup += HTMLEscaping.escape(value)
        markup += "</dd></div>"
    }
}
