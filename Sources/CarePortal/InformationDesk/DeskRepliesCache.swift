import PortalPlatform

/// Threads' replies, kept under the thread's `repliesVersion`, which the database raises whenever
/// anything they show changes, through any server: a reply added, edited, moderated or hidden by
/// flags; the pseudonym, avatar, username or role of someone who replied. Reading a thread's replies,
/// with their authors, was most of the thread page's cost; a thread is read far more often than it changes.
enum DeskRepliesCache {
    struct Key: Hashable, Sendable {
        let threadID: Int64
        let repliesVersion: Int64
    }

    /// Kept replies' text, in bytes, before all are forgotten.
    static let budget = 32 << 20

    static func make() -> VersionedCache<Key, [DeskReply]> {
        VersionedCache(budget: budget) { replies in
            replies.reduce(0) { bytes, reply in
                bytes + 256 + reply.body.byteCount + (reply.moderationReason?.utf8.count ?? 0)
            }
        }
    }
}
