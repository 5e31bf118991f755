import Foundation
import PropertyBased
import SafeHTML
import Testing

/// The attack corpus in Tests/safehtml/xss-corpus.json; the Python checkers and a real browser
/// check the same outputs independently (script/safehtml-check).
@Suite struct CorpusTests {
    @Test func corpusHoldsAtLeastThreeHundredDistinctVectors() {
        let inputs = Set(AttackVector.corpus.map { "\($0.mode):\($0.input)" })
        #expect(inputs.count == AttackVector.corpus.count)
        #expect(inputs.count >= 300)
    }

    @Test(arguments: AttackVector.corpus)
    func sanitizingAgainChangesNothing(vector: AttackVector) throws {
        let once = try vector.render()
        #expect(try SafeHTML.sanitize(html: once.html) == once)
    }

    @Test(arguments: AttackVector.corpus)
    func outputHasOnlyAllowedTagsAndSafeLinks(vector: AttackVector) throws {
        for tag in tags(in: try vector.render().html) {
            #expect(isAllowed(tag), "tag \(tag)")
        }
    }

    /// Every `<…>` in the output, read by Unicode scalar so a combining mark cannot hide a bracket;
    /// text never contains a raw `<`, so these are all the tags.
    private func tags(in html: String) -> [String] {
        var tags: [String] = []
        var tag: String.UnicodeScalarView?
        for scalar in html.unicodeScalars {
            if scalar == "<" {
                if let unclosed = tag { tags.append("unclosed " + String(unclosed)) }
                tag = String.UnicodeScalarView()
            } else if scalar == ">", let closed = tag {
                tags.append(String(closed))
                tag = nil
            } else {
                tag?.append(scalar)
            }
        }
        if let unclosed = tag { tags.append("unclosed " + String(unclosed)) }
        return tags
    }

    private func isAllowed(_ tag: String) -> Bool {
        let plain = ["p", "br", "strong", "b", "em", "i", "u", "s", "blockquote", "code", "pre", "ul", "ol", "li", "h3", "h4"]
        if plain.contains(tag) || tag.hasPrefix("/") && (plain + ["a"]).contains(String(tag.dropFirst())) {
            return true
        }
        let safeStart = [#"a href="http://"#, #"a href="https://"#, #"a href="mailto:"#].contains { tag.lowercased().hasPrefix($0) }
        let value = #""[^"<>]*""#
        let shape = try! Regex(#"a href=\#(value)( title=\#(value))? rel="nofollow noopener noreferrer""#)
            .matchingSemantics(.unicodeScalar)
        return safeStart && tag.wholeMatch(of: shape) != nil
    }
}

@Suite struct FuzzFindingTests {
    @Test func findingsAreKept() {
        #expect(FuzzFinding.all.count >= 3)
    }

    @Test(arguments: FuzzFinding.all)
    func findingNoLongerBreaksIdempotence(finding: FuzzFinding) throws {
        let once = try finding.render()
        if finding.isSanitizedHTML {
            #expect(try SafeHTML.sanitize(html: once.html) == once)
        }
    }
}

/// Sanitizing sanitized HTML must change nothing, or stored posts would drift each time they are cleaned.
@Suite struct IdempotenceTests {
    /// Pieces of HTML that, shuffled together, make the misnested and half-open markup attackers use.
    private static let fragments = [
        "<p>", "</p>", "<b>", "</b>", "<i>", "</i>", "<a href=\"https://example.org/?a=1&amp;b\">", "<a href='javascript:x'>", "</a>",
        "<ul>", "</ul>", "<ol>", "<li>", "</li>", "<blockquote>", "</blockquote>", "<pre>", "</pre>", "<code>", "</code>",
        "<h3>", "</h3>", "<h4>", "<br>", "<div>", "</div>", "<span>", "<table>", "<tr>", "<td>", "<h1>", "<script>", "</script>",
        "<style>", "<svg>", "</svg>", "<math>", "<textarea>", "<noscript>", "<template>", "</template>", "<!--", "-->", "<![CDATA[",
        "]]>", "<?", "<img src=x onerror=alert(1)>", "<select>", "<option>", "<title>", "text", " ", "\n", "\t", "&amp;", "&lt;",
        "&", "<", ">", "\"", "'", "=", "é", "😀", "\u{85}", "\u{1}", "&#0;", "&#x80;", "<p title=\"a&quot;b\">", "*", "_", "`",
        "# ", "> ", "- ", "1. ", "[x](https://example.org/)", "```\n"
    ]

    private static let markup = Gen.element(of: fragments).compactMap { $0 }.array(of: 0...40).map { $0.joined() }

    @Test func holdsForGeneratedHTML() async {
        await propertyCheck(count: 2_000, input: Self.markup) { html in
            let once = try SafeHTML.sanitize(html: html)
            #expect(try SafeHTML.sanitize(html: once.html) == once)
        }
    }

    @Test func holdsForRenderedMarkdown() async {
        await propertyCheck(count: 1_000, input: Self.markup) { markdown in
            let once = try SafeHTML.renderMarkdown(markdown)
            #expect(try SafeHTML.sanitize(html: once.html) == once)
        }
    }

    @Test func holdsForArbitraryUnicode() async {
        let text = Gen.unicodeScalar(in: "\u{0}"..."\u{2FFF}").array(of: 0...60).map { String(String.UnicodeScalarView($0)) }
        await propertyCheck(count: 1_000, input: text) { html in
            let once = try SafeHTML.sanitize(html: html)
            #expect(try SafeHTML.sanitize(html: once.html) == once)
        }
    }
}
