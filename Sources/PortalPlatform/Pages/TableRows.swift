/// The body rows of a long table, written in Swift rather than by a template section.
///
/// A template section costs the engine a lookup and several run-time casts for every value of every
/// row: on a 50-row list that was most of the page's time. These rows come out as the same markup a
/// template would write, with every text escaped (`HTMLEscaping`); a template writes them with
/// `{{{rows}}}`. Only text goes in: the markup around it is fixed here.
package struct TableRows: Sendable {
    package private(set) var html = ""
    package private(set) var isEmpty = true

    package init(expectedRows: Int = 0) {
        html.reserveCapacity(expectedRows * 400)
    }

    /// One row for each of `items`, its cells written by `cells`.
    package init<Items: Collection>(_ items: Items, cells: (Items.Element, inout Cells) -> Void) {
        self.init(expectedRows: items.count)
        for item in items { row { cells(item, &$0) } }
    }

    /// The rows, or nil when there are none (a page shows an empty state instead of an empty table).
    package var htmlIfAny: String? { isEmpty ? nil : html }

    /// Starts a row; cells written after it belong to it until the next row starts.
    package mutating func row(_ cells: (inout Cells) -> Void) {
        isEmpty = false
        var row = Cells()
        cells(&row)
        html += "<tr>"
        html += row.html
        html += "</tr>\n"
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
            open(nowrap: nowrap)
            html += #"<a class="link" href=""#
            html += HTMLEscaping.escape(path)
            html += #"">"#
            html += HTMLEscaping.escape(text)
            if let hidden {
                html += #"<span class="visually-hidden">"#
                html += HTMLEscaping.escape(hidden)
                html += "</span>"
            }
            html += "</a></td>"
        }

        /// A cell's start tag; `nowrap` keeps what it holds on one line.
        private mutating func open(nowrap: Bool) {
            html += nowrap ? #"<td class="table__cell table__cell--nowrap">"# : #"<td class="table__cell">"#
        }

        /// A cell holding a number, aligned to the right.
        package mutating func number(_ text: String) {
            html += #"<td class="table__cell table__cell--numeric">"#
            html += HTMLEscaping.escape(text)
            html += "</td>"
        }

        /// A cell holding a coloured tag (`tone` is one of the stylesheet's `tag--…` classes).
        package mutating func tag(_ text: String, tone: TagTone) {
            html += #"<td class="table__cell"><strong class="tag tag--"#
            html += tone.rawValue
            html += #"">"#
            html += HTMLEscaping.escape(text)
            html += "</strong></td>"
        }
    }

    /// The tag colours the stylesheet defines.
    package enum TagTone: String, Sendable {
        case green, red, grey, blue, yellow, purple

        /// The class a template writes: `tag--green`.
        package var tagClass: String { "tag--\(rawValue)" }
    }
}
