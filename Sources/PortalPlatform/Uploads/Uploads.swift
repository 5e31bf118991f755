import Foundation

/// The kinds of file the portal accepts from an upload, recognised by their first bytes, never by the
/// file's name or the type the browser claimed. The raw value is the Content-Type they are served with.
public enum UploadType: String, Sendable, CaseIterable {
    case png = "image/png"
    case jpeg = "image/jpeg"
    case webp = "image/webp"
    case mp4 = "video/mp4"
    case webm = "video/webm"
    case pdf = "application/pdf"
    /// Bytes sealed under a key (`Sealer`), kept for a person whose file must not be readable at rest: never
    /// accepted from an upload, only written by the server after sealing, and opened before it is served.
    case sealed = "application/vnd.careportal.sealed"

    package static let pictures: Set<UploadType> = [.png, .jpeg, .webp]
    package static let videos: Set<UploadType> = [.mp4, .webm]

    package var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .webp: "webp"
        case .mp4: "mp4"
        case .webm: "webm"
        case .pdf: "pdf"
        case .sealed: "sealed"
        }
    }

    /// How many leading bytes `detect` needs to decide.
    package static let signatureLength = 64

    /// The type these leading bytes are, or nil when they are none of the five.
    package static func detect(_ bytes: some Collection<UInt8>) -> UploadType? {
        let head = Array(bytes.prefix(signatureLength))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.count > 3, head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) { return .webp }
        // ISO base media: a box size, then "ftyp" and a brand; QuickTime ("qt  ") is not MP4.
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8), Array(head[8..<12]) != Array("qt  ".utf8) { return .mp4 }
        // Matroska's EBML header, whose DocType says "webm" (an .mkv file says "matroska").
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]), contains(Array("webm".utf8), in: head) { return .webm }
        if head.starts(with: Array("%PDF-".utf8)) { return .pdf }
        // `Sealer`'s form: "v1.", its key's eight hex digits, a dot.
        if head.count > 12, head.starts(with: Array("v1.".utf8)), head[11] == UInt8(ascii: ".") { return .sealed }
        return nil
    }

    private static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    /// "a PNG, JPEG or WebP picture", "an MP4 or WebM video": what a person is asked for.
    package static func describe(_ types: Set<UploadType>) -> String {
        let ordered = allCases.filter(types.contains)
        let names = ordered.map(\.displayName)
        let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
        if types.isSubset(of: videos) { return "an \(list) video" }
        if types.isSubset(of: pictures) { return "a \(list) picture" }
        return "a \(list) file"
    }

    private var displayName: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .webp: "WebP"
        case .mp4: "MP4"
        case .webm: "WebM"
        case .pdf: "PDF"
        case .sealed: "sealed"
        }
    }
}

/// What one use of uploads accepts: its types, its largest size, and the word a person knows it by.
package struct UploadRules: Sendable {
    package let types: Set<UploadType>
    package let maximumSize: Int
    /// "illustration", "video": used in the messages.
    package let noun: String

    package init(types: Set<UploadType>, maximumSize: Int, noun: String) {
        self.types = types
        self.maximumSize = maximumSize
        self.noun = noun
    }

    /// "2 MB", "200 MB".
    package var maximumSizeText: String { "\(maximumSize / 1024 / 1024) MB" }

    package var tooLarge: UploadProblem { UploadProblem(message: "The \(noun) must be smaller than \(maximumSizeText)") }
    package var wrongType: UploadProblem { UploadProblem(message: "The \(noun) must be \(UploadType.describe(types))") }
    package var empty: UploadProblem { UploadProblem(message: "The selected \(noun) file is empty") }

    /// The file's type when these rules accept it, or why they do not.
    package func check(_ bytes: [UInt8]) -> Result<UploadType, UploadProblem> {
        if bytes.isEmpty { return .failure(empty) }
        if bytes.count > maximumSize { return .failure(tooLarge) }
        guard let type = UploadType.detect(bytes), types.contains(type) else { return .failure(wrongType) }
        return .success(type)
    }
}

/// Why an upload is refused, in words the person who sent it understands.
package struct UploadProblem: Error, Sendable, Equatable {
    package let message: String

    package init(message: String) {
        self.message = message
    }
}

/// A file the server stored: the name it chose and the type its bytes were recognised as.
public struct StoredUpload: Sendable, Equatable {
    /// 32 hexadecimal digits and the type's extension, under the use's folder.
    public var fileName: String
    public var type: UploadType

    package init(fileName: String, type: UploadType) {
        self.fileName = fileName
        self.type = type
    }
}
