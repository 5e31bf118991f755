import Foundation
import SafeHTML
import Testing

@Suite struct LimitTests {
    @Test func refusesTextOverSixtyFourKibibytes() {
        let text = String(repeating: "a", count: 65_537)
        #expect(throws: SafeHTMLError.tooLarge(limit: 65_536, actual: 65_537)) { try SafeHTML.sanitize(html: text) }
        #expect(throws: SafeHTMLError.tooLarge(limit: 65_536, actual: 65_537)) { try SafeHTML.renderMarkdown(text) }
        #expect(throws: SafeHTMLError.tooLarge(limit: 65_536, actual: 65_537)) { try SafeHTML.renderPlainText(text) }
    }

    @Test func acceptsTextOfExactlySixtyFourKibibytes() throws {
        let text = String(repeating: "é", count: 32_768)
        #expect(try SafeHTML.renderPlainText(text).html == text)
    }

    @Test func tooLargeMessageNamesBothSizes() {
        #expect(
            SafeHTMLError.tooLarge(limit: 65_536, actual: 70_000).message
                == "This text is 69 KB, but a post can hold at most 64 KB. Please shorten it."
        )
    }

    @Test(
        arguments: [
            ([0x61, 0xFF, 0x62], 1), ([0xC3], 0), ([0x61, 0x62, 0xED, 0xA0, 0x80], 2), ([0xC0, 0xAF], 0), ([0xF4, 0x90, 0x80, 0x80], 0)
        ] as [([UInt8], Int)]
    )
    func refusesBytesThatAreNotUTF8(bytes: [UInt8], offset: Int) {
        #expect(throws: SafeHTMLError.invalidUTF8(byteOffset: offset)) { try SafeHTML.sanitize(htmlUTF8: bytes) }
        #expect(throws: SafeHTMLError.invalidUTF8(byteOffset: offset)) { try SafeHTML.renderMarkdown(utf8: bytes) }
        #expect(throws: SafeHTMLError.invalidUTF8(byteOffset: offset)) { try SafeHTML.renderPlainText(utf8: Data(bytes)) }
    }

    @Test func invalidUTF8MessageAsksForTheTextAgain() {
        #expect(SafeHTMLError.invalidUTF8(byteOffset: 3).message.hasPrefix("This text contains characters that could not be read."))
    }

    @Test func acceptsUTF8Bytes() throws {
        #expect(try SafeHTML.sanitize(htmlUTF8: Array("<b>é ✓ 😀</b>".utf8)).html == "<p><b>é ✓ 😀</b></p>")
    }

    @Test func removesNULBytes() throws {
        #expect(try SafeHTML.sanitize(htmlUTF8: Array("<p>a\u{0}b</p>".utf8)).html == "<p>ab</p>")
        #expect(try SafeHTML.sanitize(html: "<scr\u{0}ipt>alert(1)</script>").html == "")
        #expect(try SafeHTML.renderPlainText("a\u{0}b").html == "ab")
        #expect(try SafeHTML.renderMarkdown("*a\u{0}b*").html == "<p><em>ab</em></p>")
    }

    @Test func flattensNestingDeeperThanOneHundredLevels() throws {
        let html = try sanitized(String(repeating: "<blockquote>", count: 150) + "deep" + String(repeating: "</blockquote>", count: 150))
        #expect(html == String(repeating: "<blockquote>", count: 100) + "deep" + String(repeating: "</blockquote>", count: 100))
    }

    @Test func survivesNestingAsDeepAsTheLimitAllows() throws {
        let html = try sanitized(String(repeating: "<div><i>", count: 8_000) + "deep")
        #expect(html == "<p>" + String(repeating: "<i>", count: 99) + "deep" + String(repeating: "</i>", count: 99) + "</p>")
    }
}
