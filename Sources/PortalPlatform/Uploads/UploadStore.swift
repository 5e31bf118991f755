import Foundation
import Hummingbird
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Uploaded files of one use (illustrations, videos, …) on disk under `DATA_DIR/<folder>`, each under a
/// random name the server chose; the uploader's file name is never used. Files live beside the database
/// in DATA_DIR, so a backup of DATA_DIR holds them.
package struct UploadStore: Sendable {
    package let directory: String
    let randomBytes: @Sendable (Int) -> [UInt8]

    package init(dataDirectory: String, folder: String, randomBytes: @escaping @Sendable (Int) -> [UInt8]) {
        directory = "\(dataDirectory)/\(folder)"
        self.randomBytes = randomBytes
    }

    package struct WriteFailed: Error, CustomStringConvertible {
        package let description: String
    }

    /// Writes bytes already checked against the use's rules durably and returns their stored name.
    package func save(_ bytes: [UInt8], type: UploadType) throws -> StoredUpload {
        let writer = try UploadWriter(store: self, rules: UploadRules(types: [type], maximumSize: max(bytes.count, 1), noun: "file"))
        do {
            if let problem = try writer.append(bytes) { throw WriteFailed(description: problem.message) }
            switch try writer.finish() {
            case .success(let stored): return stored
            case .failure(let problem): throw WriteFailed(description: problem.message)
            }
        } catch {
            writer.abandon()
            throw error
        }
    }

    /// Starts writing an upload that arrives in pieces; see `UploadWriter`.
    package func writer(rules: UploadRules) throws -> UploadWriter {
        try UploadWriter(store: self, rules: rules)
    }

    /// The file's path, or nil when the name is not one the server makes, so no stored value can point elsewhere.
    package func path(of upload: StoredUpload) -> String? {
        guard Self.isStoredName(upload.fileName), upload.fileName.hasSuffix("." + upload.type.fileExtension) else { return nil }
        return "\(directory)/\(upload.fileName)"
    }

    /// The stored file's bytes, or nil when it is gone or the name is not one the server makes.
    package func read(_ upload: StoredUpload) -> Data? {
        path(of: upload).flatMap { FileManager.default.contents(atPath: $0) }
    }

    package func remove(_ upload: StoredUpload) {
        guard let path = path(of: upload) else { return }
        unlink(path)
    }

    /// Names the server makes: 32 hexadecimal digits and a known extension.
    package static func isStoredName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 32 && parts[0].allSatisfy { $0.isHexDigit && !$0.isUppercase }
            && UploadType.allCases.contains { $0.fileExtension == parts[1] }
    }

    /// The stored file as a response with its type, streamed from disk, honouring a single `Range` so
    /// players can seek: 206 with Content-Range, 416 when the range is outside the file.
    package func response(
        for upload: StoredUpload, request: Request, context: some RequestContext, downloadName: String
    ) async throws -> Response? {
        guard let path = path(of: upload) else { return nil }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        var headers: HTTPFields = [
            .contentType: upload.type.rawValue,
            .contentDisposition: "inline; filename=\"\(downloadName).\(upload.type.fileExtension)\"",
            .acceptRanges: "bytes",
        ]
        let range: ClosedRange<Int>
        switch ByteRange.parse(request.headers[.range], size: size) {
        case .whole:
            headers[.contentLength] = String(size)
            guard size > 0 else { return Response(status: .ok, headers: headers, body: .init()) }
            return Response(status: .ok, headers: headers, body: try await FileIO().loadFile(path: path, range: 0...(size - 1), context: context))
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentType] = nil
            headers[.contentDisposition] = nil
            return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
        case .part(let part):
            range = part
        }
        headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
        headers[.contentLength] = String(range.count)
        return Response(status: .partialContent, headers: headers, body: try await FileIO().loadFile(path: path, range: range, context: context))
    }
}

