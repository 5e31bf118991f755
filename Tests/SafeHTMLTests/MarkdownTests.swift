import SafeHTML
import Testing

@Suite struct MarkdownTests {
    @Test func rendersEverydayMarkdown() throws {
        let markdown = "Some *emphasis*, **strong** and `code`.\n\n> quoted\n\n- one\n- two\n\n1. first\n\n```\nlet x = 1\n```"
        #expect(
            try SafeHTML.renderMarkdown(markdown).html == """
                <p>Some <em>emphasis</em>, <strong>strong</strong> and <code>code</code>.</p>\
                <blockquote>\n<p>quoted</p>\n</blockquote>\
                <ul><li>one</li><li>two</li></ul><ol><li>first</li></ol>\
                <pre><code>let x = 1\n</code></pre>
                """
        )
    }

    @Test func headingsFitUnderThePagesOwn() throws {
        #expect(
            try SafeHTML.renderMarkdown("# One\n\n## Two\n\n### Three\n\n#### Four\n\n###### Six").html
                == "<h3>One</h3><h3>Two</h3><h3>Three</h3><h4>Four</h4><h4>Six</h4>"
        )
    }

    @Test func linksGetRel() throws {
        #expect(
            try SafeHTML.renderMarkdown("[site](https://example.org/ \"Title\")").html
                == #"<p><a href="https://example.org/" title="Title" \#(rel)>site</a></p>"#
        )
    }

    @Test func rawHTMLPassesThroughTheSanitizer() throws {
        #expect(try SafeHTML.renderMarkdown("Hi <b onclick=\"alert(1)\">there</b>\n\n<script>alert(1)</script>").html == "<p>Hi <b>there</b></p>")
    }

    @Test(arguments: ["[x](javascript:alert(1))", "[x](&#106;avascript:alert(1))", "<javascript:alert(1)>", "[x][r]\n\n[r]: data:text/html,x"])
    func scriptLinksLoseTheirLink(markdown: String) throws {
        #expect(try !SafeHTML.renderMarkdown(markdown).html.contains("<a"))
    }

    @Test func imagesAreRemovedSoNothingIsFetched() throws {
        #expect(try SafeHTML.renderMarkdown("![pixel](https://tracker.example/p.gif)").html == "<p></p>")
    }

    @Test func codeShowsMarkupAsText() throws {
        #expect(try SafeHTML.renderMarkdown("`<script>alert(1)</script>`").html == "<p><code>&lt;script&gt;alert(1)&lt;/script&gt;</code></p>")
    }

    @Test func plainTextOfMarkdownHasNoMarkupSyntax() throws {
        #expect(try SafeHTML.renderMarkdown("# Title\n\nSome **bold** [link](https://example.org/).").plainText == "Title\nSome bold link.")
    }
}
