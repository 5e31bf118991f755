import CSMTP
import Crypto
import Foundation
import Logging
import NIOPosix

/// What a phone is sent when something new is in her feed: the program's name and a sentence that
/// says nothing of what it is about. The app fetches the entry itself, with her token.
package struct Push: Sendable, Equatable, Encodable {
    package let notificationId: Int64
    package let token: String
    package let platform: String
    package let title: String
    package let body: String
    /// Her unread count, for the app's badge.
    package let badge: Int

    /// The only text a push ever carries.
    package static func text(programName: String) -> (title: String, body: String) {
        (programName, "You have a new notification in \(programName). Open the app to read it.")
    }
}

/// Hands pushes to the platforms' services (Apple's, Google's), which CarePortal does not reach
/// itself: an operator's push gateway does.
package protocol PushSender: Sendable {
    func send(_ push: Push) async throws
}

/// Writes each push to the log (its id and the device's platform, never the token in full), for a
/// deployment without a push gateway; the app still finds everything in the feed.
package struct LoggingPushSender: PushSender {
    let logger: Logger

    package init(logger: Logger) {
        self.logger = logger
    }

    package func send(_ push: Push) async throws {
        logger.info(
            "A push would go to a phone",
            metadata: [
                "notification.id": "\(push.notificationId)", "platform": "\(push.platform)", "token": "…\(push.token.suffix(6))"
            ]
        )
    }
}

/// POSTs each push as JSON to the operator's gateway (`PUSH_WEBHOOK_URL`, https), which forwards it to
/// Apple's or Google's service. With `PUSH_WEBHOOK_SECRET` set, `X-CarePortal-Signature` carries
/// `sha256=` and the HMAC-SHA256 of the body in hex, so the gateway can tell the request is ours.
/// A status other than 2xx is a failure, retried like the outbox's mail. docs/notifications.md has the format.
package struct WebhookPushSender: PushSender {
    package struct Failed: Error, CustomStringConvertible {
        package let description: String
    }

    let url: String
    let secret: String?

    package init(url: String, secret: String?) {
        self.url = url
        self.secret = secret
    }

    /// Plain http only to a gateway on this machine.
    var allowsPlainHTTP: Bool {
        guard let components = URLComponents(string: url), components.scheme == "http" else { return false }
        return ["127.0.0.1", "localhost", "::1", "[::1]"].contains(components.host ?? "")
    }

    package func body(of push: Push) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(push))
    }

    package func signature(of body: [UInt8]) -> String? {
        secret.map { secret in
            let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(secret.utf8)))
            return "sha256=" + code.map { String(format: "%02x", $0) }.joined()
        }
    }

    package func send(_ push: Push) async throws {
        let body = try body(of: push)
        let headers =
            ["Content-Type: application/json", "User-Agent: CarePortal"]
            + (signature(of: body).map { ["X-CarePortal-Signature: \($0)"] } ?? [])
        let url = self.url, plain = allowsPlainHTTP
        try await NIOThreadPool.singleton.runIfActive {
            var status = 0
            var errorBuffer = [CChar](repeating: 0, count: 512)
            let pointers = headers.map { strdup($0) }
            defer { pointers.forEach { free($0) } }
            let result = pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { headerList in
                body.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { characters in
                        csmtp_http_post(
                            url,
                            plain ? 1 : 0,
                            headerList.baseAddress,
                            headerList.count,
                            characters.baseAddress,
                            characters.count,
                            15,
                            &status,
                            &errorBuffer,
                            errorBuffer.count
                        )
                    }
                }
            }
            guard result == 0 else {
                throw Failed(description: String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            guard (200..<300).contains(status) else { throw Failed(description: "the push gateway answered HTTP \(status)") }
        }
    }
}

/// Hands due pushes to the push sender, on whichever server claims them first; a failed push is
/// tried again later with growing pauses, as the outbox tries mail.
package struct PushDelivery: Sendable {
    package let database: Database
    package let notifications: Notifications
    package let sender: any PushSender
    package let logger: Logger

    package init(database: Database, notifications: Notifications, sender: any PushSender, logger: Logger) {
        self.database = database
        self.notifications = notifications
        self.sender = sender
        self.logger = logger
    }

    /// Sends every push that is due; returns how many entries reached at least one phone.
    @discardableResult
    package func deliverDue(programName: String) async throws -> Int {
        var delivered = 0
        while true {
            let batch = try await database.transaction { db in try await notifications.claimDuePushes(limit: 50, on: db) }
            guard !batch.isEmpty else { return delivered }
            for push in batch {
                let (devices, badge) = try await database.read { db in
                    (try await notifications.devices(of: push.recipient, on: db), try await notifications.unreadCount(of: push.recipient, on: db))
                }
                guard !devices.isEmpty else {
                    try await database.transaction { db in try await notifications.markPushed(push, status: .noDevice, on: db) }
                    continue
                }
                let text = Push.text(programName: programName)
                do {
                    for device in devices {
                        try await sender.send(
                            Push(
                                notificationId: push.notificationID,
                                token: device.token,
                                platform: device.platform.rawValue,
                                title: text.title,
                                body: text.body,
                                badge: badge
                            )
                        )
                    }
                    try await database.transaction { db in try await notifications.markPushed(push, status: .sent, on: db) }
                    delivered += 1
                } catch {
                    try await database.transaction { db in try await notifications.markPushFailed(push, error: "\(error)", on: db) }
                    logger.warning(
                        "A push could not be handed to the gateway; it will be tried again",
                        metadata: [
                            "notification.id": "\(push.notificationID)", "attempt": "\(push.attempts + 1)", "error": "\(error)"
                        ]
                    )
                }
            }
        }
    }
}
