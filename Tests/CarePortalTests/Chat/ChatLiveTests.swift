import Foundation
import HTTPTypes
import HummingbirdWSClient
import NIOEmbedded
import Logging
import Synchronization
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The chat's WebSocket, on a live server.
@Suite struct ChatLiveTests {
    struct Refused: Error {}

    /// The text frames a socket opened with `token` receives, until `count` arrived or `within` passed.
    /// Waiting ends as soon as `count` frames arrived, so the generous default costs nothing when all is well.
    static func frames(
        port: Int,
        token: String?,
        headers: HTTPFields = [:],
        count: Int,
        within: Duration = .seconds(30),
        into frames: Frames = Frames()
    ) async throws -> [String] {
        let configuration = WebSocketClientConfiguration(additionalHeaders: Self.headers(token: token, headers))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await WebSocketClient.connect(
                    url: "ws://127.0.0.1:\(port)\(SiteURL.apiChatLive.path)",
                    configuration: configuration,
                    logger: Logger(label: "chat-socket-test")
                ) { inbound, outbound, _ in
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        guard case .text(let text) = message else { continue }
                        if frames.append(text) >= count {
                            try await outbound.close(.normalClosure, reason: nil)
                            return
                        }
                    }
                }
            }
            group.addTask { try await Task.sleep(for: within) }
            try await group.next()
            group.cancelAll()
        }
        return frames.all
    }

    /// `headers`, with the bearer `token` when there is one.
    static func headers(token: String?, _ headers: HTTPFields) -> HTTPFields {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        return headers
    }

    /// True when a socket opened with `token` is accepted (it is closed again at once), false when refused.
    static func accepted(port: Int, token: String?, headers: HTTPFields = [:]) async -> Bool {
        let configuration = WebSocketClientConfiguration(additionalHeaders: Self.headers(token: token, headers))
        do {
            try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)\(SiteURL.apiChatLive.path)",
                configuration: configuration,
                logger: Logger(label: "chat-socket-test")
            ) { _, outbound, _ in
                try await outbound.close(.normalClosure, reason: nil)
            }
            return true
        } catch {
            return false
        }
    }

    final class Frames: Sendable {
        private let frames = Mutex<[String]>([])
        var all: [String] { frames.withLock { $0 } }
        func append(_ frame: String) -> Int {
            frames.withLock {
                $0.append(frame); return $0.count
            }
        }
    }

    /// Waits until this server holds `count` chat sockets.
    static func waitForListeners(_ portal: TestPortal, _ count: Int) async throws {
        let listeners = try #require(portal.app.feature(ChatFeature.self)).chat.listeners
        for _ in 0..<250 where listeners.count < count { try await Task.sleep(for: .milliseconds(20)) }
        #expect(listeners.count == count)
    }

    static func json(_ frame: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(frame.utf8))) as? [String: Any] ?? [:]
    }

    @Test(arguments: TestEngines.all)
    func aMessageAndItsRemovalReachEverySocketInTheRoomAndNoOther(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, live: true) { portal in
            let port = try #require(portal.client.port)
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            let (lark, _) = try await AppClient.registered(portal, pseudonym: "Lark")
            let later = CalendarDate(portal.clock.now).adding(months: 7).iso
            let (heron, _) = try await AppClient.registered(portal, pseudonym: "Heron", ["due_date": later])
            var (admin, _) = try await portal.signedIn(.administrator)
            let larkHeard = Frames()
            async let larkFrames = Self.frames(port: port, token: lark.token, count: 3, into: larkHeard)
            async let heronFrames = Self.frames(port: port, token: heron.token, count: 1, within: .seconds(5))
            try await Self.waitForListeners(portal, 2)

            let posted = try await ChatTests.post(wren, "Kicking all night")
            let id = Int64(try #require(posted.object["id"] as? Int))
            // The message reaches the socket before it is removed: a removal first would be relayed as removed.
            for _ in 0..<500 where !larkHeard.all.contains(where: { Self.json($0)["type"] as? String == "message" }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await admin.post(SiteURL.chatMessageRemove(id).path, form: [("reason", "Testing removal")]).status == .seeOther)

            let frames = try await larkFrames.map(Self.json)
            #expect(frames.count == 3)
            // The room's first message of the quiet period also tells the rest of the cohort's feeds, with a
            // nudge that says no more; it travels apart from the room's frames, so it may come before or after them.
            #expect(frames.filter { $0["type"] as? String == "notifications" }.map { $0.keys.sorted() } == [["type"]])
            let room = frames.filter { $0["type"] as? String != "notifications" }
            #expect(room.first?["type"] as? String == "message")
            #expect((room.first?["message"] as? [String: Any])?["body_text"] as? String == "Kicking all night")
            #expect(room.last?["type"] as? String == "removed" && room.last?["message_id"] as? Int == Int(id))
            #expect(try await heronFrames.isEmpty, "another cohort's socket hears nothing")
        }
    }

    @Test(arguments: TestEngines.all)
    func theSocketRefusesAMissingAnExpiredOrADisabledMembersToken(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, live: true) { portal in
            let port = try #require(portal.client.port)
            let (wren, member) = try await AppClient.registered(portal)
            #expect(await Self.accepted(port: port, token: wren.token), "her token in force opens the socket")
            #expect(await !Self.accepted(port: port, token: nil))
            #expect(await !Self.accepted(port: port, token: "not-a-token"))
            #expect(try await wren.get(SiteURL.apiChatLive.path).status == .upgradeRequired, "a plain request is told to upgrade")

            var (admin, _) = try await portal.signedIn(.administrator)
            let memberID = try #require(member["id"] as? Int)
            _ = try await admin.get(SiteURL.member(Int64(memberID)).path)
            #expect(try await admin.post(SiteURL.memberDisable(Int64(memberID)).path).status == .seeOther)
            #expect(await !Self.accepted(port: port, token: wren.token), "a disabled member's token opens nothing")

            let (lark, _) = try await AppClient.registered(portal)
            portal.clock.advance(by: 8 * 86_400)
            #expect(await !Self.accepted(port: port, token: lark.token), "an expired token opens nothing")
        }
    }

    /// Whether the portal would open the chat socket for an upgrade request with `headers`.
    static func opens(_ portal: TestPortal, _ headers: HTTPFields) async -> Bool {
        let request = HTTPRequest(method: .get, scheme: nil, authority: "127.0.0.1", path: SiteURL.apiChatLive.path, headerFields: headers)
        if case .upgrade = await portal.portal.webSockets.upgrade(request, on: EmbeddedChannel(), portal: portal.portal) { return true }
        return false
    }

    /// The web app's page opens the socket with the browser's cookie, as the page's script does: only from
    /// the portal's own origin, so another site's page cannot listen in with her cookie, and never once
    /// she has signed out.
    @Test(arguments: TestEngines.all)
    func theWebAppsCookieOpensTheSocketOnlyFromThePortalsOwnPages(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, _, _) = try await MemberAppPagesTests.signedInMember(portal, pseudonym: "Lark")
            let cookie = try #require(browser.cookieHeader)
            let origin = portal.portal.settings.origin
            #expect(await Self.opens(portal, [.cookie: cookie, .origin: origin]))
            #expect(await !Self.opens(portal, [.cookie: cookie]), "no Origin, no socket")
            #expect(await !Self.opens(portal, [.cookie: cookie, .origin: "https://elsewhere.example"]))
            #expect(await !Self.opens(portal, [.cookie: cookie, .origin: "\(origin), https://elsewhere.example"]))
            var staff = try await portal.signedIn(.administrator).0
            _ = try await staff.get(SiteURL.home.path)
            #expect(
                await !Self.opens(portal, [.cookie: try #require(staff.cookieHeader), .origin: origin]),
                "a staff session opens no member's socket"
            )
            #expect(try await browser.post(AppAccountKind.member.signOutPagePath).status == .seeOther)
            #expect(await !Self.opens(portal, [.cookie: cookie, .origin: origin]), "signed out, the old cookie opens nothing")
        }
    }

    /// The socket a page opens with her cookie hears her room like the app's. (This test's WebSocket client
    /// always sends `Origin: ws://127.0.0.1`, so the portal is served at that origin here; a client from
    /// anywhere else is refused.)
    @Test(arguments: TestEngines.all)
    func aSocketOpenedWithTheWebAppsCookieHearsHerRoom(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.baseURL = "ws://127.0.0.1" }, live: true) { portal in
            let port = try #require(portal.client.port)
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            // The cookie the web app's sign-in gives her: her kind and a token of her own.
            let (lark, _) = try await AppClient.registered(portal, pseudonym: "Lark")
            let session = portal.portal.appPageCookies.session(kind: .member, token: try #require(lark.token))
            let cookie: HTTPFields = [.cookie: "\(session.name)=\(session.value)"]
            async let heard = Self.frames(port: port, token: nil, headers: cookie, count: 1)
            try await Self.waitForListeners(portal, 1)
            _ = try await ChatTests.post(wren, "Hello from the app")
            let frame = try await heard.first.map(Self.json)
            #expect((frame?["message"] as? [String: Any])?["body_text"] as? String == "Hello from the app")
        }
    }
}

