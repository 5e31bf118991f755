/// The rows of a summary list (`<dl class="summary-list">`), written in Swift as `TableRows` writes a table's:
/// each a key and its value, every text escaped; a template writes them with `{{{rows}}}`.
package struct SummaryRows: Sendable {
    package private(set) var html = ""

    package init() {}

    /// A row: `key` and its `value`. `wrapsText` lets a long value (an address, an email address) break where it must.
    package mutating func row(_ key: String, _ value: String, wrapsText: Bool = false) {
        html += #"<div class="summary-list__row"><dt class="summary-list__key">"#
        html += HTMLEscaping.escape(key)
        html += wrapsText ? #"</dt><dd class="summary-list__value summary-list__value--text">"# : #"</dt><dd class="summary-list__value">"#
        html += HTMLEscaping.escape(value)
        html += "</dd></div>"
    }
}
