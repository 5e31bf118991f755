import Foundation
import SafeHTML
import Testing

@Suite struct ConcurrencyTests {
    @Test func concurrentCallsGiveTheSameResultsAsSerialOnes() async throws {
        let vectors = AttackVector.corpus
        let serial = try vectors.map { try $0.render() }
        let concurrent = try await withThrowingTaskGroup(of: (Int, SanitizedText).self) { group in
            for round in 0..<4 {
                for (index, vector) in vectors.enumerated() where index % 4 == round || round == 0 {
                    group.addTask { (index, try vector.render()) }
                }
            }
            return try await group.reduce(into: [(Int, SanitizedText)]()) { $0.append($1) }
        }
        for (index, result) in concurrent {
            #expect(result == serial[index], "vector #\(vectors[index].id)")
        }
    }

    @Test func malformedHTMLPrintsNothingOnAnyThread() throws {
        let malformed = "<p><b>unclosed <x:y =>& <!-- <? &#xD800;</i></q>"
        let printed = try capturingStandardError {
            _ = try? SafeHTML.sanitize(html: malformed)
            // libxml2 keeps error handlers per thread, so a thread started now must be silent too.
            let finished = DispatchSemaphore(value: 0)
            Thread {
                _ = try? SafeHTML.sanitize(html: malformed)
                finished.signal()
            }.start()
            finished.wait()
        }
        // swift-testing reports progress on standard error too, so look for libxml2's own words.
        let libxml2Report = try Regex("parser (error|warning)|Entity: line")
        #expect(!printed.contains(libxml2Report), "libxml2 printed: \(printed)")
    }
}

/// What `body` writes to standard error, read from a pipe standing in for it.
private func capturingStandardError(_ body: () throws -> Void) throws -> String {
    let pipe = Pipe()
    let savedDescriptor = dup(STDERR_FILENO)
    dup2(pipe.fileHandleForWriting.fileDescriptor, STDERR_FILENO)
    defer {
        dup2(savedDescriptor, STDERR_FILENO)
        close(savedDescriptor)
    }
    try body()
    fflush(nil)
    dup2(savedDescriptor, STDERR_FILENO)
    try pipe.fileHandleForWriting.close()
    return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
}
