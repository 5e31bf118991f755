import Foundation
import Synchronization
import Testing

/// Where each running portal test stands: which step it is on (building the portal, a request,
/// shutting the services down, dropping its database) and since when. A thread of its own (not a
/// Swift task, so it runs whatever the tasks are waiting for) prints every step that has not moved
/// for two minutes: a run that stops making progress then says where each stuck test stopped.
enum TestProgress {
    private struct Step {
        let test: String
        var name: String
        var since: ContinuousClock.Instant
        var reported = false
    }

    private static let steps = Mutex<[UUID: Step]>([:])
    @TaskLocal private static var current: UUID?
    static let stuckAfter: Duration = .seconds(120)

    /// Runs `body` as one test's steps, named after the running test and `detail` (its engine).
    static func tracking<T>(_ first: String, detail: String, _ body: () async throws -> T) async rethrows -> T {
        startWatching
        let id = UUID()
        let test = "\(Test.current?.name ?? "a test") (\(detail))"
        steps.withLock { $0[id] = Step(test: test, name: first, since: .now) }
        defer { _ = steps.withLock { $0.removeValue(forKey: id) } }
        return try await $current.withValue(id) { try await body() }
    }

    /// The test this task belongs to has reached `step`.
    static func step(_ step: String) {
        guard let id = current else { return }
        steps.withLock { steps in
            guard steps[id] != nil else { return }
            steps[id]?.name = step
            steps[id]?.since = .now
            steps[id]?.reported = false
        }
    }

    private static let startWatching: Void = {
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: 30)
                let stuck = steps.withLock { steps -> [Step] in
                    let before = ContinuousClock.now - stuckAfter
                    var found: [Step] = []
                    for (id, step) in steps where !step.reported && step.since < before {
                        found.append(step)
                        steps[id]?.reported = true
                    }
                    return found
                }
                for step in stuck {
                    let seconds = (ContinuousClock.now - step.since).components.seconds
                    FileHandle.standardError.write(Data("⏳ \(step.test) has been at “\(step.name)” for \(seconds) s\n".utf8))
                }
            }
        }
        thread.name = "test progress"
        thread.start()
    }()
}
