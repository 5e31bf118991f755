import SafeHTML
import Testing

@Suite struct SanitizerTests {
    @Test func keepsEveryAllowedElement() throws {
        let html =
            "<p><strong>a</strong><b>b</b><em>c</em><i>d</i><u>e</u><s>f</s><code>g</code><br></p>"
            + "<blockquote><p>q</p></blockquote><pre><code>x</code></pre>"
            + "<ul><li>1</li></ul><ol><li>2</li></ol><h3>h</h3><h4>k</h4>"
        #expect(try sanitized(html) == html)
    }

    @Test(arguments: [
        "script", "style", "template", "noscript", "iframe", "object", "embed", "applet", "svg", "math",
        "textarea", "xmp", "noembed", "noframes", "title", "form", "button", "select"
    ])
    func dropsDangerousElementWithItsContent(element: String) throws {
        #expect(try sanitized("<p>before</p><\(element)>inside</\(element)><p>after</p>") == "<p>before</p><p>after</p>")
    }

    @Test func dropsPageMetadataElements() throws {
        let html = #"<meta http-equiv="refresh" content="0"><link rel="stylesheet" href="x"><base href="https://x/"><p>text</p>"#
        #expect(try sanitized(html) == "<p>text</p>")
    }

    @Test func dropsPlaintextAndEverythingAfterIt() throws {
        #expect(try sanitized("<p>kept</p><plaintext><b>gone</b>") == "<p>kept</p>")
    }

    @Test func dropsFormControls() throws {
        #expect(try sanitized("<p>a<input value=secret>b<option>c</option></p>") == "<p>ab</p>")
    }

    @Test func unwrapsUnknownElementsKeepingTheirText() throws {
        #expect(try sanitized("<p><span>one</span> <font color=red>two</font> <img src=x>three</p>") == "<p>one two three</p>")
    }

    @Test func unwrappedBlocksStayParagraphs() throws {
        #expect(try sanitized("<div>first</div><div>second</div>") == "<p>first</p><p>second</p>")
    }

    @Test func removesEveryAttributeFromElementsOtherThanLinks() throws {
        let html = #"<p class="c" id="i" style="color:red" onclick="alert(1)" title="t">x</p>"#
        #expect(try sanitized(html) == "<p>x</p>")
    }

    @Test func removesEventHandlersFromLinks() throws {
        let html = #"<a href="https://example.org/" onmouseover="alert(1)" style="x" target="_blank">x</a>"#
        #expect(try sanitized(html) == #"<p><a href="https://example.org/" \#(rel)>x</a></p>"#)
    }

    @Test func dropsCommentsProcessingInstructionsAndDoctype() throws {
        #expect(try sanitized("<!DOCTYPE html><!-- note --><?php echo 1 ?><p>text</p>") == "<p>text</p>")
    }

    @Test func escapesTextItWrites() throws {
        #expect(try sanitized("<p>1 &lt; 2 &amp;&amp; 3 &gt; 2 \"quoted\" 'single'</p>") == "<p>1 &lt; 2 &amp;&amp; 3 &gt; 2 \"quoted\" 'single'</p>")
    }

    @Test func escapesQuotesAndBracketsInAttributeValues() throws {
        let html = #"<a href="https://example.org/" title="&quot;&gt;&lt;script&gt;'">x</a>"#
        #expect(try sanitized(html) == #"<p><a href="https://example.org/" title="&quot;&gt;&lt;script&gt;&#39;" \#(rel)>x</a></p>"#)
    }

    @Test func wrapsTextOutsideAnyBlockInAParagraph() throws {
        #expect(try sanitized("loose <b>text</b><p>block</p>more") == "<p>loose <b>text</b></p><p>block</p><p>more</p>")
    }

    @Test func neverNestsLinks() throws {
        let html = #"<a href="https://a.example/">x<b><a href="https://b.example/">y</a></b></a>"#
        #expect(try !sanitized(html).contains(#"<a href="https://a.example/" \#(rel)>x<b><a"#))
    }

    @Test func neverPutsBlocksInsideParagraphsOrPhrasing() throws {
        #expect(try sanitized("<b>bold<blockquote>quote</blockquote></b>") == "<p><b>boldquote</b></p>")
        #expect(try sanitized("<p><em>a<ul><li>b</li></ul></em></p>") == "<p><em>ab</em></p>")
    }

    @Test func unwrapsListItemThatABrowserWouldCloseEarly() throws {
        #expect(try sanitized("<li>a<blockquote><li>b</li></blockquote></li>") == "<li>a<blockquote>b</blockquote></li>")
    }

    @Test func keepsListsNestedInListItems() throws {
        let html = "<ul><li>a<ul><li>b</li></ul></li></ul>"
        #expect(try sanitized(html) == html)
    }

    @Test func removesControlCharactersFromText() throws {
        #expect(try sanitized("<p>a\u{01}b\u{7F}c\u{85}d\te\u{1B}f</p>") == "<p>abcd\tef</p>")
    }

    @Test func decodesCharacterReferencesOnce() throws {
        #expect(try sanitized("<p>&eacute;&#233;&#xE9; &amp;eacute;</p>") == "<p>ééé &amp;eacute;</p>")
    }

    @Test func ignoresCharsetDeclaredInTheInput() throws {
        #expect(try sanitized(#"<meta charset="iso-8859-1"><p>é ✓</p>"#) == "<p>é ✓</p>")
    }

    @Test func emptyAndWhitespaceOnlyInputGiveEmptyOutput() throws {
        for blank in ["", " \n\t "] {
            let result = try SafeHTML.sanitize(html: blank)
            #expect(result.html == "" && result.plainText == "")
        }
    }

    @Test func plainTextHasOneBlockPerLineWithoutMarkup() throws {
        let result = try SafeHTML.sanitize(html: "<h3>Title</h3>\n<p>First &amp; <b>bold</b><br>next</p><ul><li>one</li><li>two</li></ul>")
        #expect(result.plainText == "Title\nFirst & bold\nnext\none\ntwo")
    }
}
