import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import CarePortal
@testable import PortalPlatform

/// The member app: sends JSON with its bearer token and reads JSON back.
struct AppClient {
    let portal: TestPortal
    var token: String?

    init(portal: TestPortal, token: String? = nil) {
        self.portal = portal
        self.token = token
    }

    @discardableResult
    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        json: [String: Any]? = nil,
        raw: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> AppResponse {
        var headers = extra
        headers[.contentType] = "application/json"
        headers[.userAgent] = "CarePortalTests/1"
        if let token { headers[.authorization] = "Bearer \(token)" }
        let body: ByteBuffer? =
            if let json {
                ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
            } else {
                raw.map { ByteBuffer(string: $0) }
            }
        TestProgress.step("\(method) \(path)")
        let response = try await portal.client.execute(uri: path, method: method, headers: headers, body: body)
        return AppResponse(response: response)
    }

    func get(_ path: String) async throws -> AppResponse { try await send(.get, path) }

    /// Sends one file as `multipart/form-data` under `field`, as an app uploads it.
    @discardableResult
    func sendFile(
        _ method: HTTPRequest.Method,
        _ path: String,
        field: String,
        filename: String,
        type: String,
        bytes: [UInt8]
    ) async throws -> AppResponse {
        let boundary = "----CarePortalApp\(UUID().uuidString.prefix(8))"
        var body = Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(filename)\"\r\nContent-Type: \(type)\r\n\r\n".utf8
        )
        body += bytes + Array("\r\n--\(boundary)--\r\n".utf8)
        var headers: HTTPFields = [.contentType: "multipart/form-data; boundary=\(boundary)", .userAgent: "CarePortalTests/1"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        TestProgress.step("\(method) \(path) (a file)")
        return AppResponse(response: try await portal.client.execute(uri: path, method: method, headers: headers, body: ByteBuffer(bytes: body)))
    }

    /// A fresh sign-up code made straight in storage, as an administrator would.
    static func makeCode(_ portal: TestPortal, code: String? = nil, lifetime: TimeInterval = 30 * 86_400) async throws -> String {
        let code = code ?? SignUpCode.generate(randomBytes: Dependencies.systemRandomBytes)
        let admin = try await portal.createStaff(.administrator, username: "codes.\(UUID().uuidString.prefix(8).lowercased())")
        _ = try await portal.database.transaction { db in
            try await SignUpCodeRepository().create(code: code, note: "", lifetime: lifetime, createdBy: admin.id, now: portal.clock.now, on: db)
        }
        return code
    }

    /// A complete, valid registration; override any field.
    static func registration(code: String, pseudonym: String, portal: TestPortal, _ changes: [String: Any?] = [:]) -> [String: Any] {
        var body: [String: Any] = [
            "sign_up_code": code,
            "pseudonym": pseudonym,
            "password": "Sunrise#2027",
            "avatar": "moon",
            "due_date": CalendarDate(portal.clock.now).adding(months: 4).iso,
            "recovery_email": "\(pseudonym.lowercased())@example.org",
            "security_question": ProgramSettings.defaults(programName: "").securityQuestions[0],
            "security_answer": "Biscuit",
            "state": "TN",
            "zip_code": "37203",
            "bio": "Mum of two, third on the way."
        ]
        for (key, value) in changes { body[key] = value }
        return body
    }

    /// Registers a member with a new code and returns an app signed in as her.
    static func registered(_ portal: TestPortal, pseudonym: String? = nil, _ changes: [String: Any?] = [:]) async throws -> (AppClient, [String: Any])
    {
        let name = pseudonym ?? "m.\(UUID().uuidString.prefix(8).lowercased())"
        let code = try await makeCode(portal)
        let response = try await AppClient(portal: portal).send(
            .post,
            "/api/v1/registrations",
            json: registration(code: code, pseudonym: name, portal: portal, changes)
        )
        guard response.status == .created, let token = response.object["token"] as? String,
            let member = response.object["member"] as? [String: Any]
        else { throw RegistrationFailed(body: response.text) }
        return (AppClient(portal: portal, token: token), member)
    }

    struct RegistrationFailed: Error { let body: String }
}

struct AppResponse {
    let response: TestResponse
    var status: HTTPResponse.Status { response.status }
    var headers: HTTPFields { response.headers }
    var text: String { String(buffer: response.body) }
    var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
    var error: [String: Any] { object["error"] as? [String: Any] ?? [:] }
    var errorCode: String? { error["code"] as? String }
    var fieldErrors: [String: String] { error["fields"] as? [String: String] ?? [:] }
}
