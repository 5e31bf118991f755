/// The body rows of a long table, written in Swift rather than by a template section.
///
/// A template section costs the engine a lookup and several run-time casts for every value of every
/// row: on a 50-row list that was most of the page's time. These rows come out as the same markup a
/// template would write, with every text escaped (`HTMLEscaping`); a template writes them with
/// `{{{rows}}}`. Only text goes in: the markup around it is fixed here.
package struct TableRows: Sendable {
    private var markup = ""
    package private(set) var isEmpty = true

    package init(expectedRows: Int = 0) {
        markup.reserveCapacity(expectedRows * 400)
    }

    /// The rows written so far.
    package var html: RenderedHTML { RenderedHTML(markup: markup) }

    /// One row for each of `items`, its cells written by `cells`.
    package init<Items: Collection>(_ items: Items, cells: (Items.Element, inout Cells) -> Void) {
        self.init(expectedRows: items.count)
        for item in items { row { cells(item, &$0) } }
    }

    /// The rows, or nil when there are none (a page shows an empty state instead of an empty table).
    package var htmlIfAny: RenderedHTML? { isEmpty ? nil : html }

    /// Starts a row; cells written after it belong to it until the next row starts. The cells are written
    /// straight onto the rows so far (lent to them and taken back), not into a string of their own that is
    /// then copied.
    package mutating func row(_ cells: (inout Cells) -> Void) {
        isEmpty = false
        var row = Cells()
        swap(&row.html, &markup)
        row.html += "<tr>"
        cells(&row)
        row.html += "</tr>\n"
        swap(&row.html, &markup)
    }

    /// The cells of one row.
    package struct Cells: Sendable {
        fileprivate var html = ""

        /// A cell of text, with a smaller second line under it when `note` is given; `nowrap` keeps it on one line (a date).
        package mutating func text(_ text: String, note: String? = nil, nowrap: Bool = false) {
            open(nowrap: nowrap)
            html += HTMLEscaping.escape(text)
            if let note, !note.isEmpty {
                html += #"<br><span class="body-s secondary-text">"#
                html += HTMLEscaping.escape(note)
                html += "</span>"
            }
            html += "</td>"
        }

        /// A cell whose text links to `path` (a record's own page); `hidden` is said after the text to screen
        /// readers only ("Open", then " request 12"), and `nowrap` keeps it on one line.
        package mutating func link(_ text: String, to path: String, hidden: String? = nil, nowrap: Bool = false) {
            cell(nowrap: nowrap) { $0.link(text, to: path, hidden: hidden) }
        }

        /// A cell's start tag; `nowrap` keeps what it holds on one line.
        private mutating func open(nowrap: Bool) {
            html += nowrap ? #"<td class="table__cell table__cell--nowrap">"# : #"<td class="table__cell">"#
        }

        /// A cell of several pieces (`Content`): `nowrap` keeps it on one line, `numeric` aligns it to the right.
        package mutating func cell(nowrap: Bool = false, numeric: Bool = false, _ build: (inout Content) -> Void) {
            if numeric {
                html += #"<td class="table__cell table__cell--numeric">"#
            } else {
                open(nowrap: nowrap)
            }
            // The pieces are written straight onto the row, as `row` writes its cells.
            var content = Content()
            swap(&content.html, &html)
            build(&content)
            swap(&content.html, &html)
            html += "</td>"
        }

        /// A cell holding a number, aligned to the right.
        package mutating func number(_ text: String) {
            html += #"<td class="table__cell table__cell--numeric">"#
            html += HTMLEscaping.escape(text)
            html += "</td>"
        }

        /// A cell holding a coloured tag (`tone` is one of the stylesheet's `tag--…` classes).
        package mutating func tag(_ text: String, tone: TagTone) {
            cell { $0.tag(text, tone: tone) }
        }
    }

    /// What one cell holds when it is more than one text, link or tag (`Cells.cell`): each piece appended in turn,
    /// every text escaped.
    package struct Content: Sendable {
        fileprivate var html = ""

        /// Text.
        package mutating func text(_ text: String) {
            html += HTMLEscaping.escape(text)
        }

        /// A line break: what follows starts a second line in the cell.
        package mutating func lineBreak() {
            html += "<br>"
        }

        /// Pieces in smaller type.
        package mutating func smaller(_ build: (inout Content) -> Void) {
            wrapped(#"<span class="body-s">"#, build, "</span>")
        }

        /// A link to `path`; `hidden` is said after the text to screen readers only (" the Lakeview helpline"), and
        /// `external` marks an address outside the portal (`rel="noopener noreferrer"`).
        package mutating func link(_ text: String, to path: String, hidden: String? = nil, external: Bool = false) {
            html += #"<a class="link" href=""#
            html += HTMLEscaping.escape(path)
            html += external ? #"" rel="noopener noreferrer">"# : #"">"#
            html += HTMLEscaping.escape(text)
            visuallyHidden(hidden)
            html += "</a>"
        }

        /// A coloured tag.
        package mutating func tag(_ text: String, tone: TagTone) {
            html += #"<strong class="tag tag--"#
            html += tone.rawValue
            html += #"">"#
            html += HTMLEscaping.escape(text)
            html += "</strong>"
        }

        /// A small button that posts to `action` with the session's CSRF token (as the `partials/csrf` template
        /// writes it); `hidden` is said after its title to screen readers only.
        package mutating func postButton(
            _ title: String,
            hidden: String? = nil,
            to action: String,
            csrfToken: String,
            style: ButtonStyle = .secondary
        ) {
            html += #"<form class="inline-form" method="post" action=""#
            html += HTMLEscaping.escape(action)
            html += #""><input type="hidden" name="csrf_token" value=""#
            html += HTMLEscaping.escape(csrfToken)
            html += #""><button class="button button--"#
            html += style.rawValue
            html += #" button--small" type="submit">"#
            html += HTMLEscaping.escape(title)
            visuallyHidden(hidden)
            html += "</button></form>"
        }

        /// Buttons side by side (`postButton`).
        package mutating func buttonGroup(_ build: (inout Content) -> Void) {
            wrapped(#"<div class="button-group">"#, build, "</div>")
        }

        /// The pieces `build` writes, between a start tag and its end tag.
        private mutating func wrapped(_ start: String, _ build: (inout Content) -> Void, _ end: String) {
            html += start
            build(&self)
            html += end
        }

        /// Words said to screen readers only, after a link's or button's visible text.
        private mutating func visuallyHidden(_ text: String?) {
            guard let text else { return }
            html += #"<span class="visually-hidden">"#
            html += HTMLEscaping.escape(text)
            html += "</span>"
        }
    }

    /// How a row's button looks: `secondary` for most, `warning` for one that ends or removes something.
    package enum ButtonStyle: String, Sendable {
        case secondary, warning
    }

    /// The tag colours the stylesheet defines.
    package enum TagTone: String, Sendable, Encodable {
        case green, red, grey, blue, yellow, purple

        /// The class a template writes: `tag--green`.
        package var tagClass: String { "tag--\(rawValue)" }
    }
}
