import Foundation
import Mustache
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// How view models reach the templates: encoded once into dictionaries, and fragments remembered.
@Suite struct TemplateValuesTests {
    enum Colour: String, Encodable { case deepBlue = "deep-blue" }

    struct Answering: MustacheParent, Encodable {
        func child(named name: String) -> Any? { name == "answer" ? "direct" : nil }
        func encode(to encoder: any Encoder) throws { Issue.record("a MustacheParent is passed through, never encoded") }
    }

    struct Inner: Encodable {
        let name: String
        let count: Int
        let missing: String?
    }

    struct Outer: Encodable {
        let title: String
        let isShown: Bool
        let ratio: Double
        let id: Int64
        let colour: Colour
        let inner: Inner
        let rows: [Inner]
        let nothing: Inner?
        let answering: Answering
        let fixed = "a constant"
    }

    @Test func aModelBecomesDictionariesWithNilsLeftOutAndRawValuesForEnums() throws {
        let model = Outer(
            title: "T",
            isShown: true,
            ratio: 0.5,
            id: 42,
            colour: .deepBlue,
            inner: Inner(name: "a", count: 1, missing: nil),
            rows: [Inner(name: "b", count: 2, missing: "here"), Inner(name: "c", count: 3, missing: nil)],
            nothing: nil,
            answering: Answering()
        )
        let boxed = try #require(TemplateValues.box(model) as? [String: Any])
        #expect(Set(boxed.keys) == ["title", "isShown", "ratio", "id", "colour", "inner", "rows", "answering", "fixed"])
        #expect(boxed["title"] as? String == "T")
        #expect(boxed["isShown"] as? Bool == true)
        #expect(boxed["ratio"] as? Double == 0.5)
        #expect(boxed["id"] as? Int64 == 42)
        #expect(boxed["colour"] as? String == "deep-blue")
        #expect(boxed["fixed"] as? String == "a constant")
        let inner = try #require(boxed["inner"] as? [String: Any])
        #expect(inner["name"] as? String == "a" && inner["count"] as? Int == 1 && inner["missing"] == nil)
        let rows = try #require(boxed["rows"] as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == ["b", "c"])
        #expect(rows[0]["missing"] as? String == "here" && rows[1]["missing"] == nil)
        #expect(boxed["answering"] is Answering)

        let template = try MustacheTemplate(
            string:
                "{{title}} {{#isShown}}shown{{/isShown}} {{colour}} {{#rows}}[{{name}}{{#missing}}:{{.}}{{/missing}}]{{/rows}} {{answering.answer}}{{^nothing}} none{{/nothing}}"
        )
        #expect(template.render(boxed) == "T shown deep-blue [b:here][c] direct none")
    }

    struct Row: Fragment {
        static let template = TemplateName.deskThreadRow
        let text: String
    }

    @Test func aFragmentIsRenderedOnceForEachDistinctValue() {
        let cache = FragmentCache()
        var renders = 0
        let render = { (row: Row) -> String in
            renders += 1; return "<p>\(row.text)</p>"
        }
        #expect(cache.html(Row(text: "one"), render: render) == "<p>one</p>")
        #expect(cache.html(Row(text: "one"), render: render) == "<p>one</p>")
        #expect(renders == 1)
        #expect(cache.html(Row(text: "two"), render: render) == "<p>two</p>")
        #expect(renders == 2 && cache.count == 2)
    }

    struct Chart: Fragment {
        static let template = TemplateName.deskPost
        let text: String
    }

    @Test func fragmentsOfDifferentTypesWithTheSameValuesAreKeptApart() {
        let cache = FragmentCache()
        #expect(cache.html(Row(text: "one"), render: { "<p>\($0.text)</p>" }) == "<p>one</p>")
        #expect(cache.html(Chart(text: "one"), render: { "<svg>\($0.text)</svg>" }) == "<svg>one</svg>")
        #expect(cache.html(Row(text: "one"), render: { _ in "rendered again" }) == "<p>one</p>")
        #expect(cache.html(Chart(text: "one"), render: { _ in "rendered again" }) == "<svg>one</svg>")
        #expect(cache.count == 2)
    }

    @Test func aFullGenerationTurnsOverEveryTypesEntries() {
        // Each entry counts 2 × 10 bytes, so a generation holds five, whatever their types.
        let cache = FragmentCache(bytesPerGeneration: 100)
        var renders = 0
        _ = cache.html(
            Chart(text: "old"),
            render: { _ in
                renders += 1; return String(repeating: "c", count: 10)
            }
        )
        for n in 0..<10 { _ = cache.html(Row(text: "\(n)"), render: { _ in String(repeating: "x", count: 10) }) }
        // Ten rows turned the generations over twice: the chart, left unread, has gone with the oldest.
        _ = cache.html(
            Chart(text: "old"),
            render: { _ in
                renders += 1; return String(repeating: "c", count: 10)
            }
        )
        #expect(renders == 2)
        #expect(cache.count <= 10)
    }

    @Test func theCacheStaysWithinItsBudgetAndKeepsWhatIsStillRead() {
        // Each entry counts 2 × 10 bytes, so a generation holds five.
        let cache = FragmentCache(bytesPerGeneration: 100)
        var renders = 0
        let render = { (row: Row) -> String in
            renders += 1; return String(repeating: "x", count: 10)
        }
        for n in 0..<5 { _ = cache.html(Row(text: "\(n)"), render: render) }
        for n in 5..<10 {
            _ = cache.html(Row(text: "\(n)"), render: render)
            _ = cache.html(Row(text: "0"), render: render) // read again and again: never dropped
        }
        #expect(renders == 10)
        #expect(cache.count <= 10)
        for n in 11..<20 { _ = cache.html(Row(text: "\(n)"), render: render) }
        #expect(cache.count <= 10, "two generations of five at most")
        _ = cache.html(Row(text: "1"), render: render)
        #expect(renders == 20, "an entry left unread through two generations is rendered again")
        _ = cache.html(Row(text: String(repeating: "y", count: 60)), render: { _ in String(repeating: "z", count: 60) })
        #expect(cache.count <= 10, "a fragment larger than the budget is rendered but not kept")
    }
}
