import CSMTP
import Foundation
import NIOPosix

/// How a message leaves the outbox.
public protocol MailTransport: Sendable {
    func deliver(_ message: OutboxMessage, from sender: String) async throws
}

/// A delivery the mail server refused or could not take.
public struct DeliveryFailed: Error, CustomStringConvertible {
    public let description: String

    package init(description: String) {
        self.description = description
    }
}

/// Sends mail over SMTP with libcurl.
public struct SMTPTransport: MailTransport {
    package let url: String

    public init(url: String) {
        self.url = url
    }

    public func deliver(_ message: OutboxMessage, from sender: String) async throws {
        guard message.body != nil else {
            throw DeliveryFailed(description: "the message's text does not open with this server's sealing key")
        }
        guard var components = URLComponents(string: url) else {
            throw DeliveryFailed(description: "SMTP_URL is not a valid address")
        }
        let username = components.user?.removingPercentEncoding
        let password = components.password?.removingPercentEncoding
        components.user = nil
        components.password = nil
        let serverURL = components.string ?? url
        let envelopeFrom = "<\(Self.address(in: sender))>"
        let envelopeTo = "<\(Self.address(in: message.recipient))>"
        let text = Self.rfc5322(message, from: sender, date: Date())
        let requireTLS = components.queryItems?.contains { $0.name == "starttls" && $0.value == "true" } ?? false

        try await NIOThreadPool.singleton.runIfActive {
            var responseCode = 0
            var errorBuffer = [CChar](repeating: 0, count: 512)
            let result = text.withCString { messagePointer in
                envelopeTo.withCString { recipientPointer in
                    var recipients: [UnsafePointer<CChar>?] = [recipientPointer]
                    return recipients.withUnsafeMutableBufferPointer { recipientList in
                        csmtp_send(
                            serverURL,
                            username,
                            password,
                            requireTLS ? 1 : 0,
                            envelopeFrom,
                            recipientList.baseAddress,
                            1,
                            messagePointer,
                            strlen(messagePointer),
                            30,
                            &responseCode,
                            &errorBuffer,
                            errorBuffer.count
                        )
                    }
                }
            }
            guard result == 0 else {
                let reason = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw DeliveryFailed(description: responseCode > 0 ? "\(reason) (SMTP \(responseCode))" : reason)
            }
        }
    }

    /// `Name <a@b>` → `a@b`.
    package static func address(in mailbox: String) -> String {
        if let open = mailbox.lastIndex(of: "<"), let close = mailbox.lastIndex(of: ">"), open < close {
            return String(mailbox[mailbox.index(after: open)..<close]).trimmed
        }
        return mailbox.trimmed
    }

    /// The message as it travels: headers that cannot be split by a stray newline, and a base64 UTF-8 body.
    package static func rfc5322(_ message: OutboxMessage, from sender: String, date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let domain = address(in: sender).split(separator: "@").last.map(String.init) ?? "localhost"
        let body = Data((message.body ?? "").replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n").utf8)
            .base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        let headers = [
            "From: \(headerValue(sender))",
            "To: \(headerValue(message.recipient))",
            "Subject: \(encodedWord(headerValue(message.subject)))",
            "Date: \(formatter.string(from: date))",
            "Message-ID: <outbox-\(message.id)-\(message.createdAt.millisecondsSince1970)@\(domain)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64"
        ]
        return headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n"
    }

    private static func headerValue(_ value: String) -> String {
        value.components(separatedBy: .newlines).joined(separator: " ")
    }

    /// RFC 2047 for subjects that are not plain ASCII.
    private static func encodedWord(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { !$0.isASCII }) else { return value }
        return "=?UTF-8?B?\(Data(value.utf8).base64EncodedString())?="
    }
}
