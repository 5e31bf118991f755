import Crypto
import Foundation

/// A 256-bit AES key the operator gives the portal (`SealingKeySource`), named by a short id that the
/// sealed form carries, so a value sealed under another key is told apart from a damaged one.
public struct SealingKey: Sendable {
    /// The key's bytes (swift-crypto's `SymmetricKey` is not `Sendable`; one is made for each use).
    private let bytes: Data
    package var key: SymmetricKey { SymmetricKey(data: bytes) }
    /// Eight hex digits of a hash of the key: enough to tell keys apart, nothing about the key.
    package let id: String

    package init(bytes: some DataProtocol) throws {
        guard bytes.count == 32 else { throw SealingKeyProblem("a sealing key must be 256 bits (32 bytes)") }
        self.bytes = Data(bytes)
        var hasher = SHA256()
        hasher.update(data: Data("CarePortal sealing key id".utf8))
        hasher.update(data: self.bytes)
        id = hasher.finalize().prefix(4).map { String(format: "%02x", $0) }.joined()
    }

    /// A new key from the system's secure generator.
    package static func generate() -> SealingKey {
        // 32 bytes always make a key.
        try! SealingKey(bytes: SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
    }

    /// The key as a key file holds it: base64 and a newline, so it also fits `SEALING_KEY`.
    package var fileContents: Data {
        Data((bytes.base64EncodedString() + "\n").utf8)
    }
}

/// What a sealed value is for. It is authenticated with the value (AES-GCM's associated data), so a
/// value copied into another column does not open there.
public struct SealingPurpose: Sendable, Hashable {
    package let name: String

    package init(_ name: String) {
        self.name = name
    }
}

/// A sealed value that cannot be opened: sealed under another key, or altered.
public struct Unsealable: Error, CustomStringConvertible {
    public let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// Seals the portal's secrets at rest with AES-GCM (swift-crypto) under the one sealing key.
///
/// The sealed form is `v1.<key id>.<base64 of nonce, ciphertext and tag>`. Values sealed before the
/// sealing key existed (two-factor secrets under `second-factor.key`) are bare base64 without associated
/// data; they open under the same key, and `careportal rotate-sealing-key` re-seals them in this form.
public struct Sealer: Sendable {
    /// New values are sealed under this key.
    package let key: SealingKey
    /// Keys values may be opened with besides `key`: only while a rotation is finished.
    package let formerKeys: [SealingKey]

    package init(key: SealingKey, formerKeys: [SealingKey] = []) {
        self.key = key
        self.formerKeys = formerKeys
    }

    private static let version = "v1"

    package func seal(_ text: String, for purpose: SealingPurpose) throws -> String {
        let box = try AES.GCM.seal(Data(text.utf8), using: key.key, authenticating: Data(purpose.name.utf8))
        // The default 12-byte nonce always gives a combined form.
        return "\(Self.version).\(key.id).\(box.combined!.base64EncodedString())"
    }

    package func open(_ sealed: String, for purpose: SealingPurpose) throws -> String {
        let parts = sealed.split(separator: ".", omittingEmptySubsequences: false)
        let opened: Data
        if parts.count == 1 {
            // Sealed before the sealing key: no associated data, under the key that became it.
            guard let data = Data(base64Encoded: sealed) else { throw Unsealable("a sealed value is not base64") }
            opened = try openLegacy(data)
        } else {
            guard parts.count == 3, parts[0] == Self.version, let data = Data(base64Encoded: String(parts[2])) else {
                throw Unsealable("a sealed value is not in a form this version knows")
            }
            guard let sealedUnder = ([key] + formerKeys).first(where: { $0.id == parts[1] }) else {
                throw Unsealable("a value is sealed under key \(parts[1]), and the sealing key given is \(key.id)")
            }
            do {
                opened = try AES.GCM.open(AES.GCM.SealedBox(combined: data), using: sealedUnder.key, authenticating: Data(purpose.name.utf8))
            } catch {
                throw Unsealable("a value sealed under key \(sealedUnder.id) does not open: it was altered, or moved from another column")
            }
        }
        guard let text = String(data: opened, encoding: .utf8) else { throw Unsealable("a sealed value opened to no text") }
        return text
    }

    /// Whether `sealed` is already in this version's form under `key`.
    package func isCurrent(_ sealed: String) -> Bool {
        sealed.hasPrefix("\(Self.version).\(key.id).")
    }

    private func openLegacy(_ data: Data) throws -> Data {
        let box = try AES.GCM.SealedBox(combined: data)
        for candidate in [key] + formerKeys {
            if let opened = try? AES.GCM.open(box, using: candidate.key) { return opened }
        }
        throw Unsealable("a value sealed before the sealing key does not open under the key given")
    }
}
