import Foundation
import Hummingbird
import PortalPlatform

/// Serves the member API's OpenAPI 3.1 document, `api/openapi.json` in the repository.
/// It is read once at start-up; a missing or malformed file stops the server at once.
struct OpenAPIController {
    let portal: Portal

    struct DocumentUnreadable: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) is missing or is not a JSON object" }
    }

    func addRoutes(to routes: inout PortalRoutes) async throws {
        let path = "\(portal.settings.resourcesDirectory)/api/openapi.json"
        guard let data = FileManager.default.contents(atPath: path),
            (try? JSONSerialization.jsonObject(with: data)) is [String: Any]
        else { throw DocumentUnreadable(path: path) }
        let document = ByteBuffer(bytes: data)
        routes.get(SiteURL.apiOpenAPI.pattern, access: .everyone) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: document))
        }
    }
}
