/// Shows a chat message exactly as typed: text escaped, each line break a `<br>`, and bare
/// `http://` and `https://` addresses turned into links.
enum PlainTextRenderer {
    static func render(_ input: AuthorInput) -> SanitizedText {
        var writer = HTMLWriter(expectedSize: input.bytes.count)
        let scalars = String(decoding: input.bytes, as: UTF8.self).unicodeScalars
        var textStart = scalars.startIndex
        var index = textStart

        while index < scalars.endIndex {
            if scalars[index] == "\n" {
                writer.text(String(scalars[textStart..<index]))
                writer.startTag(.br)
                index = scalars.index(after: index)
                textStart = index
            } else if let end = linkEnd(in: scalars, startingAt: index),
                let href = LinkPolicy.safeHref(String(scalars[index..<end]))
            {
                writer.text(String(scalars[textStart..<index]))
                writer.startLink(href: href, title: nil)
                writer.text(String(scalars[index..<end]))
                writer.endTag(.a)
                index = end
                textStart = index
            } else {
                index = scalars.index(after: index)
            }
        }
        writer.text(String(scalars[textStart..<index]))
        return writer.result
    }

    /// Where a web address that starts at `start` ends, or `nil` when none starts there.
    private static func linkEnd(
        in scalars: String.UnicodeScalarView,
        startingAt start: String.Index
    ) -> String.Index? {
        guard scalars[start] == "h" || scalars[start] == "H" else { return nil }
        // "xhttp://" is not an address; only a word may start one.
        if start > scalars.startIndex, isASCIIAlphanumeric(scalars[scalars.index(before: start)]) {
            return nil
        }
        let rest = scalars[start...]
        guard let scheme = webSchemes.first(where: { rest.hasCaseInsensitivePrefix($0) }) else { return nil }

        var end = rest.firstIndex(where: endsAddress) ?? rest.endIndex
        // Punctuation after an address usually belongs to the sentence, and so does an unmatched bracket.
        while end > start {
            let last = scalars[scalars.index(before: end)]
            let candidate = scalars[start..<end]
            let isSentencePunctuation = ".,:;!?".unicodeScalars.contains(last)
            let isUnmatchedParenthesis = last == ")" && candidate.count(of: "(") < candidate.count(of: ")")
            let isUnmatchedBracket = last == "]" && candidate.count(of: "[") < candidate.count(of: "]")
            guard isSentencePunctuation || isUnmatchedParenthesis || isUnmatchedBracket else { break }
            end = scalars.index(before: end)
        }
        let hasHost = scalars.distance(from: start, to: end) > scheme.unicodeScalars.count
        return hasHost ? end : nil
    }

    private static let webSchemes = ["https://", "http://"]

    private static func endsAddress(_ scalar: Unicode.Scalar) -> Bool {
        if "<>\"'`".unicodeScalars.contains(scalar) { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator: return true
        default: return scalar.properties.isWhitespace
        }
    }

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
    }
}

extension Substring.UnicodeScalarView {
    fileprivate func hasCaseInsensitivePrefix(_ prefix: String) -> Bool {
        var own = makeIterator()
        for expected in prefix.unicodeScalars {
            guard let actual = own.next(), actual.properties.lowercaseMapping == String(expected) else {
                return false
            }
        }
        return true
    }

    fileprivate func count(of scalar: Unicode.Scalar) -> Int {
        reduce(0) { $1 == scalar ? $0 + 1 : $0 }
    }
}
