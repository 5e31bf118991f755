import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// A real SMTP server on loopback (aiosmtpd from PyPI) that writes what it receives to a Maildir.
struct LocalSMTPServer: Sendable {
    let port: Int
    let maildir: URL

    var url: String { "smtp://127.0.0.1:\(port)" }

    /// Starts the server, runs `body`, and stops it again.
    static func with<T: Sendable>(_ body: @Sendable (LocalSMTPServer) async throws -> T) async throws -> T {
        let server = LocalSMTPServer(
            port: LoopbackPort.free(),
            maildir: FileManager.default.temporaryDirectory.appendingPathComponent("careportal-maildir-\(UUID().uuidString)")
        )
        for folder in ["tmp", "new", "cur"] {
            try FileManager.default.createDirectory(at: server.maildir.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(server.port)", "-c", "aiosmtpd.handlers.Mailbox", server.maildir.path
        ]
        // The server must not hold the test runner's output open, or the runner never finishes.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            try? FileManager.default.removeItem(at: server.maildir)
        }
        try await server.waitUntilAccepting()
        return try await body(server)
    }

    /// Polls the port (never blocking a thread on a child process) until the server answers.
    private func waitUntilAccepting() async throws {
        for _ in 0..<100 {
            if Self.accepts(port: port) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSetupFailed(reason: "aiosmtpd did not start; install it with pip install aiosmtpd")
    }

    private static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Every message received, as raw text.
    func messages() throws -> [String] {
        let new = maildir.appendingPathComponent("new")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: new.path)) ?? []
        return try files.map { try String(contentsOf: new.appendingPathComponent($0), encoding: .utf8) }
    }
}

@Suite(.serialized) struct OutboxTests {
    static func enqueue(_ mail: Mail, in portal: TestPortal) async throws {
        try await portal.database.transaction { db in try await portal.portal.outbox.enqueue(mail, on: db) }
    }

    /// A sender the test drives by hand, so no background delivery races with it.
    static func sender(_ transport: any MailTransport, in portal: TestPortal) -> OutboxSender {
        let (wakeUps, continuation) = AsyncStream.makeStream(of: Void.self)
        return OutboxSender(
            database: portal.database,
            outbox: portal.portal.outbox,
            transport: transport,
            sender: "CarePortal <careportal@localhost>",
            logger: TestDatabase.logger,
            wakeUps: wakeUps,
            wakeUpContinuation: continuation
        )
    }

    @Test(arguments: TestEngines.all)
    func mailIsDeliveredToTheSMTPServer(engine: Database.Engine) async throws {
        try await LocalSMTPServer.with { server in
            try await TestPortal.run(engine, mailTransport: SMTPTransport(url: server.url)) { portal in
                try await Self.enqueue(
                    Mail(recipient: "dr.lee@clinic.example", subject: "Ihre Registrierung – bestätigt", body: "Hello José,\nyou are approved."),
                    in: portal
                )
                #expect(portal.app.outboxSender != nil)
                // The running sender is woken by the new message; no test code sends it.
                // Waits up to 30 s: the whole suite runs in parallel, and a busy machine delays the sender.
                var messages: [String] = []
                for _ in 0..<600 where messages.isEmpty {
                    try await Task.sleep(for: .milliseconds(50))
                    messages = try server.messages()
                }
                #expect(messages.count == 1)
                let message = try #require(messages.first)
                #expect(message.contains("To: dr.lee@clinic.example"))
                #expect(message.contains("Subject: =?UTF-8?B?"))
                var sent = 0
                for _ in 0..<200 where sent == 0 {
                    sent = try await portal.database.read { db in
                        try await portal.portal.outbox.list(status: .sent, page: PageRequest(number: 1), on: db).totalCount
                    }
                    if sent == 0 { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(sent == 1)
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func aRefusedDeliveryIsRetriedLaterAndNothingIsLost(engine: Database.Engine) async throws {
        try await LocalSMTPServer.with { server in
            // Nothing listens on the port of the first transport: the connection is refused.
            let deadPort = LoopbackPort.free()
            try await TestPortal.run(engine) { portal in
                try await Self.enqueue(
                    Mail(recipient: "admin@example.org", subject: "Waiting for approval", body: "A physician registered."),
                    in: portal
                )
                let failing = Self.sender(SMTPTransport(url: "smtp://127.0.0.1:\(deadPort)"), in: portal)
                #expect(try await failing.deliverDue() == 0)
                let afterFailure = try await portal.database.read { db in try await portal.portal.outbox.find(id: 1, on: db) }
                let message = try #require(afterFailure)
                #expect(message.status == .pending)
                #expect(message.attempts == 1)
                #expect(message.lastError != nil)
                #expect(message.nextAttemptAt > portal.clock.now, "the next attempt waits")

                let working = Self.sender(SMTPTransport(url: server.url), in: portal)
                #expect(try await working.deliverDue() == 0, "not before the pause is over")
                portal.clock.advance(by: 31)
                #expect(try await working.deliverDue() == 1)
                #expect(try server.messages().count == 1)
                let delivered = try await portal.database.read { db in try await portal.portal.outbox.find(id: 1, on: db) }
                #expect(delivered?.status == .sent)
                #expect(delivered?.attempts == 2)
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func afterRepeatedFailuresAMessageWaitsForAnAdministratorToRetryIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await Self.enqueue(Mail(recipient: "a@example.org", subject: "Hello", body: "Body"), in: portal)
            let sender = Self.sender(SMTPTransport(url: "smtp://127.0.0.1:9"), in: portal)
            for _ in 0..<Outbox.maximumAttempts {
                _ = try await sender.deliverDue()
                portal.clock.advance(by: 3601)
            }
            let failed = try await portal.database.read { db in try await portal.portal.outbox.find(id: 1, on: db) }
            #expect(failed?.status == .failed)
            var (admin, _) = try await portal.signedIn(.administrator)
            let page = try await admin.get("/outbox/1")
            #expect(page.text.contains("Not delivered"))
            #expect(page.text.contains("Send again"))
            try await admin.post("/outbox/1/retry")
            let retried = try await portal.database.read { db in try await portal.portal.outbox.find(id: 1, on: db) }
            #expect(retried?.status == .pending)
        }
    }

    @Test(arguments: TestEngines.all)
    func withoutAMailServerAdministratorsReadMailInTheOutbox(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            #expect(portal.app.outboxSender == nil)
            try await Self.enqueue(Mail(recipient: "a@example.org", subject: "Read me here", body: "The body <b>stays text</b>"), in: portal)
            var (admin, _) = try await portal.signedIn(.administrator)
            let list = try await admin.get("/outbox")
            #expect(list.text.contains("No mail server is set up"))
            #expect(list.text.contains("Read me here"))
            let message = try await admin.get("/outbox/1")
            #expect(message.text.contains("The body &lt;b&gt;stays text&lt;/b&gt;"))
        }
    }
}
