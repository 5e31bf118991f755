import Foundation
import Hummingbird
import NIOCore

/// A `multipart/form-data` form as a browser sends it with a file input: text fields and files.
///
/// Small and strict on purpose: only what browsers send is understood, and anything else makes the
/// whole form unreadable rather than half-read.
package struct MultipartForm: Sendable {
    package struct File: Sendable {
        /// The name the uploader's computer gave it; shown back at most, never used as a path.
        package let filename: String
        package let contentType: String?
        package let bytes: [UInt8]

        package init(filename: String, contentType: String? = nil, bytes: [UInt8]) {
            self.filename = filename
            self.contentType = contentType
            self.bytes = bytes
        }
    }

    /// The largest upload request the portal reads; a feature's own limit on a file is smaller.
    package static let maximumRequestSize = 5 * 1024 * 1024

    package private(set) var fields: [String: String] = [:]
    package private(set) var files: [String: File] = [:]

    package struct Unreadable: Error { package init() {} }

    /// The boundary of a `multipart/form-data` content type, or nil for any other type.
    package static func boundary(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for part in parts.dropFirst() where part.lowercased().hasPrefix("boundary=") {
            var value = String(part.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty || value.count > 70 ? nil : value
        }
        return nil
    }

    package init(bytes body: [UInt8], boundary: String) throws {
        let delimiter = Array("--\(boundary)".utf8)
        guard var position = Self.find(delimiter, in: body, from: 0) else { throw Unreadable() }
        while true {
            position += delimiter.count
            // "--" after a delimiter ends the form.
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") { return }
            guard body.count >= position + 2, body[position] == 13, body[position + 1] == 10 else { throw Unreadable() }
            position += 2
            guard let headerEnd = Self.find(Array("\r\n\r\n".utf8), in: body, from: position) else { throw Unreadable() }
            let headers = String(decoding: body[position..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let next = Self.find(Array("\r\n".utf8) + delimiter, in: body, from: contentStart) else { throw Unreadable() }
            let content = Array(body[contentStart..<next])
            try add(headers: headers, content: content)
            position = next + 2
        }
    }

    private mutating func add(headers: String, content: [UInt8]) throws {
        let (name, filename, contentType) = try Self.partHeaders(headers)
        if let filename {
            // A file input left empty is sent with an empty file name and no bytes.
            guard !filename.isEmpty || !content.isEmpty else { return }
            files[name] = File(filename: filename, contentType: contentType, bytes: content)
        } else {
            fields[name] = String(decoding: content, as: UTF8.self)
        }
    }

    /// The text fields of the complete parts at the beginning of a form whose rest may not have arrived
    /// yet; files are passed over.
    package static func leadingFields(in body: [UInt8], boundary: String) -> [String: String] {
        let delimiter = Array("--\(boundary)".utf8)
        var fields: [String: String] = [:]
        guard var position = find(delimiter, in: body, from: 0) else { return fields }
        while true {
            position += delimiter.count
            guard body.count >= position + 2, body[position] == 13, body[position + 1] == 10 else { return fields }
            position += 2
            guard let headerEnd = find(Array("\r\n\r\n".utf8), in: body, from: position),
                let headers = try? partHeaders(String(decoding: body[position..<headerEnd], as: UTF8.self)),
                let next = find(Array("\r\n".utf8) + delimiter, in: body, from: headerEnd + 4)
            else { return fields }
            if headers.filename == nil { fields[headers.name] = String(decoding: body[(headerEnd + 4)..<next], as: UTF8.self) }
            position = next + 2
        }
    }

    /// A part's headers: its field name, the file name when it is a file, and its stated type.
    package static func partHeaders(_ headers: String) throws -> (name: String, filename: String?, contentType: String?) {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in headers.split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { throw Unreadable() }
            let value = pair[1].trimmingCharacters(in: .whitespaces)
            switch pair[0].lowercased() {
            case "content-disposition":
                let parameters = Self.parameters(value)
                guard parameters.kind == "form-data" else { throw Unreadable() }
                name = parameters.values["name"]
                filename = parameters.values["filename"]
            case "content-type":
                contentType = value
            default:
                continue
            }
        }
        guard let name else { throw Unreadable() }
        return (name, filename, contentType)
    }

    /// `form-data; name="a"; filename="b.png"` as its kind and its quoted values.
    private static func parameters(_ value: String) -> (kind: String, values: [String: String]) {
        var values: [String: String] = [:]
        var rest = Substring(value)
        let kindEnd = rest.firstIndex(of: ";") ?? rest.endIndex
        let kind = rest[..<kindEnd].trimmingCharacters(in: .whitespaces).lowercased()
        rest = rest[kindEnd...]
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = rest[..<equals].lowercased()
            rest = rest[rest.index(after: equals)...]
            var parsed = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let character = rest.first, character != "\"" {
                    if character == "\\", rest.count > 1 {
                        rest = rest.dropFirst()
                    }
                    parsed.append(rest.first!)
                    rest = rest.dropFirst()
                }
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parsed = String(rest[..<end])
                rest = rest[end...]
            }
            values[key] = parsed
        }
        return (kind, values)
    }

    package static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matches = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matches = false
                    break
                }
                if matches { return index }
            }
            index += 1
        }
        return nil
    }
}

extension Request {
    /// The submitted `multipart/form-data` form; anything else, or a malformed one, is a 400.
    package func multipartForm() async throws -> MultipartForm {
        guard let boundary = MultipartForm.boundary(contentType: headers[.contentType]) else { throw HTTPError(.badRequest) }
        var copy = self
        let body = try await copy.collectBody(upTo: MultipartForm.maximumRequestSize)
        do {
            return try MultipartForm(bytes: Array(buffer: body), boundary: boundary)
        } catch {
            throw HTTPError(.badRequest)
        }
    }
}
