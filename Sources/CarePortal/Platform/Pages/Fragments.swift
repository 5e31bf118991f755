import Synchronization

/// A part of a page that is rendered on its own from its own template, and remembered: a post on a
/// thread, a row of a list, a chart. Its template sees only the fragment's own values (never the page's
/// or the layout's), and the fragment is the cache key, so a remembered fragment is exactly what
/// rendering it again would give: anything that changes what it shows (who is reading, the time
/// shown, the post's text) is one of its values, and a different value is a different entry.
/// Forms in a fragment carry no CSRF token; their buttons name a form of the page that does
/// (`form="…" formaction="…"`).
protocol Fragment: Hashable, Sendable, Encodable {
    static var template: TemplateName { get }
}

/// Rendered fragments, kept within a memory budget. Two generations: entries are found in either,
/// and a full current generation becomes the previous one (the one before is dropped), so what is
/// still being read stays and the rest goes, with no per-entry bookkeeping.
final class FragmentCache: Sendable {
    /// Made only from a `Fragment`, which is `Sendable`; `AnyHashable` just cannot say so.
    private struct Key: Hashable, @unchecked Sendable {
        let fragment: AnyHashable
    }

    private struct Generations {
        var current: [Key: String] = [:]
        var previous: [Key: String] = [:]
        var currentBytes = 0
    }

    /// The most one generation holds, counted as twice each fragment's HTML (once rendered, about
    /// once more in its values).
    let bytesPerGeneration: Int
    private let generations = Mutex(Generations())

    init(bytesPerGeneration: Int = 16 << 20) {
        self.bytesPerGeneration = bytesPerGeneration
    }

    func html<F: Fragment>(_ fragment: F, render: (F) -> String) -> String {
        let key = Key(fragment: AnyHashable(fragment))
        let found: String? = generations.withLock { generations in
            if let html = generations.current[key] { return html }
            guard let html = generations.previous.removeValue(forKey: key) else { return nil }
            Self.add(html, for: key, to: &generations, budget: bytesPerGeneration)
            return html
        }
        if let found { return found }
        let html = render(fragment)
        generations.withLock { Self.add(html, for: key, to: &$0, budget: bytesPerGeneration) }
        return html
    }

    /// How many fragments are remembered.
    var count: Int {
        generations.withLock { $0.current.count + $0.previous.count }
    }

    private static func add(_ html: String, for key: Key, to generations: inout Generations, budget: Int) {
        let bytes = 2 * html.utf8.count
        guard bytes <= budget else { return }
        if generations.currentBytes + bytes > budget {
            generations.previous = generations.current
            generations.current = [:]
            generations.currentBytes = 0
        }
        if generations.current.updateValue(html, forKey: key) == nil {
            generations.currentBytes += bytes
        }
    }
}
