import Synchronization

/// Waits for a background task for as long as it runs; once the waiting task is cancelled, cancels it and
/// waits at most `grace` more. True when the task finished; false when it was left behind, still running.
///
/// The PostgreSQL client's `run` returns only once its pool has seen every connection close. Now and then,
/// under load, it went on waiting after its last connection had closed, and a server asked to stop (or a test
/// ending) waited with it for good. A task left behind that way holds no connection; the process ends anyway.
package func waitForStop(of task: Task<Void, Never>, grace: Duration) async -> Bool {
    let outcome = FirstOutcome()
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            outcome.waiting(continuation)
            Task {
                await task.value
                outcome.settle(true)
            }
        }
    } onCancel: {
        task.cancel()
        Task {
            try? await Task.sleep(for: grace)
            outcome.settle(false)
        }
    }
}

/// The first of two outcomes, handed to the one waiting for it whichever comes first: the outcome or the wait.
private final class FirstOutcome: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        var outcome: Bool?
    }

    private let state = Mutex(State())

    func waiting(_ continuation: CheckedContinuation<Bool, Never>) {
        let settled = state.withLock { state -> Bool? in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        if let settled { continuation.resume(returning: settled) }
    }

    func settle(_ value: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = value
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: value)
    }
}
