import Foundation
import PortalPlatform

/// Exercise illustrations: the platform's uploads under `DATA_DIR/illustrations`.
struct IllustrationStore: Sendable {
    let uploads: UploadStore

    init(dataDirectory: String, randomBytes: @escaping @Sendable (Int) -> [UInt8]) {
        uploads = UploadStore(dataDirectory: dataDirectory, folder: "illustrations", randomBytes: randomBytes)
    }

    /// Writes the picture durably (synced before it is named) and returns its stored name.
    func save(_ bytes: [UInt8], type: IllustrationType) throws -> CatalogueExercise.Illustration {
        try uploads.save(bytes, type: type)
    }

    /// The stored picture's bytes, or nil when the file is gone or the name is not one the server makes.
    func read(_ illustration: CatalogueExercise.Illustration) -> Data? {
        uploads.read(illustration)
    }

    func remove(_ illustration: CatalogueExercise.Illustration) {
        uploads.remove(illustration)
    }

    /// Names the server makes, so no stored value can point elsewhere.
    static func isStoredName(_ name: String) -> Bool {
        UploadStore.isStoredName(name)
    }
}
