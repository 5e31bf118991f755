import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// `/metrics`: who may read it, and that what it says is true and names no one.
@Suite struct MetricsTests {
    /// The value of the series whose line starts with `series` (name and labels as written), if present.
    static func value(of series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    /// Every `route="…"` label in the text.
    static func routeLabels(in text: String) -> Set<String> {
        var routes: Set<String> = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let start = line.range(of: #"route=""#) else { continue }
            routes.insert(String(line[start.upperBound...].prefix { $0 != "\"" }))
        }
        return routes
    }

    static func scrape(_ portal: TestPortal, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await portal.client.execute(uri: SiteURL.metrics.path, method: .get, headers: headers, body: nil)
    }

    // MARK: who may read it

    @Test func theAllowListReadsAddressesAndRanges() throws {
        let loopback = AddressAllowList.loopback
        #expect(loopback.allows("127.0.0.1") && loopback.allows("::1") && loopback.allows("[::1]"))
        #expect(loopback.allows("::ffff:127.0.0.1"), "an IPv4 client of a server listening on IPv6")
        #expect(!loopback.allows("127.0.0.2") && !loopback.allows("10.0.0.1") && !loopback.allows("2001:db8::1"))
        #expect(!loopback.allows(nil) && !loopback.allows("") && !loopback.allows("localhost") && !loopback.allows("127.0.0.1.evil.example"))

        let ranges = try AddressAllowList("10.0.0.0/8, 192.168.1.0/24 fd00::/8")
        #expect(ranges.allows("10.200.3.4") && ranges.allows("192.168.1.77") && ranges.allows("fd12:3456::1"))
        #expect(!ranges.allows("11.0.0.1") && !ranges.allows("192.168.2.1") && !ranges.allows("fe80::1") && !ranges.allows("127.0.0.1"))
        #expect(try AddressAllowList("0.0.0.0/0").allows("203.0.113.9"))
        #expect(try !AddressAllowList("").allows("127.0.0.1"), "an empty list lets no one in")

        for invalid in ["example.org", "10.0.0.0/33", "::1/129", "10.0.0.1/x", "300.1.1.1", "10.0.0.0/8/8"] {
            #expect(throws: AddressAllowList.Invalid.self, "\(invalid)") { try AddressAllowList(invalid) }
        }
    }

    @Test func onlyAnAllowedAddressReadsAndAForwardedRequestOnlyThroughATrustedProxy() {
        let loopback = AddressAllowList.loopback
        func allows(_ peer: String?, _ headers: HTTPFields = [:], trusted: Bool = false) -> Bool {
            MetricsAccess.allows(peer: peer, headers: headers, trustForwardedFor: trusted, allowList: loopback)
        }
        #expect(allows("127.0.0.1") && allows("::1"))
        #expect(!allows("203.0.113.9") && !allows(nil))
        // A proxy on this machine forwards everyone's requests from 127.0.0.1: said so, the request is refused.
        #expect(!allows("127.0.0.1", [.xForwardedFor: "203.0.113.9"]))
        #expect(!allows("127.0.0.1", [.xForwardedFor: "127.0.0.1"]), "an untrusted header counts for nothing, not even in favour")
        #expect(!allows("127.0.0.1", [HTTPField.Name("Forwarded")!: "for=203.0.113.9"]))
        #expect(!allows("127.0.0.1", [HTTPField.Name("X-Real-IP")!: "203.0.113.9"]))
        // Behind a trusted proxy, the address it appended is the one that counts.
        #expect(!allows("127.0.0.1", [.xForwardedFor: "203.0.113.9"], trusted: true))
        #expect(!allows("127.0.0.1", [.xForwardedFor: "127.0.0.1, 203.0.113.9"], trusted: true), "earlier entries are the client's to invent")
        #expect(allows("10.0.0.5", [.xForwardedFor: "203.0.113.9, 127.0.0.1"], trusted: true))
        #expect(allows("127.0.0.1", trusted: true), "a request the proxy did not forward is judged by its own address")
    }

    @Test func theSettingIsReadFromTheEnvironmentAndRefusedWhenMalformed() throws {
        #expect(try Settings.load(environment: [:]).metricsAllowedFrom == .loopback)
        let settings = try Settings.load(
            environment: ["METRICS_ALLOWED_FROM": "10.1.0.0/16"],
            overrides: ["METRICS_ALLOWED_FROM": "127.0.0.1,10.2.0.0/16"]
        )
        #expect(settings.metricsAllowedFrom.entries == ["127.0.0.1", "10.2.0.0/16"], "the command line wins")
        #expect(throws: Settings.Invalid.self) { try Settings.load(environment: ["METRICS_ALLOWED_FROM": "monitoring.internal"]) }
    }

    @Test(arguments: TestEngines.all)
    func anyOtherAddressIsToldThePageDoesNotExist(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.metricsAllowedFrom = try! AddressAllowList("10.0.0.0/8") }, live: true) { portal in
            let refused = try await Self.scrape(portal)
            let nothing = try await portal.client.execute(uri: "/no-such-page", method: .get, headers: [:], body: nil)
            #expect(refused.status == .notFound)
            #expect(refused.text == nothing.text, "the same page as for an address nothing answers")
            #expect(refused.headers[.contentType] == nothing.headers[.contentType])
            #expect(!refused.text.contains("http_server_requests_total"))
        }
        try await TestPortal.run(engine, live: true) { portal in
            let loopback = try await Self.scrape(portal)
            let forwarded = try await Self.scrape(portal, headers: [.xForwardedFor: "203.0.113.9"])
            #expect(loopback.status == .ok, "loopback, as the live server sees the test's connection")
            #expect(forwarded.status == .notFound, "forwarded by a proxy no one said to trust")
        }
        try await TestPortal.run(engine) { portal in
            let unknown = try await Self.scrape(portal)
            #expect(unknown.status == .notFound, "a request with no address at all")
        }
    }

    // MARK: what it says

    @Test(arguments: TestEngines.all)
    func requestsAreCountedByRoutePatternAndStatusAndNoMemberIsNamed(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, live: true) { portal in
            let (_, member) = try await AppClient.registered(portal, pseudonym: "Marigold")
            let memberID = Int64(try #require(member["id"] as? Int))
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get(SiteURL.member(memberID).path).status == .ok)
            #expect(try await admin.get(SiteURL.member(987_654_321).path).status == .notFound)
            _ = try await portal.client.execute(uri: "/no-such-page/424242", method: .get, headers: [:], body: nil)

            let response = try await Self.scrape(portal)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = response.text
            #expect(text.contains("# TYPE http_server_requests_total counter"))
            #expect(text.contains("# TYPE http_server_request_duration_seconds histogram"))
            let memberSeries = #"http_server_requests_total{route="/members/{id}",method="GET",status="200"}"#
            #expect((Self.value(of: memberSeries, in: text) ?? 0) >= 1, "the member's page, by its pattern")
            #expect((Self.value(of: #"http_server_requests_total{route="/members/{id}",method="GET",status="404"}"#, in: text) ?? 0) >= 1)
            #expect(text.contains(#"http_server_request_duration_seconds_bucket{route="/members/{id}",method="GET",status="200",le="0.015"}"#))
            #expect(text.contains(#"http_server_requests_total{route="NotFound",method="GET",status="404"}"#))

            // Every route label is a pattern: no number that came from an address, here or in any other test's requests.
            let routes = Self.routeLabels(in: text)
            #expect(routes.contains("/members/{id}"))
            for route in routes {
                #expect(!route.split(separator: "/").contains { $0.allSatisfy(\.isNumber) }, "\(route) holds a raw id")
            }
            #expect(!text.contains("Marigold") && !text.contains("/members/\(memberID)") && !text.contains("987654321") && !text.contains("424242"))
            #expect(!text.contains("@example.org"))

            // The database pool's waits, for the engine this portal runs on.
            let reads = Self.value(of: #"careportal_database_pool_wait_seconds_count{engine="\#(engine.rawValue)",access="read"}"#, in: text)
            let writes = Self.value(of: #"careportal_database_pool_wait_seconds_count{engine="\#(engine.rawValue)",access="write"}"#, in: text)
            #expect((reads ?? 0) >= 3 && (writes ?? 0) >= 2, "reads \(String(describing: reads)), writes \(String(describing: writes))")
            #expect(text.contains(#"careportal_database_pool_wait_seconds_bucket{engine="\#(engine.rawValue)",access="read",le="0.001"}"#))
        }
    }

    @Test(arguments: TestEngines.all)
    func theOutboxGaugesAreTheQueueAsItIs(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, live: true) { portal in
            func enqueue(_ subject: String) async throws {
                try await portal.database.transaction { db in
                    try await portal.portal.outbox.enqueue(Mail(recipient: "staff@example.org", subject: subject, body: "Body"), on: db)
                }
            }
            let empty = try await Self.scrape(portal).text
            #expect(Self.value(of: "careportal_outbox_waiting_messages", in: empty) == 0)
            #expect(Self.value(of: "careportal_outbox_oldest_waiting_age_seconds", in: empty) == 0)
            #expect(Self.value(of: "careportal_outbox_not_delivered_messages", in: empty) == 0)

            // One message given up on after every attempt, one delivered, two waiting.
            try await enqueue("Given up")
            let refusing = OutboxTests.sender(RefusesEveryMessage(), in: portal)
            for _ in 0..<Outbox.maximumAttempts {
                _ = try await refusing.deliverDue()
                portal.clock.advance(by: 3601)
            }
            try await enqueue("Delivered")
            let taking = TakesEveryMessage()
            #expect(try await OutboxTests.sender(taking, in: portal).deliverDue() == 1)
            try await enqueue("Waiting since first")
            portal.clock.advance(by: 60)
            try await enqueue("Waiting since later")
            portal.clock.advance(by: 90)

            let text = try await Self.scrape(portal).text
            let waiting = try await portal.database.read { db in
                try await portal.portal.outbox.list(status: .pending, page: PageRequest(number: 1, size: 50), on: db).items
            }
            let oldest = try #require(waiting.map(\.createdAt).min())
            #expect(waiting.count == 2)
            #expect(Self.value(of: "careportal_outbox_waiting_messages", in: text) == Double(waiting.count))
            #expect(Self.value(of: "careportal_outbox_oldest_waiting_age_seconds", in: text) == portal.clock.now.timeIntervalSince(oldest))
            #expect(Self.value(of: "careportal_outbox_oldest_waiting_age_seconds", in: text) == 150)
            #expect(Self.value(of: "careportal_outbox_not_delivered_messages", in: text) == 1)
            #expect(!text.contains("staff@example.org") && !text.contains("Waiting since"), "no address or subject")
        }
    }

    @Test(arguments: TestEngines.all)
    func openChatSocketsAreCountedWhileTheyAreOpen(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, live: true) { portal in
            let port = try #require(portal.client.port)
            let series = #"careportal_websocket_connections{endpoint="\#(SiteURL.apiChatLive.path)"}"#
            #expect(Self.value(of: series, in: try await Self.scrape(portal).text) == 0)
            let (wren, _) = try await AppClient.registered(portal, pseudonym: "Wren")
            let (lark, _) = try await AppClient.registered(portal, pseudonym: "Lark")
            // Lark's socket stays open until the first frame of the room arrives.
            async let larkFrames = ChatLiveTests.frames(port: port, token: lark.token, count: 1)
            try await ChatLiveTests.waitForListeners(portal, 1)
            #expect(Self.value(of: series, in: try await Self.scrape(portal).text) == 1)

            _ = try await ChatTests.post(wren, "Anyone awake?")
            #expect(try await larkFrames.count == 1)
            var open = Self.value(of: series, in: try await Self.scrape(portal).text)
            for _ in 0..<250 where open != 0 {
                try await Task.sleep(for: .milliseconds(20))
                open = Self.value(of: series, in: try await Self.scrape(portal).text)
            }
            #expect(open == 0, "a closed socket is no longer counted")
        }
    }
}

/// A mail server that takes everything.
private struct TakesEveryMessage: MailTransport {
    func deliver(_ message: OutboxMessage, from sender: String) async throws {}
}

/// A mail server that refuses everything.
private struct RefusesEveryMessage: MailTransport {
    func deliver(_ message: OutboxMessage, from sender: String) async throws {
        throw DeliveryFailed(description: "550 refused")
    }
}
