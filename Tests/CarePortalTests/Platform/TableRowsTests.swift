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
        #expect(
            rows.html.markup == """
                <tr><td class="table__cell">&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;<br><span class="body-s secondary-text">it&#39;s</span></td>\
                <td class="table__cell">plain</td>\
                <td class="table__cell"><strong class="tag tag--red">Failure</strong></td></tr>

                """
        )
    }

    @Test func eachRowIsItsOwnTableRow() {
        var rows = TableRows(expectedRows: 2)
        rows.row {
            $0.text("one"); $0.number("1,234")
        }
        rows.row {
            $0.text("two"); $0.number("<5")
        }
        #expect(rows.html.markup.components(separatedBy: "<tr>").count == 3)
        #expect(rows.html.markup.components(separatedBy: "</tr>").count == 3)
        #expect(rows.html.markup.contains(#"<td class="table__cell table__cell--numeric">1,234</td>"#))
        #expect(rows.html.markup.contains(#"<td class="table__cell table__cell--numeric">&lt;5</td>"#))
        #expect(rows.htmlIfAny == rows.html && TableRows().htmlIfAny == nil)
    }

    @Test func aLinkCellEscapesItsTextAndItsAddress() {
        var rows = TableRows()
        rows.row { $0.link("Ana <\"M\">", to: "/members/7?a=1&b=\"2\"") }
        #expect(
            rows.html.markup == """
                <tr><td class="table__cell"><a class="link" href="/members/7?a=1&amp;b=&quot;2&quot;">Ana &lt;&quot;M&quot;&gt;</a></td></tr>

                """
        )
        #expect(TableRows.TagTone.grey.tagClass == "tag--grey")
    }

    @Test func aCellOfSeveralPiecesEscapesEachAndKeepsItsClasses() {
        var rows = TableRows()
        rows.row { cells in
            cells.cell { content in
                content.text("Lakeview <line>")
                content.lineBreak()
                content.link("https://example.org/?a=1&b=2", to: "https://example.org/?a=1&b=2", external: true)
            }
            cells.cell(nowrap: true) { $0.link("(555) 010-0199", to: "tel:+15550100199", hidden: " Ann's \"line\"") }
            cells.cell(numeric: true) { $0.text("12 members") }
            cells.cell { content in
                content.tag("Used", tone: .green)
                content.lineBreak()
                content.smaller {
                    $0.text("by "); $0.link("Maple <7>", to: "/members/7"); $0.text(", 1 Dec")
                }
            }
            cells.cell { $0.postButton("Revoke", hidden: " code #4", to: "/sign-up-codes/4/revoke", csrfToken: "t\"k") }
            cells.cell { content in
                content.buttonGroup { buttons in
                    buttons.postButton("Resend", to: "/invitations/2/resend", csrfToken: "k")
                    buttons.postButton("Revoke", to: "/invitations/2/revoke", csrfToken: "k", style: .warning)
                }
            }
            cells.cell { _ in }
        }
        #expect(
            rows.html.markup == """
                <tr><td class="table__cell">Lakeview &lt;line&gt;<br>\
                <a class="link" href="https://example.org/?a=1&amp;b=2" rel="noopener noreferrer">https://example.org/?a=1&amp;b=2</a></td>\
                <td class="table__cell table__cell--nowrap"><a class="link" href="tel:+15550100199">(555) 010-0199\
                <span class="visually-hidden"> Ann&#39;s &quot;line&quot;</span></a></td>\
                <td class="table__cell table__cell--numeric">12 members</td>\
                <td class="table__cell"><strong class="tag tag--green">Used</strong><br><span class="body-s">by \
                <a class="link" href="/members/7">Maple &lt;7&gt;</a>, 1 Dec</span></td>\
                <td class="table__cell"><form class="inline-form" method="post" action="/sign-up-codes/4/revoke">\
                <input type="hidden" name="csrf_token" value="t&quot;k">\
                <button class="button button--secondary button--small" type="submit">Revoke<span class="visually-hidden"> code #4</span></button></form></td>\
                <td class="table__cell"><div class="button-group">\
                <form class="inline-form" method="post" action="/invitations/2/resend"><input type="hidden" name="csrf_token" value="k">\
                <button class="button button--secondary button--small" type="submit">Resend</button></form>\
                <form class="inline-form" method="post" action="/invitations/2/revoke"><input type="hidden" name="csrf_token" value="k">\
                <button class="button button--warning button--small" type="submit">Revoke</button></form></div></td>\
                <td class="table__cell"></td></tr>

                """
        )
    }

    @Test func filterOptionsAreEscapedAndMarkTheChosenOne() {
        let html = FilterOption.html([
            FilterOption(value: "", title: "All actions", isSelected: false),
            FilterOption(value: "a\"b", title: "<Chosen> & kept", isSelected: true)
        ])
        #expect(html.markup == #"<option value="">All actions</option><option value="a&quot;b" selected>&lt;Chosen&gt; &amp; kept</option>"#)
    }
}

/// A summary list's rows written in Swift: each key and value escaped, a long value allowed to wrap.
@Suite struct SummaryRowsTests {
    @Test func rowsHoldEscapedKeysAndValues() {
        var rows = SummaryRows()
        rows.row("Email <address>", "a&b@example.org", wrapsText: true)
        rows.row("Points", "35")
        #expect(
            rows.html.markup == """
                <div class="summary-list__row"><dt class="summary-list__key">Email &lt;address&gt;</dt>\
                <dd class="summary-list__value summary-list__value--text">a&amp;b@example.org</dd></div>\
                <div class="summary-list__row"><dt class="summary-list__key">Points</dt><dd class="summary-list__value">35</dd></div>
                """
        )
    }
}
