import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// An upload written as it arrives: checked against its rules as it grows (type from the first bytes, size
/// as it goes) and given its name only when complete. In a folder, into a hidden partial file that is synced
/// and renamed at the end; in the database, in parts of `DatabaseUploads.partSize` bytes under a row that
/// says it is unfinished until the end. Nothing is left behind when it is refused or abandoned.
package final class UploadWriter {
    private enum Destination {
        case file(descriptor: Int32, partialPath: String)
        case database(pending: [UInt8], nextPart: Int)
        case closed
    }

    let store: UploadStore
    let rules: UploadRules
    private let name: String
    private var destination: Destination
    private var head: [UInt8] = []
    private(set) var type: UploadType?
    package private(set) var size = 0
    /// The bytes' SHA-256, kept beside a file in the database so it can be checked after a move or a restore.
    private var digest = FileDigest()
    private var problem: UploadProblem?

    /// A writer for a new file, named by the server unless `keeping` a name (32 hexadecimal digits): a file
    /// moved into the database keeps the name its records use.
    init(store: UploadStore, rules: UploadRules, keeping kept: String? = nil) async throws {
        self.store = store
        self.rules = rules
        name = kept ?? store.newID()
        switch store.place {
        case .folder(let directory):
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let partialPath = "\(directory)/.\(name).partial"
            let descriptor = open(partialPath, O_WRONLY | O_CREAT | O_EXCL, 0o640)
            guard descriptor >= 0 else { throw UploadStore.WriteFailed(description: "could not create \(partialPath): errno \(errno)") }
            destination = .file(descriptor: descriptor, partialPath: partialPath)
        case .database:
            try await store.start(id: name)
            destination = .database(pending: [], nextPart: 0)
        }
    }

    deinit {
        // A file still open was neither finished nor abandoned (its task was cancelled): it goes. Unfinished
        // rows in the database are swept by housekeeping (`DatabaseUploads.forgetUnfinished`).
        if case .file(let descriptor, let partialPath) = destination {
            close(descriptor)
            unlink(partialPath)
        }
    }

    /// Adds the next piece; returns the reason the upload is refused as soon as one is known.
    package func append(_ bytes: some Collection<UInt8>) async throws -> UploadProblem? {
        if let problem { return problem }
        size += bytes.count
        if size > rules.maximumSize { return await refuse(rules.tooLarge) }
        if head.count < UploadType.signatureLength {
            head += bytes.prefix(UploadType.signatureLength - head.count)
            if head.count >= UploadType.signatureLength, let refused = await checkType() { return refused }
        }
        if case .database = store.place { digest.update(Data(bytes)) }
        switch destination {
        case .file(let descriptor, let partialPath):
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
        case .database(var pending, var nextPart):
            pending += bytes
            let partSize = store.rows.partSize
            while pending.count >= partSize {
                try await store.write(id: name, part: nextPart, bytes: pending.prefix(partSize))
                pending.removeFirst(partSize)
                nextPart += 1
            }
            destination = .database(pending: pending, nextPart: nextPart)
        case .closed:
            throw UploadStore.WriteFailed(description: "the upload was already finished")
        }
        return nil
    }

    private func checkType() async -> UploadProblem? {
        guard let detected = UploadType.detect(head), rules.types.contains(detected) else { return await refuse(rules.wrongType) }
        type = detected
        return nil
    }

    private func refuse(_ problem: UploadProblem) async -> UploadProblem {
        self.problem = problem
        await abandon()
        return problem
    }

    /// Makes the file durable and names it, or says why it is refused (and removes it).
    package func finish() async throws -> Result<StoredUpload, UploadProblem> {
        if let problem { return .failure(problem) }
        if size == 0 { return .failure(await refuse(rules.empty)) }
        if type == nil, let refused = await checkType() { return .failure(refused) }
        let stored = StoredUpload(fileName: "\(name).\(type!.fileExtension)", type: type!)
        switch destination {
        case .file(let descriptor, let partialPath):
            let synced = fsync(descriptor) == 0
            close(descriptor)
            destination = .closed
            let directory = store.directory!
            guard synced, rename(partialPath, "\(directory)/\(stored.fileName)") == 0 else {
                unlink(partialPath)
                throw UploadStore.WriteFailed(description: "could not store the upload \(stored.fileName)")
            }
            let folder = open(directory, O_RDONLY)
            if folder >= 0 {
                fsync(folder)
                close(folder)
            }
        case .database(let pending, let nextPart):
            do {
                if !pending.isEmpty { try await store.write(id: name, part: nextPart, bytes: pending[...]) }
                try await store.finish(id: name, type: stored.type, size: size, sha256: digest.finalize())
                destination = .closed
            } catch {
                await abandon()
                throw error
            }
        case .closed:
            throw UploadStore.WriteFailed(description: "the upload was already finished")
        }
        return .success(stored)
    }

    /// Stops writing and removes what was written.
    package func abandon() async {
        switch destination {
        case .file(let descriptor, let partialPath):
            close(descriptor)
            unlink(partialPath)
        case .database:
            // Should the database be away, housekeeping sweeps the unfinished rows later.
            try? await store.remove(id: name)
        case .closed:
            break
        }
        destination = .closed
    }
}
