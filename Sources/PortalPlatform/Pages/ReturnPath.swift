/// Where a page may send someone once she has signed in (or finished a step of it): the one place that
/// decides, for every form that carries a `next`.
package enum ReturnPath {
    /// Longer return paths are not kept.
    package static let maximumLength = 2048

    /// `next` when it is a path on this site and nothing else, otherwise `fallback`. Accepted: it starts with
    /// one `/` (not `//`), and every character is printable ASCII other than `\`, so no control character,
    /// space or look-alike a browser drops or rewrites (`/\t/evil.example` becomes `//evil.example`) can
    /// turn it into another site's address. A percent-encoded character stays part of the path.
    package static func decide(_ next: String?, otherwise fallback: String) -> String {
        guard let next, isOnThisSite(next) else { return fallback }
        return next
    }

    package static func isOnThisSite(_ path: String) -> Bool {
        let scalars = Array(path.unicodeScalars)
        guard scalars.count <= maximumLength, scalars.first == "/", scalars.count == 1 || scalars[1] != "/" else { return false }
        return scalars.allSatisfy { (0x21...0x7E).contains($0.value) && $0 != "\\" }
    }
}
