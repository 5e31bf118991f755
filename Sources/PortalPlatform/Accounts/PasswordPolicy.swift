import Foundation

/// The rules a new password must meet, with the message a person sees when it does not.
public struct PasswordPolicy: Sendable {
    public static let minimumLength = 8
    /// Long enough for any passphrase; the limit only keeps requests small.
    public static let maximumLength = 256

    private let commonPasswords: Set<String>

    public init(commonPasswords: Set<String>) {
        self.commonPasswords = commonPasswords
    }

    /// The list shipped with CarePortal.
    public static let standard: PasswordPolicy = {
        guard let url = Bundle.module.url(forResource: "common-passwords", withExtension: "txt"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else {
            fatalError("common-passwords.txt is missing from the PortalPlatform bundle")
        }
        let entries = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        return PasswordPolicy(commonPasswords: Set(entries))
    }()

    /// `nil` when the password is acceptable; otherwise what to tell the person.
    public func problem(with password: String, username: String? = nil) -> String? {
        let length = password.count
        if length == 0 { return "Enter a password" }
        if length < Self.minimumLength { return "Password must be \(Self.minimumLength) characters or more" }
        if length > Self.maximumLength { return "Password must be \(Self.maximumLength) characters or fewer" }
        let folded = password.lowercased()
        if commonPasswords.contains(folded) {
            return "This password is too common and easy to guess. Choose a different one, such as three or four random words"
        }
        if let username, !username.isEmpty, folded == username.lowercased() {
            return "Password must not be the same as the username"
        }
        return nil
    }
}
