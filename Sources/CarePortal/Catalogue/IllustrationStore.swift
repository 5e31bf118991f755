import Foundation
import PortalPlatform

/// Exercise illustrations: the platform's uploads of the use "illustrations" (`Portal.uploads`).
enum IllustrationStore {
    static let folder = "illustrations"

    /// Names the server makes, so no stored value can point elsewhere.
    static func isStoredName(_ name: String) -> Bool {
        UploadStore.isStoredName(name)
    }
}
