import Testing
@testable import PortalPlatform

/// Rows written in Swift come out as the table markup the templates wrote, with every text escaped.
@Suite struct TableRowsTests {
    @Test func rowsHoldEscapedTextNotesAndTags() {
        var rows = TableRows()
        #expect(rows.isEmpty)
        rows.row { cells in
            cells.text("<b>bold</b> & \"quoted\"", note: "it's")
            cells.text("plain", note: "")
            cells.tag("Failure", tone: .red)
        }
        #expect(!rows.isEmpty)
        #expect(rows.html == """
            <tr><td class="table__cell">&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;<br><span class="body-s secondary-text">it&#39;s</span></td>\
            <td class="table__cell">plain</td>\
            <td class="table__cell"><strong class="tag tag--red">Failure</strong></td></tr>

            """)
    }

    @Test func eachRowIsItsOwnTableRow() {
        var rows = TableRows(expectedRows: 2)
        rows.row { $0.text("one"); $0.number("1,234") }
        rows.row { $0.text("two"); $0.number("<5") }
        #expect(rows.html.components(separatedBy: "<tr>").count == 3)
        #expect(rows.html.components(separatedBy: "</tr>").count == 3)
        #expect(rows.html.contains(#"<td class="table__cell table__cell--numeric">1,234</td>"#))
        #expect(rows.html.contains(#"<td class="table__cell table__cell--numeric">&lt;5</td>"#))
        #expect(rows.htmlIfAny == rows.html && TableRows().htmlIfAny == nil)
    }

    @Test func aLinkCellEscapesItsTextAndItsAddress() {
        var rows = TableRows()
        rows.row { $0.link("Ana <\"M\">", to: "/members/7?a=1&b=\"2\"") }
        #expect(rows.html == """
            <tr><td class="table__cell"><a class="link" href="/members/7?a=1&amp;b=&quot;2&quot;">Ana &lt;&quot;M&quot;&gt;</a></td></tr>

            """)
        #expect(TableRows.TagTone.grey.tagClass == "tag--grey")
    }

    @Test func filterOptionsAreEscapedAndMarkTheChosenOne() {
        let html = FilterOption.html([
            FilterOption(value: "", title: "All actions", isSelected: false),
            FilterOption(value: "a\"b", title: "<Chosen> & kept", isSelected: true),
        ])
        #expect(html == #"<option value="">All actions</option><option value="a&quot;b" selected>&lt;Chosen&gt; &amp; kept</option>"#)
    }
}
