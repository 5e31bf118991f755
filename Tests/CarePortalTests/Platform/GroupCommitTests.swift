import Foundation
import Synchronization
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Items that arrive while a commit is under way go into the next commit together; nobody is
/// answered before their item is written, and a failed write fails exactly the callers in it.
@Suite struct GroupCommitTests {
    struct Refused: Error {}

    /// Records each batch; the first write waits until `release` is called, so others can queue behind it.
    final class Recorder: Sendable {
        let batches = Mutex<[[Int]]>([])
        let firstWriteStarted: AsyncStream<Void>
        private let started: AsyncStream<Void>.Continuation
        let gate: AsyncStream<Void>
        private let opener: AsyncStream<Void>.Continuation
        let failing: Int?

        init(failing: Int? = nil) {
            (firstWriteStarted, started) = AsyncStream.makeStream()
            (gate, opener) = AsyncStream.makeStream()
            self.failing = failing
        }

        func write(_ items: [Int]) async throws {
            let isFirst = batches.withLock { batches in
                batches.append(items)
                return batches.count == 1
            }
            if isFirst {
                started.yield()
                for await _ in gate { break }
            }
            if let failing, items.contains(failing) { throw Refused() }
        }

        func release() { opener.yield() }
    }

    /// What the callers saw, shared with their tasks.
    final class Shared<Value: Sendable>: Sendable {
        private let value: Mutex<Value>
        init(_ value: Value) { self.value = Mutex(value) }
        func withLock<T>(_ body: (inout Value) -> T) -> T { value.withLock { body(&$0) } }
    }

    @Test func itemsArrivingDuringACommitAreWrittenTogetherInTheNext() async throws {
        let recorder = Recorder()
        let commit = GroupCommit<Int> { try await recorder.write($0) }
        let answered = Shared<[Int]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await commit.submit(1); answered.withLock { $0.append(1) } }
            for await _ in recorder.firstWriteStarted { break }
            for item in 2...4 {
                group.addTask { try await commit.submit(item); answered.withLock { $0.append(item) } }
            }
            // Wait until all three are queued behind the first write, then let it finish.
            while commit.queuedCount < 3 { await Task.yield() }
            #expect(answered.withLock { $0 }.isEmpty, "nobody is answered before the first write ends")
            recorder.release()
            try await group.waitForAll()
        }
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.count == 2)
        #expect(batches.first == [1])
        #expect(batches.last.map { Set($0) } == [2, 3, 4])
        #expect(Set(answered.withLock { $0 }) == [1, 2, 3, 4])
    }

    @Test func aFailedWriteFailsItsCallersOnly() async throws {
        let recorder = Recorder(failing: 3)
        let commit = GroupCommit<Int> { try await recorder.write($0) }
        let outcomes = Shared<[Int: Bool]>([:])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                let ok = (try? await commit.submit(1)) != nil
                outcomes.withLock { $0[1] = ok }
            }
            for await _ in recorder.firstWriteStarted { break }
            for item in [2, 3] {
                group.addTask {
                    let ok = (try? await commit.submit(item)) != nil
                    outcomes.withLock { $0[item] = ok }
                }
            }
            while commit.queuedCount < 2 { await Task.yield() }
            recorder.release()
            await group.waitForAll()
            // The writer stopped when the queue emptied; a later item starts it again.
            let ok = (try? await commit.submit(5)) != nil
            outcomes.withLock { $0[5] = ok }
        }
        #expect(outcomes.withLock { $0 } == [1: true, 2: false, 3: false, 5: true])
        #expect(recorder.batches.withLock { $0 }.count == 3)
    }

    @Test(arguments: TestEngines.all)
    func recordsOfAccessMadeAtOnceAreAllKept(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 1...40 {
                    group.addTask {
                        try await portal.portal.recordAccess(AuditEvent(
                            actor: .anonymous, action: .patientViewed, recordType: "patient", recordID: "\(n)",
                            origin: AuditOrigin(address: "127.0.0.1", userAgent: nil)
                        ))
                    }
                }
                try await group.waitForAll()
            }
            let entries = try await portal.database.read { db in
                var query = AuditQuery()
                query.action = .patientViewed
                query.page = PageRequest(number: 1, size: 100)
                return try await portal.portal.audit.list(query, on: db)
            }
            #expect(Set(entries.items.compactMap(\.recordID)) == Set((1...40).map { "\($0)" }))
        }
    }
}
