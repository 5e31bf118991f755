/// Markup that may be written into a page as it is, by a template's `{{{…}}}` slot: every raw slot takes
/// one, so text can never reach a raw slot by mistake. It is made only by rendering a template
/// (`PageRenderer`), by the writers that escape every text they put in (`TableRows`, `SummaryRows`,
/// `FilterOption.html`), from what SafeHTML's sanitizer made (`sanitizedHTML:`), or — clearly
/// named, for the few pieces written in Swift — from markup whose every text its writer escaped. A test renders
/// every page with its strings marked and fails on a raw slot that wrote one (`PageSnapshotTests`).
package struct RenderedHTML: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The markup.
    package let markup: String

    /// Only this module's writers make markup directly.
    init(markup: String) {
        self.markup = markup
    }

    package static let empty = RenderedHTML(markup: "")

    /// SafeHTML's markup as a string: kept in the database beside what was written (a post's body, a
    /// module's text), which only the code that sanitizes it writes, or just made for a preview.
    package init(sanitizedHTML markup: String) {
        self.markup = markup
    }

    /// Markup written in Swift by a page that escapes every text it puts in (`HTMLEscaping.escape`), for
    /// the few pieces no template or `TableRows` writes.
    package init(writtenWithEscapedText markup: String) {
        self.markup = markup
    }

    /// Pieces one after another.
    package init(joining pieces: some Sequence<RenderedHTML>) {
        markup = pieces.map(\.markup).joined()
    }

    package var description: String { markup }

    /// Encoded as its markup: templates see a string, and JSON shows what a page would write.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(markup)
    }
}
