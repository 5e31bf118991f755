import PropertyBased
@testable import SafeHTML
import Testing

@Suite struct ExcerptTests {
    /// A chat message's plain text is the message as typed, so it can stand for any plain text.
    private func text(_ plainText: String) -> SanitizedText {
        try! SafeHTML.renderPlainText(plainText)
    }

    @Test func shortTextIsKeptWholeOnOneLine() {
        #expect(text("Title\n  some   words\there").excerpt(maxCharacters: 100) == "Title some words here")
    }

    @Test func cutsBeforeTheWordThatDoesNotFit() {
        #expect(text("The meeting moves to Thursday evening").excerpt(maxCharacters: 20) == "The meeting moves…")
    }

    @Test func dropsPunctuationBeforeTheEllipsis() {
        #expect(text("First, second, third").excerpt(maxCharacters: 12) == "First…")
    }

    @Test func cutsAWordLongerThanTheExcerpt() {
        #expect(text("Supercalifragilistic").excerpt(maxCharacters: 6) == "Super…")
    }

    @Test func countsUserPerceivedCharacters() {
        #expect(text("👩‍👩‍👧 family 🇨🇦 flag").excerpt(maxCharacters: 10) == "👩‍👩‍👧 family…")
    }

    @Test func tinyLimitsGiveOnlyWhatFits() {
        #expect(text("words").excerpt(maxCharacters: 1) == "…")
        #expect(text("words").excerpt(maxCharacters: 0) == "")
    }

    @Test func neverLongerThanAskedAndAlwaysAPrefixOfTheWords() async {
        let words = Gen.letterOrNumber.string(of: 0...12).array(of: 0...30)
        await propertyCheck(input: words, Gen.int(in: 1...80)) { words, limit in
            let line = words.filter { !$0.isEmpty }.joined(separator: " ")
            let excerpt = text(words.joined(separator: " \n ")).excerpt(maxCharacters: limit)
            #expect(excerpt.count <= limit)
            #expect(line.hasPrefix(excerpt.hasSuffix("…") ? String(excerpt.dropLast()) : excerpt))
        }
    }

    @Test func readingOnlyTheStartGivesTheSameLineAsJoiningEveryWord() async {
        // ASCII pieces mostly (read byte by byte), sometimes a piece that is not (read by characters).
        let pieces = Gen.oneOf(
            Gen.always("ab"),
            Gen.always("C1,"),
            Gen.always(" "),
            Gen.always("\r\n"),
            Gen.always("\t\u{0B}"),
            Gen.always("x"),
            Gen.letterOrNumber.string(of: 0...9),
            Gen.always("👩‍👩‍👧"),
            Gen.always("e\u{301}")
        )
        await propertyCheck(input: pieces.array(of: 0...60), Gen.int(in: 0...90)) { pieces, limit in
            let text = pieces.joined()
            let whole = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(SanitizedText.oneLine(text, upTo: limit) == String(whole.prefix(limit)))
        }
    }
}
