import Crypto
import Foundation

/// A random secret handed to a browser or an app (session ids, CSRF tokens, links in emails).
///
/// Only `hash` is ever stored, so a copy of the database cannot be used to sign in.
package struct SecretToken: Sendable, Equatable {
    /// 256 random bits, base64url without padding.
    package let value: String

    package init(randomBytes: @Sendable (Int) -> [UInt8]) {
        value = Data(randomBytes(32)).base64URLEncodedString()
    }

    package init(value: String) {
        self.value = value
    }

    package var hash: String { SecretToken.hash(value) }

    package static func hash(_ value: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: SHA256.byteCount * 2) { buffer in
            var index = 0
            for byte in SHA256.hash(data: Data(value.utf8)) {
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0f)]
                index += 2
            }
            return index
        }
    }

    /// Compares in time that does not depend on where the strings differ.
    package static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

extension Data {
    package func base64URLEncodedString() -> String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
