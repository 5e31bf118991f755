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
        let words = plainText.split(whereSeparator: \.isWhitespace)
        let line = words.joined(separator: " ")
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
