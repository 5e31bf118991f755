import Synchronization
import Testing
@testable import PortalPlatform

/// A stopping server waits for its background task to finish, but not for good: once asked to stop, a task
/// that goes on waiting past the grace period is left behind, and the stop goes on.
@Suite struct WaitForStopTests {
    /// A task that finishes only when the test lets it, whatever cancellation says.
    private final class Gate: Sendable {
        private struct State {
            var open = false
            var waiting: CheckedContinuation<Void, Never>?
        }

        private let state = Mutex(State())

        func pass() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    if !state.open { state.waiting = continuation }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.open = true
                return state.waiting.take()
            }?.resume()
        }
    }

    @Test func aTaskThatFinishesOnItsOwnIsWaitedFor() async {
        let gate = Gate()
        let task = Task { await gate.pass() }
        let waiter = Task { await waitForStop(of: task, grace: .seconds(60)) }
        gate.open()
        #expect(await waiter.value)
    }

    @Test func cancellingTheWaitCancelsTheTaskAndWaitsForItsEnd() async {
        let stopped = Mutex(false)
        let task = Task {
            while (try? await Task.sleep(for: .seconds(3600))) != nil {}
            stopped.withLock { $0 = true }
        }
        let waiter = Task { await waitForStop(of: task, grace: .seconds(60)) }
        waiter.cancel()
        #expect(await waiter.value, "the task stopped when cancelled, well within the grace period")
        #expect(stopped.withLock { $0 })
    }

    @Test func aTaskThatIgnoresCancellationIsLeftBehindAfterTheGracePeriod() async {
        let gate = Gate()
        let task = Task { await gate.pass() }
        let waiter = Task { await waitForStop(of: task, grace: .milliseconds(50)) }
        waiter.cancel()
        #expect(await waiter.value == false, "the wait ends without the task")
        gate.open()
        await task.value
    }

    @Test func aWaitCancelledBeforeItBeginsStillEnds() async {
        let gate = Gate()
        let task = Task { await gate.pass() }
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await waitForStop(of: task, grace: .milliseconds(50))
        }
        #expect(await waiter.value == false)
        gate.open()
        await task.value
    }
}
