/// How a list finds a name by the words typed into its search box: every word typed must be the start of
/// one of the name's words ("lake clin" finds "Lakeview Women's Clinic"). A list keeps every start of every
/// word of each name in a table of its own, indexed with the list's order, so that a search reads one
/// range of that index in the list's order however long the list is, where `LIKE '%…%'` tested every name.
package enum WordStarts {
    /// The words of `text` as a search compares them: composed, lower case, split at anything that is not
    /// a letter or a digit ("Women's" is "women" and "s").
    package static func words(of text: String) -> [String] {
        var seen = Set<String>()
        return text.precomposedStringWithCanonicalMapping.lowercased()
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) })
            .map(String.init)
            .filter { seen.insert($0).inserted }
    }

    /// Every start of every word of `text`, each once: "Oak Clinic" gives o, oa, oak, c, cl, … clinic.
    package static func starts(of text: String) -> Set<String> {
        var starts = Set<String>()
        for word in words(of: text) {
            var start = ""
            for character in word {
                start.append(character)
                starts.insert(start)
            }
        }
        return starts
    }
}
