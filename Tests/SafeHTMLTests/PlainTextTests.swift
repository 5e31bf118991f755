import SafeHTML
import Testing

@Suite struct PlainTextTests {
    @Test func escapesEveryMarkupCharacter() throws {
        #expect(try SafeHTML.renderPlainText(#"<b>"hi" & 'bye'</b>"#).html == #"&lt;b&gt;"hi" &amp; 'bye'&lt;/b&gt;"#)
    }

    @Test func keepsLineBreaks() throws {
        #expect(try SafeHTML.renderPlainText("one\ntwo\r\nthree\rfour").html == "one<br>two<br>three<br>four")
    }

    @Test func linksBareWebAddresses() throws {
        #expect(
            try SafeHTML.renderPlainText("see https://example.org/a?b=1&c=2 now").html
                == #"see <a href="https://example.org/a?b=1&amp;c=2" \#(rel)>https://example.org/a?b=1&amp;c=2</a> now"#
        )
    }

    @Test func leavesSentencePunctuationOutsideTheLink() throws {
        #expect(
            try SafeHTML.renderPlainText("(see http://example.org/x_(y)).").html
                == #"(see <a href="http://example.org/x_(y)" \#(rel)>http://example.org/x_(y)</a>)."#
        )
    }

    @Test func linksAddressesWithNonASCIICharacters() throws {
        #expect(
            try SafeHTML.renderPlainText("https://de.example/Köln!").html
                == #"<a href="https://de.example/Köln" \#(rel)>https://de.example/Köln</a>!"#
        )
    }

    @Test(arguments: ["javascript:alert(1)", "xhttps://example.org/", "ftp://example.org/", "www.example.org", "https://", "mailto:a@example.org"])
    func linksNothingElse(message: String) throws {
        #expect(try !SafeHTML.renderPlainText(message).html.contains("<a"))
    }

    @Test func addressEndsAtQuotesAndBrackets() throws {
        #expect(
            try SafeHTML.renderPlainText(#"https://example.org/"onmouseover="x <https://example.org/b>"#).html
                == #"<a href="https://example.org/" \#(rel)>https://example.org/</a>"onmouseover="x &lt;<a href="https://example.org/b" \#(rel)>https://example.org/b</a>&gt;"#
        )
    }

    @Test func plainTextIsTheMessageAsTyped() throws {
        #expect(try SafeHTML.renderPlainText("  <hi>\nthere\u{0}  ").plainText == "<hi>\nthere")
    }
}
