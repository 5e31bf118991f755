import Foundation
import PortalPlatform

extension Commands {
    /// What `rotate-sealing-key` did.
    public struct SealingKeyRotated: Sendable {
        /// Sealed values opened and sealed again under the new key.
        public let resealed: Int
        public let formerKeyID: String
        public let newKeyID: String
        /// Where the new key is: `DATA_DIR/sealing.key` replaced, or the new file the operator named.
        public let newKeyPath: String
        /// True when the embedded default in `DATA_DIR` was replaced; false when the operator must now
        /// give every server the new key (`SEALING_KEY_FILE` or `SEALING_KEY`).
        public let replacedDefault: Bool
    }

    /// Seals every sealed value (the columns the features declare) again under a new key, in one
    /// transaction. The new key is written, synced, before anything is re-sealed: with the embedded
    /// default to `DATA_DIR/sealing.key.next`, renamed over `sealing.key` once committed (a run that was
    /// interrupted is finished by running it again); with a key the operator gives, to `newKeyFile`,
    /// which the operator then gives every server. Servers must be stopped meanwhile: one still running
    /// would seal what it writes under the former key.
    public static func rotateSealingKey(settings: Settings, newKeyFile: String?) async throws -> SealingKeyRotated {
        let source = try SealingKeySource.of(settings)
        let current: SealingKey, next: SealingKey, newPath: String
        switch source {
        case .dataDirectory(let path):
            guard newKeyFile == nil else {
                throw SealingKeyProblem(
                    "--new-key-file is for a key given by SEALING_KEY_FILE or SEALING_KEY; the embedded DATA_DIR/sealing.key is replaced where it is"
                )
            }
            newPath = SealingKeySource.nextPath(of: path)
            current = try SealingKeySource.readOrCreate(path, legacy: SealingKeySource.legacySecondFactorPath(in: settings.dataDirectory))
            if let data = FileManager.default.contents(atPath: newPath) {
                next = try SealingKeySource.checked(data, newPath)
            } else {
                next = SealingKey.generate()
                try SealingKeySource.writeNew(next, to: newPath)
            }
        case .environment, .file:
            guard let newKeyFile else {
                throw SealingKeyProblem(
                    "Name the file for the new key with --new-key-file PATH (it must not exist yet); then give every server SEALING_KEY_FILE=PATH"
                )
            }
            current = try source.load(settings)
            next = SealingKey.generate()
            newPath = newKeyFile
            try SealingKeySource.writeNew(next, to: newPath)
        }
        // Values already under the new key (a run interrupted after its commit) open with it too.
        let opener = Sealer(key: current, formerKeys: [next])
        let sealer = Sealer(key: next)
        let rotation = SealingKeyRotation(columns: Features.all.flatMap { $0.sealedColumns })
        let database = try Database(url: settings.databaseURL, logger: logger(settings))
        let resealed = try await database.whileRunning {
            try await Migrator(database: database, logger: logger(settings)).migrate()
            return try await database.transaction { db in
                _ = try await Outbox(now: Date.init, sealer: sealer, wakeSender: {}).sealPlainBodies(on: db)
                let count = try await rotation.reseal(from: opener, to: sealer, on: db)
                try await AuditLog(now: Date.init).record(
                    AuditEvent(
                        actor: .system,
                        action: .sealingKeyRotated,
                        recordType: "sealing_key",
                        recordID: next.id,
                        origin: .commandLine,
                        detail: "key \(current.id) to \(next.id), \(count) values sealed again"
                    ),
                    on: db
                )
                return count
            }
        }
        guard case .dataDirectory(let path) = source else {
            return SealingKeyRotated(resealed: resealed, formerKeyID: current.id, newKeyID: next.id, newKeyPath: newPath, replacedDefault: false)
        }
        guard rename(newPath, path) == 0 else {
            throw SealingKeyProblem(
                "Every value is sealed under the new key, but \(newPath) could not be renamed to \(path): rename it before starting the server"
            )
        }
        let directory = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
        return SealingKeyRotated(resealed: resealed, formerKeyID: current.id, newKeyID: next.id, newKeyPath: path, replacedDefault: true)
    }
}

extension AuditAction {
    static let sealingKeyRotated = AuditAction("sealing_key_rotated", title: "Sealing key rotated")
}
