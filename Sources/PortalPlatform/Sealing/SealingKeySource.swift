import Foundation

/// The sealing key could not be had; the message says what the operator should do.
public struct SealingKeyProblem: Error, CustomStringConvertible {
    public let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// Where the sealing key comes from, read once at start: `SEALING_KEY` (base64), else the file
/// `SEALING_KEY_FILE`, else, with the embedded SQLite database only, `DATA_DIR/sealing.key`, made
/// (mode 0600) the first time. Several servers of one PostgreSQL database must be given the same key,
/// so there it is never made: a server without one refuses to start.
public enum SealingKeySource: Sendable, Equatable {
    case environment
    case file(path: String)
    /// `DATA_DIR/sealing.key`, the embedded default.
    case dataDirectory(path: String)

    /// The embedded default's file in `dataDirectory`.
    package static func defaultPath(in dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("sealing.key").path
    }

    /// Where two-factor secrets were sealed before the sealing key: adopted as it, so they still open.
    package static func legacySecondFactorPath(in dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("second-factor.key").path
    }

    /// A rotation of the embedded default writes its new key here first, and names it `sealing.key` once committed.
    package static func nextPath(of path: String) -> String { path + ".next" }

    /// Where the key for `settings` comes from.
    package static func of(_ settings: Settings) throws -> SealingKeySource {
        if settings.sealingKey != nil { return .environment }
        if let path = settings.sealingKeyFile { return .file(path: path) }
        guard case .sqlite = try DatabaseLocation(url: settings.databaseURL) else {
            var message = """
                The sealing key must be given on PostgreSQL, the same on every server: set SEALING_KEY_FILE to a file \
                holding 32 random bytes (for example made by `openssl rand -base64 32`), or SEALING_KEY to them in base64 \
                (README.md, "The sealing key").
                """
            let legacy = legacySecondFactorPath(in: settings.dataDirectory)
            if FileManager.default.fileExists(atPath: legacy) {
                message += " The two-factor secrets are sealed under \(legacy): set SEALING_KEY_FILE=\(legacy) to keep them."
            }
            throw SealingKeyProblem(message)
        }
        return .dataDirectory(path: defaultPath(in: settings.dataDirectory))
    }

    /// Reads the key, making the embedded default when there is none.
    package func load(_ settings: Settings) throws -> SealingKey {
        switch self {
        case .environment:
            guard let text = settings.sealingKey, let key = try? Self.key(from: Data(text.utf8)) else {
                throw SealingKeyProblem("SEALING_KEY must be 32 bytes in base64 (for example made by `openssl rand -base64 32`)")
            }
            return key
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw SealingKeyProblem("SEALING_KEY_FILE \(path) cannot be read")
            }
            do { return try Self.key(from: data) } catch {
                throw SealingKeyProblem("SEALING_KEY_FILE \(path) must hold 32 bytes, or them in base64")
            }
        case .dataDirectory(let path):
            guard !FileManager.default.fileExists(atPath: Self.nextPath(of: path)) else {
                throw SealingKeyProblem(
                    "A rotation of the sealing key was interrupted (\(Self.nextPath(of: path)) exists): run `careportal rotate-sealing-key` again to finish it"
                )
            }
            return try Self.readOrCreate(path, legacy: Self.legacySecondFactorPath(in: settings.dataDirectory))
        }
    }

    /// A key file holds the 32 bytes themselves (as `second-factor.key` did) or them in base64.
    package static func key(from data: Data) throws -> SealingKey {
        if data.count == 32 { return try SealingKey(bytes: data) }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Data(base64Encoded: text) else { throw SealingKeyProblem("not base64") }
        return try SealingKey(bytes: bytes)
    }

    /// The embedded default: the file if it is there; else `second-factor.key` renamed to it; else a new
    /// key, created exclusively, so two processes starting at once end up with the same one.
    package static func readOrCreate(_ path: String, legacy: String) throws -> SealingKey {
        if let data = FileManager.default.contents(atPath: path) { return try checked(data, path) }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: legacy) {
            // A hard link never replaces a key already there; the old name goes once the new one holds it.
            if link(legacy, path) == 0 || errno == EEXIST { unlink(legacy) }
        } else {
            try? writeNew(generate(), to: path)
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw SealingKeyProblem("could not read or write \(path)") }
        return try checked(data, path)
    }

    private static func generate() -> SealingKey { SealingKey.generate() }

    package static func checked(_ data: Data, _ path: String) throws -> SealingKey {
        do { return try key(from: data) } catch { throw SealingKeyProblem("\(path) is not a sealing key (32 bytes, or them in base64)") }
    }

    /// Writes `key` to a new file, readable by its owner only, synced before it is used; never replaces one.
    package static func writeNew(_ key: SealingKey, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw SealingKeyProblem("could not create \(path): \(String(cString: strerror(errno)))") }
        let contents = key.fileContents
        let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == contents.count, synced else {
            unlink(path)
            throw SealingKeyProblem("could not write \(path)")
        }
    }
}

extension Sealer {
    /// The sealer for `settings`, loaded once at start.
    public static func load(_ settings: Settings) throws -> Sealer {
        Sealer(key: try SealingKeySource.of(settings).load(settings))
    }
}
