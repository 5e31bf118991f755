import Foundation
import HTTPTypes
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Memory-care accounts made as the apps make them: registered through the API, confirmed with the
/// emailed link, signed in.
enum CareFixtures {
    static let password = "Lavender fields 1952"
    static let pin = "2468"

    /// The token of the newest confirmation link emailed to `email`.
    static func confirmationToken(_ portal: TestPortal, to email: String) async throws -> String {
        let mail = try #require(try await portal.outboxMessages().last { $0.recipient == email.lowercased() || $0.recipient == email })
        let line = try #require(
            mail.bodyText.split(separator: "\n").first { $0.contains("\(CareURL.confirm.path)?token=") },
            "no link in \(mail.bodyText)"
        )
        return String(line.split(separator: "=").last ?? "")
    }

    static func account(_ portal: TestPortal, _ kind: CareAccountKind, email: String, name: String) async throws -> (AppClient, Int64) {
        let registered = try await AppClient(portal: portal).send(
            .post,
            SiteURL.care(.apiRegistrations(kind)).path,
            json: [
                "email": email, "password": password, "name": name
            ]
        )
        #expect(registered.status == .accepted, "\(registered.text)")
        let token = try await confirmationToken(portal, to: email)
        let confirmed = try await AppClient(portal: portal).send(.post, SiteURL.care(.apiConfirmations).path, json: ["token": token])
        #expect(confirmed.status == .noContent, "\(confirmed.text)")
        let session = try await AppClient(portal: portal).send(.post, kind.appAccount.sessionsPath, json: ["email": email, "password": password])
        #expect(session.status == .created, "\(session.text)")
        let account = try #require(session.object["account"] as? [String: Any])
        return (AppClient(portal: portal, token: session.object["token"] as? String), Int64(try #require(account["id"] as? Int)))
    }

    static func receiver(_ portal: TestPortal, email: String = "eleanor@example.org", name: String = "Eleanor") async throws -> (AppClient, Int64) {
        try await account(portal, .careReceiver, email: email, name: name)
    }

    static func caregiver(_ portal: TestPortal, email: String = "ruth@example.org", name: String = "Ruth") async throws -> (AppClient, Int64) {
        try await account(portal, .caregiver, email: email, name: name)
    }

    /// Her PIN made and typed: her secured memories are open on this token for five minutes.
    static func unlock(_ receiver: AppClient) async throws {
        let made = try await receiver.send(.put, SiteURL.care(.apiPIN).path, json: ["password": password, "pin": pin])
        #expect(made.status == .noContent, "\(made.text)")
        let opened = try await receiver.send(.post, SiteURL.care(.apiUnlock).path, json: ["pin": pin])
        #expect(opened.status == .ok, "\(opened.text)")
    }

    /// She invites, he enters the code: the link's id.
    static func link(_ receiver: AppClient, _ caregiver: AppClient, scopes: [String], categories: [String] = []) async throws -> Int64 {
        let invitation = try await receiver.send(.post, SiteURL.care(.apiInvitations).path, json: ["scopes": scopes, "categories": categories])
        #expect(invitation.status == .created, "\(invitation.text)")
        let code = try #require(invitation.object["code"] as? String)
        let accepted = try await caregiver.send(.post, SiteURL.care(.apiCaregiverLinks).path, json: ["code": code])
        #expect(accepted.status == .created, "\(accepted.text)")
        return Int64(try #require(accepted.object["id"] as? Int))
    }

    /// A memory made through the API; its JSON.
    @discardableResult
    static func memory(_ receiver: AppClient, _ body: [String: Any]) async throws -> [String: Any] {
        let made = try await receiver.send(.post, SiteURL.care(.apiMemories).path, json: body)
        #expect(made.status == .created, "\(made.text)")
        return made.object
    }

    static func id(_ object: [String: Any]) throws -> Int64 { Int64(try #require(object["id"] as? Int)) }
}
