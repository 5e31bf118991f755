import Foundation
import HTTPTypes
import Hummingbird

/// Every error the JSON API returns has this one shape:
/// `{"error": {"code": "validation_failed", "message": "…", "fields": {"pseudonym": "…"}}}`.
package struct APIError: Error, Sendable {
    package let status: HTTPResponse.Status
    /// A stable machine-readable code the app can switch on.
    package let code: String
    /// One sentence for the person using the app.
    package let message: String
    /// A message per request field that was wrong, keyed by the field's JSON name.
    package var fields: [String: String] = [:]
    /// For 429: seconds until trying again makes sense.
    package var retryAfter: Int?

    package static func invalidJSON(_ message: String = "The request body is not valid JSON of the expected shape.") -> APIError {
        APIError(status: .badRequest, code: "invalid_request", message: message)
    }

    /// Query parameters that are not valid, with a message for each.
    package static func invalidQuery(_ fields: [String: String]) -> APIError {
        APIError(status: .badRequest, code: "invalid_query", message: "Some query parameters are not valid.", fields: fields)
    }

    package static func validation(_ fields: [String: String]) -> APIError {
        APIError(status: .unprocessableContent, code: "validation_failed", message: "Some details need correcting.", fields: fields)
    }

    package static let unauthorized = APIError(status: .unauthorized, code: "unauthorized", message: "Sign in to continue.")
    package static let notFound = APIError(status: .notFound, code: "not_found", message: "Nothing was found at this address.")

    package static func tooManyRequests(until: Date, now: Date) -> APIError {
        let seconds = max(1, Int(until.timeIntervalSince(now).rounded(.up)))
        let minutes = (seconds + 59) / 60
        return APIError(
            status: .tooManyRequests,
            code: "too_many_attempts",
            message: "Too many attempts. Try again in \(minutes) minute\(minutes == 1 ? "" : "s").",
            retryAfter: seconds
        )
    }

    private struct Body: Encodable {
        package struct Problem: Encodable {
            package let code: String
            package let message: String
            package let fields: [String: String]

            package init(code: String, message: String, fields: [String: String]) {
                self.code = code
                self.message = message
                self.fields = fields
            }
        }
        package let error: Problem

        package init(error: Problem) {
            self.error = error
        }
    }

    package func response() -> Response {
        var response = Response.json(Body(error: .init(code: code, message: message, fields: fields)), status: status)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        if status == .unauthorized { response.headers[.wwwAuthenticate] = #"Bearer realm="careportal""# }
        return response
    }

    package init(status: HTTPResponse.Status, code: String, message: String, fields: [String: String] = [:], retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.retryAfter = retryAfter
    }
}

extension Response {
    /// A JSON response; keys are snake_case, instants ISO 8601 in UTC (`APIJSONWriter`).
    package static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let bytes: [UInt8]
        do {
            bytes = try APIJSONWriter.encode(value)
        } catch let difference as APIJSONWriter.Difference {
            // Only while the tests compare the writer with Foundation: the test that made this response fails.
            return Response(status: .internalServerError, body: .init(byteBuffer: ByteBuffer(string: difference.description)))
        } catch {
            bytes = Array("{}".utf8)
        }
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    package static let noContent = Response(status: .noContent, headers: [.cacheControl: "no-store"])
}

package enum APIJSON {
    package static let maximumBodySize = 64 * 1024

    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    package static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // Instants as the API writes them.
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

extension Request {
    /// The JSON body as `Body`, of at most `limit` bytes (a route that takes more declares it too, with
    /// `PortalRoutes.post(_:access:bodyLimit:_:)`); anything unreadable is a 400 in the API's error shape.
    /// Declare every field optional, so a missing one becomes a per-field message rather than a 400.
    package func json<Body: Decodable>(_ type: Body.Type, upTo limit: Int = APIJSON.maximumBodySize) async throws -> Body {
        var copy = self
        let buffer: ByteBuffer
        do {
            buffer = try await copy.collectBody(upTo: limit)
        } catch {
            throw APIError(status: .contentTooLarge, code: "too_large", message: "The request body is too large.")
        }
        do {
            return try APIJSON.decoder.decode(Body.self, from: Data(buffer: buffer))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            // An array's element by its number (`memories.3.title`), as validation names fields.
            let field = context.codingPath.map { $0.intValue.map(String.init) ?? snakeCase($0.stringValue) }.joined(separator: ".")
            throw APIError.invalidJSON(field.isEmpty ? "The request body must be a JSON object." : "The field \(field) has the wrong type.")
        } catch {
            throw APIError.invalidJSON()
        }
    }

    /// The bearer token of the `Authorization` header, if there is one.
    package var bearerToken: String? { headers.bearerToken }
}

extension HTTPFields {
    /// The bearer token of the `Authorization` header, if there is one.
    package var bearerToken: String? {
        guard let header = self[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty || token.count > 200 ? nil : token
    }
}

private func snakeCase(_ key: String) -> String {
    key.reduce(into: "") { result, character in
        if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
    }
}
