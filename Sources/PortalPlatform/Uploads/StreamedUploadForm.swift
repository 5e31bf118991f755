import Foundation
import Hummingbird
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// A `multipart/form-data` form with one large file (a video), read as it arrives: the text fields are
/// kept (each at most 64 KB), and the file's bytes go straight to its store through an `UploadWriter`, so
/// a 200 MB upload never sits in memory. The file is refused as soon as its first bytes or its size say so.
package struct StreamedUploadForm: Sendable {
    package private(set) var fields: [String: String] = [:]
    /// The file: stored, refused with the reason, or nil when none was chosen.
    package private(set) var upload: Result<StoredUpload, UploadProblem>?

    package static let maximumFieldSize = 64 * 1024
    private static let maximumHeaderSize = 16 * 1024

    package init() {}

    /// Reads the form from `body`. A form that is not readable throws `MultipartForm.Unreadable`, and
    /// nothing of its file is left in the store.
    package static func read<Body: AsyncSequence>(
        _ body: Body,
        boundary: String,
        fileField: String,
        store: UploadStore,
        rules: UploadRules
    ) async throws -> StreamedUploadForm where Body.Element == ByteBuffer {
        var reader = Reader(boundary: boundary, fileField: fileField, store: store, rules: rules)
        do {
            for try await chunk in body {
                reader.buffer += chunk.readableBytesView
                try await reader.process(ended: false)
                if reader.isDone { break }
            }
            try await reader.process(ended: true)
            guard reader.isDone else { throw MultipartForm.Unreadable() }
        } catch {
            await reader.abandon()
            throw error
        }
        return reader.form
    }

    private struct Reader {
        enum State {
            case preamble
            case afterDelimiter
            case headers
            case field(name: String)
            case file(hasName: Bool)
            case done
        }

        let delimiter: [UInt8]
        let partEnd: [UInt8]
        let fileField: String
        let store: UploadStore
        let rules: UploadRules
        var buffer: [UInt8] = []
        var state = State.preamble
        var fieldBytes: [UInt8] = []
        var writer: UploadWriter?
        var fileProblem: UploadProblem?
        var sawFileBytes = false
        var form = StreamedUploadForm()

        init(boundary: String, fileField: String, store: UploadStore, rules: UploadRules) {
            delimiter = Array("--\(boundary)".utf8)
            partEnd = Array("\r\n--\(boundary)".utf8)
            self.fileField = fileField
            self.store = store
            self.rules = rules
        }

        var isDone: Bool {
            if case .done = state { return true }
            return false
        }

        mutating func abandon() async {
            await writer?.abandon()
            writer = nil
            if case .success(let stored) = form.upload { try? await store.remove(stored) }
        }

        /// Consumes as much of `buffer` as can be understood.
        mutating func process(ended: Bool) async throws {
            while true {
                switch state {
                case .done:
                    return
                case .preamble:
                    guard let at = Self.find(delimiter, in: buffer, from: 0) else {
                        if ended || buffer.count > Self.maximumPreamble { throw MultipartForm.Unreadable() }
                        return
                    }
                    buffer.removeFirst(at + delimiter.count)
                    state = .afterDelimiter
                case .afterDelimiter:
                    guard buffer.count >= 2 else {
                        if ended { throw MultipartForm.Unreadable() }
                        return
                    }
                    if buffer[0] == UInt8(ascii: "-"), buffer[1] == UInt8(ascii: "-") {
                        state = .done
                        return
                    }
                    guard buffer[0] == 13, buffer[1] == 10 else { throw MultipartForm.Unreadable() }
                    buffer.removeFirst(2)
                    state = .headers
                case .headers:
                    guard let end = Self.find(Array("\r\n\r\n".utf8), in: buffer, from: 0) else {
                        if ended || buffer.count > StreamedUploadForm.maximumHeaderSize { throw MultipartForm.Unreadable() }
                        return
                    }
                    let (name, filename, _) = try MultipartForm.partHeaders(String(decoding: buffer[..<end], as: UTF8.self))
                    buffer.removeFirst(end + 4)
                    if let filename {
                        guard name == fileField, form.upload == nil, writer == nil else { throw MultipartForm.Unreadable() }
                        state = .file(hasName: !filename.isEmpty)
                    } else {
                        fieldBytes = []
                        state = .field(name: name)
                    }
                case .field(let name):
                    let (content, complete) = try take(ended: ended)
                    fieldBytes += content
                    if fieldBytes.count > StreamedUploadForm.maximumFieldSize { throw MultipartForm.Unreadable() }
                    guard complete else { return }
                    form.fields[name] = String(decoding: fieldBytes, as: UTF8.self)
                    state = .afterDelimiter
                case .file(let hasName):
                    let (content, complete) = try take(ended: ended)
                    if !content.isEmpty {
                        sawFileBytes = true
                        if fileProblem == nil {
                            if writer == nil { writer = try await store.writer(rules: rules) }
                            if let problem = try await writer!.append(content) {
                                fileProblem = problem
                                writer = nil
                            }
                        }
                    }
                    guard complete else { return }
                    if let fileProblem {
                        form.upload = .failure(fileProblem)
                    } else if let finishing = writer {
                        writer = nil
                        form.upload = try await finishing.finish()
                    } else if hasName || sawFileBytes {
                        form.upload = .failure(rules.empty)
                    }
                    state = .afterDelimiter
                }
            }
        }

        static let maximumPreamble = 4 * 1024

        /// The part's bytes now known not to be the start of the next delimiter, and whether the part ended
        /// (the buffer then starts at the next delimiter's dashes… after them).
        mutating func take(ended: Bool) throws -> ([UInt8], Bool) {
            if let at = Self.find(partEnd, in: buffer, from: 0) {
                let content = Array(buffer[..<at])
                buffer.removeFirst(at + partEnd.count)
                return (content, true)
            }
            if ended { throw MultipartForm.Unreadable() }
            let safe = max(0, buffer.count - (partEnd.count - 1))
            let content = Array(buffer[..<safe])
            buffer.removeFirst(safe)
            return (content, false)
        }

        /// Where `needle` first occurs at or after `start`: memchr finds each candidate first byte, memcmp checks it.
        static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
            guard let first = needle.first, haystack.count - start >= needle.count else { return nil }
            return haystack.withUnsafeBytes { hay -> Int? in
                needle.withUnsafeBytes { pin -> Int? in
                    let base = hay.baseAddress!
                    var index = start
                    let last = hay.count - pin.count
                    while index <= last {
                        guard let found = memchr(base + index, Int32(first), last - index + 1) else { return nil }
                        let at = base.distance(to: UnsafeRawPointer(found))
                        if memcmp(found, pin.baseAddress!, pin.count) == 0 { return at }
                        index = at + 1
                    }
                    return nil
                }
            }
        }
    }
}

extension Request {
    /// The submitted form with one file streamed to its store (see `StreamedUploadForm`); anything else, or a
    /// malformed form, is a 400.
    package func streamedUploadForm(fileField: String, store: UploadStore, rules: UploadRules) async throws -> StreamedUploadForm {
        guard let boundary = MultipartForm.boundary(contentType: headers[.contentType]) else { throw HTTPError(.badRequest) }
        do {
            return try await StreamedUploadForm.read(body, boundary: boundary, fileField: fileField, store: store, rules: rules)
        } catch is MultipartForm.Unreadable {
            throw HTTPError(.badRequest)
        }
    }
}
