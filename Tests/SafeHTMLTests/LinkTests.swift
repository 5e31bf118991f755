import SafeHTML
import Testing

@Suite struct LinkTests {
    @Test(arguments: ["https://example.org/path?q=1#top", "http://example.org/", "mailto:someone@example.org", "HTTPS://EXAMPLE.ORG/"])
    func keepsWebAndMailLinksWithRel(href: String) throws {
        #expect(try sanitized(#"<a href="\#(href)">x</a>"#) == #"<p><a href="\#(href)" \#(rel)>x</a></p>"#)
    }

    @Test(arguments: [
        "javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
        "java\nscript:alert(1)", "jav&#x09;ascript:alert(1)", "&#106;avascript:alert(1)", "&#x6A&#x61vascript:alert(1)",
        "javascript&colon;alert(1)", "\u{200B}javascript:alert(1)", "\u{FF4A}avascript:alert(1)", "vbscript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>", "data:text/html;base64,PHNjcmlwdD4=", "file:///etc/passwd",
        "ftp://example.org/"
    ])
    func refusesOtherSchemesKeepingTheLinkText(href: String) throws {
        #expect(try sanitized(#"<a href="\#(href)">link text</a>"#) == "<p>link text</p>")
    }

    @Test(arguments: ["//attacker.example/", "/relative", "page.html", "#top", "?q=1", "https:attacker.example", "http:/x", #"https:\\x"#])
    func refusesRelativeAndSchemeRelativeLinks(href: String) throws {
        #expect(try sanitized(#"<a href="\#(href)">x</a>"#) == "<p>x</p>")
    }

    @Test func unwrapsLinkWithoutHref() throws {
        #expect(try sanitized(#"<a name="n" title="t">x</a>"#) == "<p>x</p>")
    }

    @Test func writesTheHrefExactlyAsChecked() throws {
        #expect(try sanitized("<a href=\" ht\ttps://exa\u{200B}mple.org/\n\">x</a>") == #"<p><a href="https://example.org/" \#(rel)>x</a></p>"#)
    }

    @Test func escapesTheHrefItKeeps() throws {
        let html = #"<a href="https://example.org/?a=1&amp;b='&quot;&gt;">x</a>"#
        #expect(try sanitized(html) == #"<p><a href="https://example.org/?a=1&amp;b=&#39;&quot;&gt;" \#(rel)>x</a></p>"#)
    }

    @Test func keepsTheFirstOfDuplicateHrefs() throws {
        #expect(try sanitized(#"<a href="javascript:alert(1)" href="https://example.org/">x</a>"#) == "<p>x</p>")
    }

    @Test func keepsTitleAndReplacesAuthorsRel() throws {
        let html = #"<a rel="opener" title="Read more" href="https://example.org/">x</a>"#
        #expect(try sanitized(html) == #"<p><a href="https://example.org/" title="Read more" \#(rel)>x</a></p>"#)
    }
}
