import Foundation
import HTTPTypes
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Asking, replying and flagging the way the member app and the portal do.
enum DeskSteps {
    /// Asks a question through the member API and returns the new thread's id.
    @discardableResult
    static func ask(
        _ app: AppClient,
        title: String,
        body: String = "Is it safe to keep taking methadone while pregnant?",
        anonymous: Bool = false
    ) async throws -> Int64 {
        let response = try await app.send(.post, SiteURL.apiThreads.path, json: ["title": title, "body": body, "anonymous": anonymous])
        #expect(response.status == .created, "asking failed: \(response.text)")
        return Int64(try #require(response.object["id"] as? Int))
    }

    /// Posts a reply from the thread page and returns the new reply's id.
    @discardableResult
    static func reply(_ visitor: inout Visitor, thread: Int64, body: String) async throws -> Int64 {
        try await visitor.get(SiteURL.deskThread(thread).path)
        let posted = try await visitor.post(SiteURL.deskThreadReplies(thread).path, form: [("body", body), ("intent", "post")])
        #expect(posted.status == .seeOther, "replying failed: \(posted.text.prefix(300))")
        let location = try #require(posted.location)
        return try #require(Int64(location.split(separator: "-").last.map(String.init) ?? ""))
    }

    static func flag(_ app: AppClient, _ path: String, reason: String = "This is not kind") async throws -> AppResponse {
        try await app.send(.post, path, json: ["reason": reason])
    }

    /// The thread as the member app reads it.
    static func thread(_ app: AppClient, _ id: Int64) async throws -> [String: Any] {
        let response = try await app.get(SiteURL.apiThread(id).path)
        #expect(response.status == .ok)
        return response.object
    }

    static func notifications(_ app: AppClient) async throws -> [[String: Any]] {
        try await app.get(SiteURL.apiNotifications.path).object["notifications"] as? [[String: Any]] ?? []
    }
}
