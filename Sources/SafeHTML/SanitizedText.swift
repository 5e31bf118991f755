/// A text made safe to place in a page, with its words alone for lists and notifications.
public struct SanitizedText: Sendable, Hashable {
    /// HTML containing only the allowed elements and links; insert it into a page as is.
    public let html: String
    /// The same text without markup, one block per line; not escaped, so escape it when you show it.
    public let plainText: String

    /// Only SafeHTML makes these, so a `SanitizedText` is proof that its HTML went through the policy.
    init(html: String, plainText: String) {
        self.html = html
        self.plainText = plainText
    }

    /// The plain text on one line, cut at a word boundary with an ellipsis when it is longer
    /// than `maxCharacters` (counted in user-perceived characters, the ellipsis included).
    /// Not escaped, like `plainText`.
    public func excerpt(maxCharacters: Int) -> String {
        Self.excerpt(of: plainText, maxCharacters: maxCharacters)
    }

    /// The same excerpt of plain text kept from an earlier sanitizing (stored beside its HTML).
    public static func excerpt(of plainText: String, maxCharacters: Int) -> String {
        let line = oneLine(plainText, upTo: max(0, maxCharacters) + 1)
        guard line.count > maxCharacters else { return line }
        guard maxCharacters > 1 else { return maxCharacters == 1 ? "…" : "" }

        let room = line.prefix(maxCharacters - 1)
        // Cut before the word that does not fit, unless the first word alone is already too long.
        let cut: Substring
        if line[room.endIndex].isWhitespace {
            cut = room
        } else if let lastSpace = room.lastIndex(where: \.isWhitespace) {
            cut = room[..<lastSpace]
        } else {
            cut = room
        }
        return cut.trimmingTrailing(where: { $0.isWhitespace || $0.isPunctuation }) + "…"
    }

    /// The words of `text` joined by single spaces, read only until the line has `limit` characters:
    /// an excerpt never needs more, and a long post need not be read to the end.
    static func oneLine(_ text: String, upTo limit: Int) -> String {
        if let line = asciiLine(text, upTo: limit) { return line }
        var line = ""
        var count = 0
        var spaceNeeded = false
        for character in text {
            if count >= limit { break }
            if character.isWhitespace {
                spaceNeeded = count > 0
                continue
            }
            if spaceNeeded {
                line.append(" ")
                count += 1
                spaceNeeded = false
                if count >= limit { break }
            }
            line.append(character)
            count += 1
        }
        return line
    }

    /// `oneLine` byte by byte, for text that is ASCII as far as the line goes (most is), where each
    /// byte is a character; nil at the first other byte.
    private static func asciiLine(_ text: String, upTo limit: Int) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(limit, text.utf8.count))
        var spaceNeeded = false
        for byte in text.utf8 {
            guard byte < 0x80 else { return nil } // also just past the limit: it may join the last character
            if bytes.count >= limit { break }
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                spaceNeeded = !bytes.isEmpty
                continue
            }
            if spaceNeeded {
                bytes.append(0x20)
                spaceNeeded = false
                if bytes.count >= limit { break }
            }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Substring {
    fileprivate func trimmingTrailing(where isTrimmed: (Character) -> Bool) -> String {
        var end = endIndex
        while end > startIndex, isTrimmed(self[index(before: end)]) {
            end = index(before: end)
        }
        // A cut made only of punctuation keeps it rather than becoming a bare ellipsis.
        return end == startIndex ? String(self) : String(self[..<end])
    }
}
