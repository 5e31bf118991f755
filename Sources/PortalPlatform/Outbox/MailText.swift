import Foundation

/// Text someone typed without signing in (a name at registration), written into an email to someone else.
package enum MailText {
    /// One line, with no web address in it: a name that still reads as a link (stored before names were
    /// checked) is left out, so an email never carries a link its sender did not write.
    package static func name(_ typed: String, otherwise: String = "Someone") -> String {
        let oneLine = typed.unicodeScalars
            .map { CharacterSet.controlCharacters.contains($0) || CharacterSet.whitespacesAndNewlines.contains($0) ? " " : String($0) }
            .joined()
            .split(separator: " ", omittingEmptySubsequences: true)
            .joined(separator: " ")
        guard !oneLine.isEmpty, !looksLikeWebAddress(oneLine) else { return otherwise }
        return String(oneLine.prefix(100))
    }

    /// True for text a mail program might show as a link: a scheme or `www.`.
    package static func looksLikeWebAddress(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.contains("http") || lowered.contains("www.") || lowered.contains("://")
    }
}
