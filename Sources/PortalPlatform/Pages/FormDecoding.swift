import Foundation
import Hummingbird

extension Request {
    /// The submitted form; fields the browser did not send decode as nil.
    package func form<Form: Decodable>(_ type: Form.Type, context: PortalContext) async throws -> Form {
        var copy = self
        let body = try await copy.collectBody(upTo: context.maxUploadSize)
        do {
            return try URLEncodedFormDecoder().decode(Form.self, from: String(buffer: body))
        } catch {
            throw HTTPError(.badRequest)
        }
    }

    /// A query parameter, trimmed; empty counts as absent.
    package func query(_ name: String) -> String? {
        guard let value = uri.queryParameters[Substring(name)].map({ String($0).trimmed }), !value.isEmpty else { return nil }
        return value
    }

    /// The `page` query parameter.
    package var pageNumber: Int { query("page").flatMap(Int.init) ?? 1 }

    /// The page a list's link asks for: `?after=` or `?before=` a cursor, `?page=last`, or an old `?page=N`
    /// (served within the rows a list counts, so bookmarks near the top keep working). A damaged cursor
    /// throws `DamagedPageLink`, a 400 page; an old page number further in, `OldPageLinkBeyondReach`, a 410
    /// page linking to the list's first and last pages.
    package func pageRequest(size: Int = PageRequest.defaultSize) throws -> PageRequest {
        if let after = query("after") { return PageRequest(.after(try PageCursor(token: after)), size: size) }
        if let before = query("before") { return PageRequest(.before(try PageCursor(token: before)), size: size) }
        if query("page") == "last" { return PageRequest(.last, size: size) }
        let number = pageNumber
        let request = PageRequest(number: number, size: size)
        guard request.startsWithinCountedRows else {
            // One leading slash, so the links stay on this site whatever the address's path began with.
            let path = "/" + uri.path.drop { $0 == "/" }
            let list = ListAddress(path: path, parameters: uri.queryParameters.map { (String($0.key), String($0.value)) })
                .with("page", nil)
            throw OldPageLinkBeyondReach(number: number, firstPath: list.string, lastPath: list.with("page", "last").string)
        }
        return request
    }
}

/// Checks shared by every form that names a person or an account.
package enum FieldRules {
    package static let usernameMaximumLength = 21

    /// Staff usernames and members' pseudonyms follow one rule; `noun` names the field in the message.
    package static func usernameProblem(_ username: String, noun: String = "username") -> String? {
        let capitalized = noun.prefix(1).uppercased() + noun.dropFirst()
        if username.isEmpty { return "Enter a \(noun)" }
        if username.count > usernameMaximumLength { return "\(capitalized) must be \(usernameMaximumLength) characters or fewer" }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        if !username.allSatisfy(allowed.contains) {
            return "\(capitalized) can only contain letters, numbers, full stops (.), hyphens (-) and underscores (_)"
        }
        return nil
    }

    package static func emailProblem(_ email: String) -> String? {
        if email.isEmpty { return "Enter an email address" }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let valid =
            email.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
            && !email.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" || $0 == "," || $0 == ";" })
            && !email.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
        return valid ? nil : "Enter an email address in the correct format, like name@example.com"
    }

    package static func requiredTextProblem(_ value: String, name: String, maximumLength: Int = 100) -> String? {
        if value.isEmpty { return "Enter \(name)" }
        if value.count > maximumLength { return "\(name.prefix(1).uppercased() + name.dropFirst()) must be \(maximumLength) characters or fewer" }
        return nil
    }

    /// A person's name typed where nobody is signed in (registration) and later written into emails to
    /// others: one line, and nothing that reads as a web address, so no one can mail a link in a name.
    package static func personNameProblem(_ value: String, name: String, maximumLength: Int = 100) -> String? {
        if let problem = requiredTextProblem(value, name: name, maximumLength: maximumLength) { return problem }
        if value.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) || CharacterSet.newlines.contains($0) }) {
            return "Enter \(name) on one line"
        }
        if MailText.looksLikeWebAddress(value) { return "Enter \(name) without a web address" }
        return nil
    }
}
