import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// The addresses allowed to read `/metrics`: single addresses and ranges (`10.0.0.0/8`, `fd00::/8`), IPv4
/// and IPv6, written with commas or spaces between them. An IPv4 client seen by a server listening on
/// IPv6 (`::ffff:127.0.0.1`) counts as its IPv4 address.
public struct AddressAllowList: Sendable, Equatable, CustomStringConvertible {
    private struct Range: Sendable, Equatable {
        let bytes: [UInt8]
        let prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if mine & mask != theirs & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    private let ranges: [Range]
    /// The entries as written.
    public let entries: [String]

    /// This machine only: what `/metrics` allows unless the operator says otherwise.
    public static let loopback = try! AddressAllowList("127.0.0.1, ::1")

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads `text`; an empty one allows no one.
    public init(_ text: String) throws {
        entries = text.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        ranges = try entries.map { entry in
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = Self.bytes(of: String(parts[0])) else {
                throw Invalid(description: "\(entry) is not an IP address or range, like 127.0.0.1, ::1 or 10.0.0.0/8")
            }
            let length = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let length, (0...bytes.count * 8).contains(length) else {
                throw Invalid(description: "\(entry) has a prefix length outside 0 to \(bytes.count * 8)")
            }
            return Range(bytes: bytes, prefixLength: length)
        }
    }

    /// True when `address` (as the socket or a trusted proxy reports it) is on the list.
    public func allows(_ address: String?) -> Bool {
        guard let address, let bytes = Self.bytes(of: address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    public var description: String { entries.joined(separator: ", ") }

    /// The address's 4 or 16 bytes; an IPv4-mapped IPv6 address gives its 4. Brackets and a zone (`%eth0`) are set aside.
    static func bytes(of text: String) -> [UInt8]? {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }
}
