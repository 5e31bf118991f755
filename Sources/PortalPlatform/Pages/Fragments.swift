import Mustache
import Synchronization

/// A part of a page that is rendered on its own from its own template, and remembered: a post on a
/// thread, a row of a list, a chart. Its template sees only the fragment's own values (never the page's
/// or the layout's), and the fragment is the cache key, so a remembered fragment is exactly what
/// rendering it again would give: anything that changes what it shows (who is reading, the time
/// shown, the post's text) is one of its values, and a different value is a different entry.
/// Forms in a fragment carry no CSRF token; their buttons name a form of the page that does
/// (`form="…" formaction="…"`).
package protocol Fragment: Hashable, Sendable, Encodable {
    static var template: TemplateName { get }

    /// The fragment's HTML written in Swift, for a fragment too large for its template to write
    /// quickly (a chart of a year by day holds thousands of shapes, and a template costs a lookup and
    /// several run-time casts for each value); nil, the default, renders the template.
    func drawnHTML() -> String?

    /// Whether the rendered fragment is kept for the next time the same value is shown (true, the
    /// default). A fragment that is rarely shown twice and costs about as much to hash and compare as
    /// to draw (a chart of chosen numbers) is drawn each time instead.
    static var isRemembered: Bool { get }
}

extension Fragment {
    package func drawnHTML() -> String? { nil }
    package static var isRemembered: Bool { true }
}

/// Rendered fragments shown one after another (a list's rows, a thread's replies), joined once into
/// one piece of HTML. A template writes it with `{{{rows.html}}}` and asks `{{#rows.isEmpty}}`; iterating
/// over the pieces instead costs the template a lookup and a cast for each.
package struct FragmentList: Sendable, Encodable, MustacheParent {
    package let html: RenderedHTML
    package let isEmpty: Bool

    package func child(named name: String) -> Any? {
        switch name {
        case "html": html.markup
        case "isEmpty": isEmpty
        default: nil
        }
    }

    package init(html: RenderedHTML, isEmpty: Bool) {
        self.html = html
        self.isEmpty = isEmpty
    }
}

/// Rendered fragments, kept within a memory budget. Two generations: entries are found in either,
/// and a full current generation becomes the previous one (the one before is dropped), so what is
/// still being read stays and the rest goes, with no per-entry bookkeeping.
///
/// Each fragment type has a store of its own, keyed by the fragment itself with its own `Hashable`
/// conformance: a lookup hashes and compares the values directly, with no type-erased box and no
/// run-time cast per comparison.
package final class FragmentCache: Sendable {
    /// One fragment type's entries. Only touched under the cache's lock.
    private final class Store<F: Fragment>: Rotating, @unchecked Sendable {
        package var current: [F: String] = [:]
        package var previous: [F: String] = [:]

        package func rotate() {
            previous = current
            current = [:]
        }

        package var count: Int { current.count + previous.count }
    }

    private struct Generations {
        package var stores: [ObjectIdentifier: any Rotating] = [:]
        package var currentBytes = 0

        package mutating func store<F: Fragment>(for _: F.Type) -> Store<F> {
            let id = ObjectIdentifier(F.self)
            if let store = stores[id] { return unsafeDowncast(store as AnyObject, to: Store<F>.self) }
            let store = Store<F>()
            stores[id] = store
            return store
        }

        /// Keeps `html` in the current generation, starting a new generation first when it would not fit.
        package mutating func add<F: Fragment>(_ html: String, for fragment: F, in store: Store<F>, budget: Int) {
            let bytes = 2 * html.utf8.count
            guard bytes <= budget else { return }
            if currentBytes + bytes > budget {
                for other in stores.values { other.rotate() }
                currentBytes = 0
            }
            if store.current.updateValue(html, forKey: fragment) == nil {
                currentBytes += bytes
            }
        }
    }

    /// The most one generation holds, counted as twice each fragment's HTML (once rendered, about
    /// once more in its values).
    package let bytesPerGeneration: Int
    private let generations = Mutex(Generations())

    package init(bytesPerGeneration: Int = 16 << 20) {
        self.bytesPerGeneration = bytesPerGeneration
    }

    package func html<F: Fragment>(_ fragment: F, render: (F) -> String) -> String {
        let found: String? = generations.withLock { generations in
            let store = generations.store(for: F.self)
            if let html = store.current[fragment] { return html }
            guard let html = store.previous.removeValue(forKey: fragment) else { return nil }
            generations.add(html, for: fragment, in: store, budget: bytesPerGeneration)
            return html
        }
        if let found { return found }
        let html = render(fragment)
        generations.withLock { generations in
            generations.add(html, for: fragment, in: generations.store(for: F.self), budget: bytesPerGeneration)
        }
        return html
    }

    /// How many fragments are remembered.
    package var count: Int {
        generations.withLock { $0.stores.values.reduce(0) { $0 + $1.count } }
    }
}

/// A fragment store, whatever its type, as the cache turns over its generations.
private protocol Rotating: AnyObject {
    func rotate()
    var count: Int { get }
}
