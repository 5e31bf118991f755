import Foundation
import Hummingbird
import Mustache
import Synchronization

/// A template the code renders, named by its path under `templates/` without `.mustache`. Features
/// declare theirs beside their pages and list them in their `templates`; start-up stops when one is missing.
package struct TemplateName: Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String

    package init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    package var description: String { rawValue }

    // The platform's own.
    package static let siteHeader = TemplateName("layouts/header")
    package static let pagination = TemplateName("partials/pagination")
    package static let error = TemplateName("errors/error")

    package static let platformTemplates: [TemplateName] = [.siteHeader, .pagination, .error, .chart] + appTemplates
}

/// A page's typed view model; the template reads only what it holds.
package protocol Page: Sendable, Encodable {
    static var template: TemplateName { get }
    var layout: Layout { get }
}

package struct MissingTemplates: Error, CustomStringConvertible {
    package let names: [String]
    package let directory: String
    package var description: String {
        "Templates missing from \(directory): \(names.joined(separator: ", ")). Run CarePortal from the project folder or set RESOURCES_DIR."
    }

    package init(names: [String], directory: String) {
        self.names = names
        self.directory = directory
    }
}

/// A template file swift-mustache could not read.
package struct TemplateNotParsed: Error, CustomStringConvertible {
    package let path: String
    package let error: any Error
    package var description: String { "template \(path): \(error)" }

    package init(path: String, error: any Error) {
        self.path = path
        self.error = error
    }
}

/// Renders pages from the mustache templates loaded once at start-up.
package struct PageRenderer: Sendable {
    package let library: MustacheLibrary
    package let fragments = FragmentCache()
    /// True in the test that renders every page with its text marked (`TemplateValues.box(_:marksText:)`):
    /// each template whose raw slot wrote text, rather than a `RenderedHTML`, is noted in `rawSlotsGivenText`.
    package let checksRawSlots: Bool
    private let textInRawSlots = TemplatesFound()

    /// Loads every template under `templatesDirectory`; throws when one of `required` (the platform's own
    /// are always required) is not among them.
    package init(templatesDirectory: String, required: [TemplateName] = [], checksRawSlots: Bool = false) async throws {
        self.checksRawSlots = checksRawSlots
        guard FileManager.default.fileExists(atPath: templatesDirectory) else {
            throw MissingTemplates(names: ["(the whole folder)"], directory: templatesDirectory)
        }
        var library = try Self.templates(in: templatesDirectory)
        // Closing tags cannot hold a "/", so pages extend the base layout by this short name.
        guard let layout = library.getTemplate(named: "layouts/page") else {
            throw MissingTemplates(names: ["layouts/page"], directory: templatesDirectory)
        }
        library.register(layout, named: "layout")
        // The people's web app's pages extend theirs as `app-layout`.
        guard let appLayout = library.getTemplate(named: TemplateName.appLayout.rawValue) else {
            throw MissingTemplates(names: [TemplateName.appLayout.rawValue], directory: templatesDirectory)
        }
        library.register(appLayout, named: "app-layout")
        self.library = library
        let missing = (TemplateName.platformTemplates + required).filter { library.getTemplate(named: $0.rawValue) == nil }.map(\.rawValue)
        guard missing.isEmpty else { throw MissingTemplates(names: missing, directory: templatesDirectory) }
    }

    /// Every `.mustache` file under `directory`, named by its path without the extension (as
    /// swift-mustache names them), each escaping its values with `HTMLEscaping`.
    private static func templates(in directory: String) throws -> MustacheLibrary {
        HTMLEscaping.registered
        let root = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        var library = MustacheLibrary(templates: [:])
        guard let files = FileManager.default.enumerator(atPath: root.path) else { return library }
        for case let path as String in files where path.hasSuffix(".mustache") {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            do {
                try library.register("{{% CONTENT_TYPE: \(HTMLEscaping.name) }}" + text, named: String(path.dropLast(".mustache".count)))
            } catch {
                throw TemplateNotParsed(path: path, error: error)
            }
        }
        return library
    }

    package func html<P: Page>(_ page: P) -> String {
        render(page, with: P.template)
    }

    /// The templates whose raw slots wrote text, since this renderer was made (see `checksRawSlots`).
    package var rawSlotsGivenText: Set<String> { textInRawSlots.names.withLock { $0 } }

    private func render(_ model: some Encodable, with template: TemplateName) -> String {
        guard let html = library.render(TemplateValues.box(model, marksText: checksRawSlots), withTemplate: template.rawValue) else {
            preconditionFailure("template \(template.rawValue) was checked at start-up")
        }
        if checksRawSlots, html.contains(TemplateValues.textMark) {
            textInRawSlots.names.withLock { _ = $0.insert(template.rawValue) }
        }
        return html
    }

    /// A fragment's HTML, rendered from its template once and then remembered, unless its type asks to be
    /// drawn each time (see `Fragment`).
    package func html<F: Fragment>(_ fragment: F) -> RenderedHTML {
        RenderedHTML(markup: F.isRemembered ? fragments.html(fragment, render: rendered) : rendered(fragment))
    }

    private func rendered<F: Fragment>(_ fragment: F) -> String {
        fragment.drawnHTML() ?? render(fragment, with: F.template)
    }

    /// Fragments one after another, each rendered once and remembered.
    package func list<F: Fragment>(_ fragments: [F]) -> FragmentList {
        FragmentList(html: RenderedHTML(joining: fragments.map(html)), isEmpty: fragments.isEmpty)
    }

    package func response<P: Page>(_ page: P, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html(page)))
        )
    }
}

/// A redirect after a form, so reloading the next page never sends the form again.
package func seeOther(_ path: String) -> Response {
    Response(status: .seeOther, headers: [.location: path])
}

/// Names of templates noted while pages render, shared by every copy of the renderer.
private final class TemplatesFound: Sendable {
    let names = Mutex<Set<String>>([])
}
