#if canImport(Glibc)
    import CMalloc
#endif
import Foundation

/// How many heaps glibc's allocator keeps for the server's threads.
///
/// glibc gives a thread that finds the heap busy an arena of its own, up to eight for each core, and
/// memory freed in one arena serves only that arena: under a steady load a long-running server's
/// memory crept up by a tenth in an hour as each of its threads left memory in several arenas. One
/// arena for each core (at least two) keeps allocation uncontended and the memory flat
/// (docs/performance-history.md, "Soak"). An operator's own `MALLOC_ARENA_MAX` is left as it is.
package enum MemoryArenas {
    /// Limits the arenas; call before the server's threads start.
    package static func limitForServer() {
        #if canImport(Glibc)
            guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
            _ = mallopt(M_ARENA_MAX, Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
        #endif
    }

    /// Gives the pages the allocator holds free, in every arena, back to the system.
    ///
    /// glibc returns memory only from the top of a heap: a page freed below a block still in use stays
    /// with the process, so a server's memory rises with each peak of load and never comes down.
    /// `Housekeeping` calls this every round (30 seconds).
    package static func returnFreePages() {
        #if canImport(Glibc)
            _ = malloc_trim(0)
        #endif
    }
}
