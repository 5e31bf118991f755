import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct MultipartFormTests {
    static func body(_ parts: [(headers: String, content: [UInt8])], boundary: String = "----CarePortalBoundary7MA4YWxk") -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts {
            bytes += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8)
        }
        return bytes + Array("--\(boundary)--\r\n".utf8)
    }

    @Test func readsTextFieldsAndAFileAsABrowserSendsThem() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x0D, 0x0A, 0x2D, 0x2D]
        let bytes = Self.body([
            ("Content-Disposition: form-data; name=\"csrf_token\"", Array("abc123".utf8)),
            ("Content-Disposition: form-data; name=\"description\"", Array("Stand up\r\nslowly – twice".utf8)),
            ("Content-Disposition: form-data; name=\"illustration\"; filename=\"../../etc/walk.png\"\r\nContent-Type: image/png", png)
        ])
        let form = try MultipartForm(bytes: bytes, boundary: "----CarePortalBoundary7MA4YWxk")
        #expect(form.fields["csrf_token"] == "abc123")
        #expect(form.fields["description"] == "Stand up\r\nslowly – twice")
        #expect(form.files["illustration"]?.bytes == png)
        #expect(form.files["illustration"]?.filename == "../../etc/walk.png")
        #expect(form.files["illustration"]?.contentType == "image/png")
    }

    @Test func anEmptyFileInputIsNoFile() throws {
        let bytes = Self.body([
            ("Content-Disposition: form-data; name=\"illustration\"; filename=\"\"\r\nContent-Type: application/octet-stream", [])
        ])
        #expect(try MultipartForm(bytes: bytes, boundary: "----CarePortalBoundary7MA4YWxk").files.isEmpty)
    }

    @Test func aTruncatedOrForeignBodyIsRefusedWhole() {
        let complete = Self.body([("Content-Disposition: form-data; name=\"a\"", Array("1".utf8))])
        #expect(throws: MultipartForm.Unreadable.self) {
            try MultipartForm(bytes: Array(complete.prefix(40)), boundary: "----CarePortalBoundary7MA4YWxk")
        }
        #expect(throws: MultipartForm.Unreadable.self) { try MultipartForm(bytes: complete, boundary: "another") }
        let noName = Self.body([("Content-Disposition: form-data", Array("1".utf8))])
        #expect(throws: MultipartForm.Unreadable.self) { try MultipartForm(bytes: noName, boundary: "----CarePortalBoundary7MA4YWxk") }
    }

    @Test func theBoundaryComesFromTheContentType() {
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=----WebKitFormBoundaryX1") == "----WebKitFormBoundaryX1")
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=\"quoted value\"") == "quoted value")
        #expect(MultipartForm.boundary(contentType: "application/x-www-form-urlencoded") == nil)
        #expect(MultipartForm.boundary(contentType: nil) == nil)
    }
}
