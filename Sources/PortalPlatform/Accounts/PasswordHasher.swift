import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix

/// Turns passwords into bcrypt hashes and checks them, off the request threads.
///
/// bcrypt reads only the first 72 bytes of its input, so the password (in Unicode NFC, so the same
/// password typed on any device matches) is first reduced to a base64 SHA-256 digest: every
/// character of a long password counts, and no NUL byte reaches bcrypt.
public struct PasswordHasher: Sendable {
    public static let productionCost = 12
    package let cost: Int

    public init(cost: Int) {
        self.cost = cost
    }

    public func hash(_ password: String) async throws -> String {
        let input = Self.prepared(password)
        let cost = UInt8(cost)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(input, cost: cost) }
    }

    public func verify(_ password: String, against hash: String) async throws -> Bool {
        let input = Self.prepared(password)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(input, hash: hash) }
    }

    /// Spends the same time as a real check, so an unknown username answers no faster than a known one.
    public func verifyAgainstNothing(_ password: String) async throws {
        _ = try await verify(password, against: Self.decoyHash(cost: cost))
    }

    /// Whether `password` matches the stored hash of an account that may not exist (nil): false for
    /// none, after the same time a real check takes.
    public func verify(_ password: String, againstStored hash: String?) async throws -> Bool {
        guard let hash else {
            try await verifyAgainstNothing(password)
            return false
        }
        return try await verify(password, against: hash)
    }

    private static func prepared(_ password: String) -> String {
        let normalized = password.precomposedStringWithCanonicalMapping
        return Data(SHA256.hash(data: Data(normalized.utf8))).base64EncodedString()
    }

    private static let decoyHashes = DecoyHashes()

    private static func decoyHash(cost: Int) -> String {
        decoyHashes.hash(cost: cost)
    }
}

/// One throwaway hash per cost, made on first use.
private final class DecoyHashes: @unchecked Sendable {
    private let lock = NSLock()
    private var hashes: [Int: String] = [:]

    package func hash(cost: Int) -> String {
        lock.withLock {
            if let hash = hashes[cost] { return hash }
            let hash = Bcrypt.hash("decoy password never used", cost: UInt8(cost))
            hashes[cost] = hash
            return hash
        }
    }
}
