import Foundation
import Logging

/// Everything CarePortal reads from its surroundings, read once at start-up.
///
/// Each value comes from the command line if given there, else from the environment variable named
/// beside it, else from the development default.
public struct Settings: Sendable, Equatable {
    /// `HOST`: the address to listen on.
    public var host = "127.0.0.1"
    /// `PORT`
    public var port = 8080
    /// `DATABASE_URL`: `sqlite://PATH`, `postgres://USER:PASSWORD@HOST:PORT/DATABASE`, or `postgres://USER@/DATABASE?host=SOCKET_FOLDER` for a PostgreSQL server's Unix socket.
    public var databaseURL = "sqlite://./data/careportal.sqlite"
    /// `BASE_URL`: the address people use to reach the portal; links in emails and the CSRF origin check use it.
    public var baseURL = "http://127.0.0.1:8080"
    /// `DATA_DIR`: uploads and other files live here.
    public var dataDirectory = "./data"
    /// `SEALING_KEY`: the sealing key itself, 32 bytes in base64 (`SealingKeySource`).
    public var sealingKey: String?
    /// `SEALING_KEY_FILE`: a file holding the sealing key; unset on SQLite uses `DATA_DIR/sealing.key`.
    public var sealingKeyFile: String?
    /// `RESOURCES_DIR`: where `templates/` and `static/` are.
    public var resourcesDirectory = "."
    /// `SECURE_COOKIES`: true sends cookies only over https (and names the session cookie `__Host-…`).
    /// Defaults to true when `BASE_URL` is https.
    public var secureCookies: Bool?
    /// `SESSION_IDLE_MINUTES`: a signed-in session ends after this long without a request.
    public var sessionIdleTimeout: Duration = .seconds(30 * 60)
    /// `SESSION_LIFETIME_HOURS`: a session ends this long after sign-in, whatever happens.
    public var sessionLifetime: Duration = .seconds(12 * 3600)
    /// `SMTP_URL`: `smtp://user:password@host:port` (or `smtps://`); unset keeps mail in the outbox.
    public var smtpURL: String?
    /// `PUSH_WEBHOOK_URL`: the operator's push gateway (https); unset writes pushes to the log.
    public var pushWebhookURL: String?
    /// `PUSH_WEBHOOK_SECRET`: signs each push request so the gateway can tell it is ours.
    public var pushWebhookSecret: String?
    /// `MAIL_FROM`: the sender address of every email.
    public var mailFrom = "CarePortal <careportal@localhost>"
    /// `TRUST_FORWARDED_FOR`: take the client address from `X-Forwarded-For` (only behind a proxy you run).
    public var trustForwardedFor = false
    /// `LOG_LEVEL`: trace, debug, info, notice, warning, error or critical.
    public var logLevel: Logger.Level = .info
    /// `PROGRAM_NAME`: shown in the header of every page.
    public var programName = "CarePortal"
    /// `METRICS_ALLOWED_FROM`: the addresses and ranges that may read `/metrics`; everyone else is told it does not exist.
    public var metricsAllowedFrom = AddressAllowList.loopback

    public init() {}

    public var cookiesAreSecure: Bool { secureCookies ?? baseURL.lowercased().hasPrefix("https://") }
    public var servedOverHTTPS: Bool { baseURL.lowercased().hasPrefix("https://") }

    /// `scheme://host[:port]` of `baseURL`, as browsers send it in `Origin`.
    public var origin: String {
        guard let components = URLComponents(string: baseURL), let scheme = components.scheme, let host = components.host else {
            return baseURL
        }
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = components.port, port != defaultPort {
            return "\(scheme)://\(host):\(port)"
        }
        return "\(scheme)://\(host)"
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// Reads the environment; `overrides` (from the command line) win over it.
    public static func load(environment: [String: String], overrides: [String: String] = [:]) throws -> Settings {
        let values = environment.merging(overrides) { _, override in override }
        var settings = Settings()
        if let value = values["HOST"] { settings.host = value }
        if let value = values["PORT"] { settings.port = try integer(value, named: "PORT", in: 1...65535) }
        if let value = values["DATABASE_URL"] { settings.databaseURL = value }
        if let value = values["BASE_URL"] {
            guard let url = URLComponents(string: value), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw Invalid(description: "BASE_URL must be an http:// or https:// address, like https://portal.example.org")
            }
            settings.baseURL = value.hasSuffix("/") ? String(value.dropLast()) : value
        } else if values["PORT"] != nil || values["HOST"] != nil {
            let host = settings.host == "0.0.0.0" || settings.host == "::" ? "127.0.0.1" : settings.host
            settings.baseURL = "http://\(host):\(settings.port)"
        }
        if let value = values["DATA_DIR"] { settings.dataDirectory = value }
        if let value = values["RESOURCES_DIR"] { settings.resourcesDirectory = value }
        if let value = values["SEALING_KEY"], !value.isEmpty { settings.sealingKey = value }
        if let value = values["SEALING_KEY_FILE"], !value.isEmpty { settings.sealingKeyFile = value }
        if let value = values["SECURE_COOKIES"] { settings.secureCookies = try boolean(value, named: "SECURE_COOKIES") }
        if let value = values["SESSION_IDLE_MINUTES"] {
            settings.sessionIdleTimeout = .seconds(try integer(value, named: "SESSION_IDLE_MINUTES", in: 1...1440) * 60)
        }
        if let value = values["SESSION_LIFETIME_HOURS"] {
            settings.sessionLifetime = .seconds(try integer(value, named: "SESSION_LIFETIME_HOURS", in: 1...168) * 3600)
        }
        if let value = values["SMTP_URL"], !value.isEmpty {
            guard value.hasPrefix("smtp://") || value.hasPrefix("smtps://") else {
                throw Invalid(description: "SMTP_URL must start with smtp:// or smtps://")
            }
            settings.smtpURL = value
        }
        if let value = values["PUSH_WEBHOOK_URL"], !value.isEmpty {
            let url = URLComponents(string: value)
            let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(url?.host ?? "")
            guard url?.host != nil, url?.scheme == "https" || (url?.scheme == "http" && loopback) else {
                throw Invalid(description: "PUSH_WEBHOOK_URL must be an https:// address (http:// only on this machine)")
            }
            settings.pushWebhookURL = value
        }
        if let value = values["PUSH_WEBHOOK_SECRET"], !value.isEmpty { settings.pushWebhookSecret = value }
        if let value = values["MAIL_FROM"] { settings.mailFrom = value }
        if let value = values["TRUST_FORWARDED_FOR"] { settings.trustForwardedFor = try boolean(value, named: "TRUST_FORWARDED_FOR") }
        if let value = values["LOG_LEVEL"] {
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw Invalid(description: "LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical")
            }
            settings.logLevel = level
        }
        if let value = values["PROGRAM_NAME"], !value.isEmpty { settings.programName = value }
        if let value = values["METRICS_ALLOWED_FROM"] {
            do { settings.metricsAllowedFrom = try AddressAllowList(value) } catch let error as AddressAllowList.Invalid {
                throw Invalid(description: "METRICS_ALLOWED_FROM: \(error.description)")
            }
        }
        return settings
    }

    private static func integer(_ value: String, named name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw Invalid(description: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    private static func boolean(_ value: String, named name: String) throws -> Bool {
        switch value.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw Invalid(description: "\(name) must be true or false")
        }
    }
}
