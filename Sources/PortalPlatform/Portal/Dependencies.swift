import Foundation

/// The outside world CarePortal touches — time, randomness, mail — injected so tests can control it.
public struct Dependencies: Sendable {
    /// The current instant.
    public var now: @Sendable () -> Date
    /// Bytes from a cryptographically secure generator.
    public var randomBytes: @Sendable (Int) -> [UInt8]
    /// How mail leaves the outbox; `nil` keeps it there for administrators to read.
    public var mailTransport: (any MailTransport)?
    /// bcrypt's work factor. Never below 12 outside tests.
    public var passwordHashCost: Int
    /// How pushes reach phones; `nil` writes them to the log.
    package var pushSender: (any PushSender)?
    /// False in tests that run the features' jobs themselves, at the moments their clock chooses.
    package var runsBackgroundJobs = true
    /// True in the test that looks for text written into a template's raw slot (`PageRenderer.checksRawSlots`).
    package var checksRawSlots = false

    public init(
        now: @escaping @Sendable () -> Date = Date.init,
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = Dependencies.systemRandomBytes,
        mailTransport: (any MailTransport)? = nil,
        passwordHashCost: Int = PasswordHasher.productionCost
    ) {
        self.now = now
        self.randomBytes = randomBytes
        self.mailTransport = mailTransport
        self.passwordHashCost = passwordHashCost
    }

    /// The operating system's secure generator (getrandom on Linux).
    public static let systemRandomBytes: @Sendable (Int) -> [UInt8] = { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The production wiring for `settings`.
    public static func live(settings: Settings) -> Dependencies {
        var dependencies = Dependencies(mailTransport: settings.smtpURL.map { SMTPTransport(url: $0) })
        dependencies.pushSender = settings.pushWebhookURL.map { WebhookPushSender(url: $0, secret: settings.pushWebhookSecret) }
        return dependencies
    }
}