/// What a `Range` header asks of a file of a given size. Only one range is served; a header with several,
/// or one that is not understood, is answered with the whole file, as HTTP allows.
package enum ByteRange: Equatable {
    case whole
    case part(ClosedRange<Int>)
    case unsatisfiable

    package static func parse(_ header: String?, size: Int) -> ByteRange {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty) else { return .whole }
        if first.isEmpty {
            // The last n bytes.
            guard let count = Int(last) else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - count)...(size - 1))
        }
        guard let start = Int(first) else { return .whole }
        let end: Int
        if last.isEmpty {
            end = size - 1
        } else {
            guard let given = Int(last), given >= start else { return .whole }
            end = min(given, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .part(start...end)
    }
}

/// An upload written as it arrives: into a hidden partial file, checked against its rules as it grows (type
/// from the first bytes, size as it goes), synced and given its name only when complete. Nothing is left
/// behind when it is refused or abandoned.
package final class UploadWriter {
    let store: UploadStore
    let rules: UploadRules
    private let name: String
    private let partialPath: String
    private var descriptor: Int32
    private var head: [UInt8] = []
    private(set) var type: UploadType?
    package private(set) var size = 0
    private var problem: UploadProblem?

    init(store: UploadStore, rules: UploadRules) throws {
        self.store = store
        self.rules = rules
        try FileManager.default.createDirectory(atPath: store.directory, withIntermediateDirectories: true)
        name = store.randomBytes(16).map { String(format: "%02x", $0) }.joined()
        partialPath = "\(store.directory)/.\(name).partial"
        descriptor = open(partialPath, O_WRONLY | O_CREAT | O_EXCL, 0o640)
        guard descriptor >= 0 else { throw UploadStore.WriteFailed(description: "could not create \(partialPath): errno \(errno)") }
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(partialPath)
        }
    }

    /// Adds the next piece; returns the reason the upload is refused as soon as one is known.
    package func append(_ bytes: some Collection<UInt8>) throws -> UploadProblem? {
        if let problem { return problem }
        guard descriptor >= 0 else { throw UploadStore.WriteFailed(description: "the upload was already finished") }
        size += bytes.count
        if size > rules.maximumSize { return refuse(rules.tooLarge) }
        if head.count < UploadType.signatureLength {
            head += bytes.prefix(UploadType.signatureLength - head.count)
            if head.count >= UploadType.signatureLength, let refused = checkType() { return refused }
        }
        let ok = Array(bytes).withUnsafeBytes { buffer -> Bool in
            var written = 0
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result <= 0 { return false }
                written += result
            }
            return true
        }
        guard ok else { throw UploadStore.WriteFailed(description: "could not write \(partialPath): errno \(errno)") }
        return nil
    }

    private func checkType() -> UploadProblem? {
        guard let detected = UploadType.detect(head), rules.types.contains(detected) else { return refuse(rules.wrongType) }
        type = detected
        return nil
    }

    private func refuse(_ problem: UploadProblem) -> UploadProblem {
        self.problem = problem
        abandon()
        return problem
    }

    /// Syncs the file and names it, or says why it is refused (and removes it).
    package func finish() throws -> Result<StoredUpload, UploadProblem> {
        if let problem { return .failure(problem) }
        if size == 0 { return .failure(refuse(rules.empty)) }
        if type == nil, let refused = checkType() { return .failure(refused) }
        let fileName = "\(name).\(type!.fileExtension)"
        let synced = fsync(descriptor) == 0
        close(descriptor)
        descriptor = -1
        guard synced, rename(partialPath, "\(store.directory)/\(fileName)") == 0 else {
            unlink(partialPath)
            throw UploadStore.WriteFailed(description: "could not store the upload \(fileName)")
        }
        let folder = open(store.directory, O_RDONLY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        return .success(StoredUpload(fileName: fileName, type: type!))
    }

    /// Stops writing and removes what was written.
    package func abandon() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(partialPath)
    }
}
