import PropertyBased
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Values in templates are escaped code point by code point, so a quote cannot close an attribute by
/// hiding behind a combining mark.
@Suite struct HTMLEscapingTests {
    /// The five as character references, found by Unicode scalar: what the escaping must equal.
    private static func expected(_ text: String) -> String {
        text.unicodeScalars.map { scalar in
            switch scalar {
            case "<": "&lt;"
            case ">": "&gt;"
            case "&": "&amp;"
            case "\"": "&quot;"
            case "'": "&#39;"
            default: String(scalar)
            }
        }.joined()
    }

    @Test(arguments: [
        ("plain words, Núñez-Ødegård 🩺", "plain words, Núñez-Ødegård 🩺"),
        ("", ""),
        (#"<script>alert("x") & 'y'</script>"#, "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;"),
        // A quote or bracket followed by a combining mark is one character, but still a quote to a browser.
        ("\"\u{301} autofocus onfocus=alert(1) x=\"", "&quot;\u{301} autofocus onfocus=alert(1) x=&quot;"),
        ("'\u{301}", "&#39;\u{301}"),
        ("<\u{338}img src=x>", "&lt;\u{338}img src=x&gt;"),
        ("&\u{20DD}amp;", "&amp;\u{20DD}amp;")
    ])
    func escapesTheFiveWhereverTheyStand(text: String, escaped: String) {
        #expect(HTMLEscaping.escape(text) == escaped)
    }

    @Test func escapingEqualsReplacingEachScalar() async {
        let specials: [Unicode.Scalar] = ["<", ">", "&", "\"", "'", "\u{301}", "\u{338}", "\u{200D}"]
        let scalar = Gen.oneOf(Gen.element(of: specials).compactMap { $0 }, Gen.unicodeScalar(in: "\u{0}"..."\u{2FFF}"))
        let text = scalar.array(of: 0...60).map { String(String.UnicodeScalarView($0)) }
        await propertyCheck(count: 2_000, input: text) { text in
            #expect(HTMLEscaping.escape(text) == Self.expected(text))
        }
    }

    /// Every template escapes this way: a value kept in a form field after an error stays inside its attribute.
    @Test func aValueKeptInAFormFieldStaysInsideItsAttribute() async throws {
        try await TestPortal.run(.sqlite) { portal in
            var browser = Visitor(portal: portal)
            try await browser.get("/sign-in")
            let typed = "ana\"\u{301} autofocus onfocus=alert(1) x=\""
            let page = try await browser.post("/sign-in", form: [("username", typed), ("password", "not the password")])
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains(#"value="ana&quot;\#u{301} autofocus onfocus=alert(1) x=&quot;""#))
            #expect(!page.text.contains("autofocus onfocus=alert(1) x=\""))
        }
    }
}
