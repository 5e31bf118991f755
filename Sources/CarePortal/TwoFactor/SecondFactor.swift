import Foundation
import HummingbirdOTP
import PortalPlatform

/// Time-based one-time codes (RFC 6238) as authenticator apps make them: six digits, a new one every
/// thirty seconds, from a secret the app learns from a QR code. HummingbirdOTP computes the codes.
struct SecondFactor: Sendable {
    /// The secret as HummingbirdOTP takes it: 32 characters of the base32 alphabet (160 random bits),
    /// whose bytes are the HMAC key. Never stored as it is: see `SecondFactorSealer`.
    let secret: String

    static let step: TimeInterval = 30
    /// Codes of the steps either side of now are accepted too, for clocks a little out.
    static let window: Int64 = 1
    static let digits = 6

    private static let base32 = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    init(secret: String) {
        self.secret = secret
    }

    /// A new secret from the secure generator.
    static func generate(randomBytes: @Sendable (Int) -> [UInt8]) -> SecondFactor {
        SecondFactor(secret: String(randomBytes(32).map { base32[Int($0 & 31)] }))
    }

    private var totp: TOTP { TOTP(secret: secret, length: Self.digits, timeStep: Int(Self.step)) }

    /// What someone types into an authenticator app by hand: the key in base32, in groups of four.
    var typedKey: String {
        let encoded = Self.base32Encoded(Array(secret.utf8))
        return stride(from: 0, to: encoded.count, by: 4).map { start in
            String(
                encoded[
                    encoded.index(encoded.startIndex, offsetBy: start)..<encoded.index(encoded.startIndex, offsetBy: min(start + 4, encoded.count))
                ]
            )
        }.joined(separator: " ")
    }

    /// The `otpauth://` address the QR code carries.
    func authenticatorURL(username: String, issuer: String) -> String {
        totp.createAuthenticatorURL(label: "\(issuer):\(username)", issuer: issuer)
    }

    static func stepNumber(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / step).rounded(.down))
    }

    /// The code for one time step.
    func code(step: Int64) -> String {
        let value = totp.compute(date: Date(timeIntervalSince1970: TimeInterval(step) * Self.step))
        let digits = String(value)
        return String(repeating: "0", count: max(0, Self.digits - digits.count)) + digits
    }

    /// The step whose code `typed` is, within the window around `now` and after `after` (a code, and
    /// any before it, is accepted once); nil when it is none.
    func matchingStep(_ typed: String, now: Date, after lastStep: Int64) -> Int64? {
        let typed = typed.filter { !$0.isWhitespace }
        guard typed.count == Self.digits, typed.allSatisfy(\.isASCII), typed.allSatisfy(\.isNumber) else { return nil }
        let current = Self.stepNumber(at: now)
        for step in (current - Self.window)...(current + Self.window) where step > lastStep {
            if SecretToken.constantTimeEquals(code(step: step), typed) { return step }
        }
        return nil
    }

    /// Whether `typed` looks like a code from the app rather than a recovery code.
    static func looksLikeCode(_ typed: String) -> Bool {
        let digits = typed.filter { !$0.isWhitespace }
        return digits.count == Self.digits && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    static func base32Encoded(_ bytes: [UInt8]) -> String {
        var output = ""
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(base32[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(base32[(buffer << (5 - bits)) & 31]) }
        return output
    }
}

/// Ten single-use codes for when the phone is lost, shown once and stored only as hashes.
enum RecoveryCodes {
    static let count = 10
    /// Lower-case letters and digits that cannot be mistaken for one another (no i, l, o, 0, 1).
    private static let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")

    /// Ten codes like `k7d2m-q9xfa`: 50 bits each.
    static func generate(randomBytes: @Sendable (Int) -> [UInt8]) -> [String] {
        (0..<count).map { _ in
            var characters: [Character] = []
            while characters.count < 10 {
                // Only bytes below a multiple of the alphabet's size, so every character is equally likely.
                for byte in randomBytes(16) where Int(byte) < alphabet.count * (256 / alphabet.count) && characters.count < 10 {
                    characters.append(alphabet[Int(byte) % alphabet.count])
                }
            }
            return String(characters[0..<5]) + "-" + String(characters[5..<10])
        }
    }

    /// A typed code as it is hashed: lower case, without spaces or hyphens.
    static func normalized(_ typed: String) -> String {
        typed.lowercased().filter { $0 != "-" && !$0.isWhitespace }
    }

    static func hash(_ typed: String) -> String {
        SecretToken.hash(normalized(typed))
    }
}

/// TOTP secrets rest sealed under the portal's one sealing key (`Sealer`, AES-GCM): a copy of the
/// database alone does not give them away. Secrets sealed under `second-factor.key` before it open too:
/// that key became the sealing key (`SealingKeySource`).
struct SecondFactorSealer: Sendable {
    static let purpose = SealingPurpose("second_factors.sealed_secret")
    /// Re-sealed by a rotation of the key.
    static let sealedColumn = SealedColumn(table: "second_factors", key: "account_id", column: "sealed_secret", purpose: purpose)
    let sealer: Sealer

    func seal(_ secret: String) throws -> String {
        try sealer.seal(secret, for: Self.purpose)
    }

    func open(_ sealed: String) throws -> String {
        try sealer.open(sealed, for: Self.purpose)
    }
}
