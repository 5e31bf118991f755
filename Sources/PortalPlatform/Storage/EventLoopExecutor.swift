import NIOCore
import NIOPosix

/// A task executor that runs its jobs on one NIO event loop's thread: a database connection's.
///
/// A read (and on PostgreSQL a transaction too) runs its whole body on its connection's thread (a task
/// executor preference), so each statement it makes starts right there, and the task is resumed there
/// when the answer comes: a request hands over to the connection's thread once on the way in and once
/// on the way out, not twice for every statement. On PostgreSQL that thread is the connection's event
/// loop, which also serves HTTP connections: a body should read and decide, and leave long work
/// (hashing passwords, rendering a report) to after it or to a thread pool, as the portal's do.
package final class EventLoopExecutor: TaskExecutor {
    package let eventLoop: any EventLoop

    package init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }

    /// Runs `work` on this thread: at once when the caller is already on it, otherwise handed over.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        if eventLoop.inEventLoop { return try work() }
        return try await eventLoop.submit(work).get()
    }

    /// The threads SQLite's read-only connections belong to, shared by every SQLite database in the
    /// process: four, one for each reader of a database. None of them serves HTTP connections: SQLite's
    /// calls block, and blocking a thread that serves requests made the slowest requests three times
    /// slower at 16 connections on two cores. In WAL mode readers do not wait for the writer, so a call
    /// on one of these threads finishes and frees it. (Writers can wait, and have threads of their own:
    /// `SQLiteConnectionPool.writerThreads`.)
    package static let sqlite: [EventLoopExecutor] = {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 4)
        return group.makeIterator().map(EventLoopExecutor.init)
    }()
}
