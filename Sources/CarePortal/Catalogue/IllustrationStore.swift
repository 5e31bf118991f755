import Foundation

#if canImport(Glibc)
import Glibc
import PortalPlatform
#endif

/// Exercise illustrations on disk, under `DATA_DIR/illustrations`, each under a random name the server
/// chose; the uploader's file name is never used.
struct IllustrationStore: Sendable {
    let directory: String
    let randomBytes: @Sendable (Int) -> [UInt8]

    init(dataDirectory: String, randomBytes: @escaping @Sendable (Int) -> [UInt8]) {
        directory = "\(dataDirectory)/illustrations"
        self.randomBytes = randomBytes
    }

    struct WriteFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes the picture durably (synced before it is named) and returns its stored name.
    func save(_ bytes: [UInt8], type: IllustrationType) throws -> CatalogueExercise.Illustration {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let name = randomBytes(16).map { String(format: "%02x", $0) }.joined() + "." + type.fileExtension
        let temporary = "\(directory)/.\(name).partial"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o640)
        guard descriptor >= 0 else { throw WriteFailed(description: "could not create \(temporary): errno \(errno)") }
        var written = 0
        let ok = bytes.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result <= 0 { return false }
                written += result
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard ok, rename(temporary, "\(directory)/\(name)") == 0 else {
            unlink(temporary)
            throw WriteFailed(description: "could not write the illustration \(name)")
        }
        let folder = open(directory, O_RDONLY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        return CatalogueExercise.Illustration(fileName: name, type: type)
    }

    /// The stored picture's bytes, or nil when the file is gone or the name is not one the server makes.
    func read(_ illustration: CatalogueExercise.Illustration) -> Data? {
        guard Self.isStoredName(illustration.fileName) else { return nil }
        return FileManager.default.contents(atPath: "\(directory)/\(illustration.fileName)")
    }

    func remove(_ illustration: CatalogueExercise.Illustration) {
        guard Self.isStoredName(illustration.fileName) else { return }
        try? FileManager.default.removeItem(atPath: "\(directory)/\(illustration.fileName)")
    }

    /// Names the server makes: 32 hexadecimal digits and a known extension, so no stored value can point elsewhere.
    static func isStoredName(_ name: String) -> Bool {
        let parts = name.split(separator: ".")
        return parts.count == 2 && parts[0].count == 32 && parts[0].allSatisfy(\.isHexDigit)
            && IllustrationType.allCases.contains { $0.fileExtension == parts[1] }
    }
}