/// Two CarePortal servers on one PostgreSQL database.
@Suite struct ChatAcrossServersTests {
    @Test(.enabled(if: TestEngines.postgresURL != nil, "needs PostgreSQL"))
    func aMessagePostedThroughOneServerReachesSocketsHeldByAnother() async throws {
        try await TestPortal.run(.postgres, live: true) { first in
            var settings = first.portal.settings
            settings.port = 0
            let clock = first.clock
            let second = try await buildApplication(
                settings: settings,
                dependencies: Dependencies(now: { clock.now }, passwordHashCost: 4),
                logger: Logger(label: "second-server")
            )
            try await second.application.test(.live) { secondClient in
                let port = try #require(secondClient.port)
                let (wren, _) = try await AppClient.registered(first, pseudonym: "Wren")
                let (lark, _) = try await AppClient.registered(first, pseudonym: "Lark")
                async let heard = ChatLiveTests.frames(port: port, token: lark.token, count: 1)
                let listeners = try #require(second.feature(ChatFeature.self)).chat.listeners
                for _ in 0..<250 where listeners.count < 1 { try await Task.sleep(for: .milliseconds(20)) }
                #expect(listeners.count == 1, "the socket is held by the second server")
                // Registering the members above gave the second server time to start listening.
                #expect(try await ChatTests.post(wren, "Posted through the first server").status == .created)
                let frames = try await heard.map(ChatLiveTests.json)
                #expect((frames.first?["message"] as? [String: Any])?["body_text"] as? String == "Posted through the first server")
            }
        }
    }
}
