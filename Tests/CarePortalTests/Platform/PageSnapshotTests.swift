import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Every kind of page, as each demo account (`seed-demo`) sees it, compared with its stored HTML in
/// `__Snapshots__/pages/<account>/<page>.html`: a field renamed in a page's model that its template still
/// names then fails here instead of printing nothing.
///
/// The demo data is made with a fixed clock and a seeded generator, so every page comes out the same on
/// every run and on both engines; only the form tokens are written as `CSRF`. Each account's pages are
/// found by following the links of its pages from where it lands after signing in, one page for each
/// address pattern (its numbers as `N`), so a new page is snapshotted as soon as something links to it.
///
/// After a deliberate change to pages, `CAREPORTAL_RECORD_SNAPSHOTS=1 swift test --filter PageSnapshotTests`
/// writes the files afresh (with the SQLite engine alone, whose files the PostgreSQL run is then checked
/// against); read their diff before committing it.
@Suite struct PageSnapshotTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("__Snapshots__/pages")
    static var recording: Bool { ProcessInfo.processInfo.environment["CAREPORTAL_RECORD_SNAPSHOTS"] == "1" }
    /// More kinds of page than any account has; a walk that reaches it has lost its way.
    static let pageLimit = 250

    @Test(arguments: TestEngines.all)
    func everyKindOfPageMatchesItsSnapshot(engine: Database.Engine) async throws {
        let random = SeededRandom(seed: 20_261_207)
        try await TestPortal.run(engine, randomBytes: { random.bytes($0) }) { portal in
            var seen: Set<String> = []
            for (account, pages) in try await Self.demoPages(portal) { Self.check(pages, of: account, seen: &seen) }
            // A stored page no account reaches any more is a page that went away, or a link that did.
            let stored = Self.storedNames()
            for name in stored.subtracting(seen).sorted() {
                if Self.recording {
                    try FileManager.default.removeItem(at: Self.folder.appendingPathComponent(name))
                } else {
                    Issue.record("\(name) is stored but no demo account reaches that page any more")
                }
            }
        }
    }

    /// Every page of the walk again, rendered with every string marked (`PageRenderer.checksRawSlots`): a
    /// `{{{…}}}` slot that writes a plain string, where it takes only `RenderedHTML`, shows the mark as it is.
    @Test(arguments: TestEngines.all)
    func noTemplateWritesTextIntoARawSlot(engine: Database.Engine) async throws {
        let random = SeededRandom(seed: 20_261_207)
        try await TestPortal.run(engine, randomBytes: { random.bytes($0) }, checksRawSlots: true) { portal in
            let pages = try await Self.demoPages(portal).reduce(0) { $0 + $1.pages.count }
            #expect(pages > 200, "\(pages) pages walked")
            #expect(portal.portal.pages.rawSlotsGivenText.isEmpty, "text in a raw slot of \(portal.portal.pages.rawSlotsGivenText.sorted())")
        }
    }

    /// The demo data seeded, and the pages of each demo account (by the name its snapshots are kept under) and
    /// of anyone before signing in ("signed-out": the staff sign-in and each web app's, and what they link to).
    static func demoPages(_ portal: TestPortal) async throws -> [(account: String, pages: [String: String])] {
        let credentials = try await DemoSeeder(
            database: portal.portal.database,
            dependencies: portal.portal.dependencies,
            sealer: portal.portal.sealer,
            settings: portal.portal.settings
        ).seed()
        var anonymous = Visitor(portal: portal)
        let before = try await walk(from: ["/sign-in"] + credentials.filter { $0.role == nil }.map(\.signInPath), as: &anonymous)
        #expect(before.count >= 6, "\(before.count) kinds of page before signing in")
        var found = [(account: "signed-out", pages: before)]
        for credential in credentials {
            var visitor = Visitor(portal: portal)
            let pages = try await walk(from: [try await signIn(credential, as: &visitor)], as: &visitor)
            #expect(pages.count >= 3 && pages.count < pageLimit, "\(credential.title): \(pages.count) kinds of page")
            found.append((account: fileName(credential.title), pages: pages))
        }
        return found
    }

    @Test func snapshotsAreComparedAsTheyAreAndAMissingOneFails() throws {
        // The walk's naming and the normalising that every comparison relies on.
        #expect(Self.kind(of: "/desk/threads/12?filter=all") == "desk_threads_N")
        #expect(Self.kind(of: "/") == "home")
        #expect(Self.kind(of: "/app/care/memories/3/files/7") == "app_care_memories_N_files_N")
        let page =
            #"<form><input type="hidden" name="csrf_token" value="a1b2"><input type="hidden" name="client_id" value="9f"><a href="/x?a=1&amp;b=2">x</a></form>"#
        #expect(
            Self.normalised(page)
                == #"<form><input type="hidden" name="csrf_token" value="CSRF"><input type="hidden" name="client_id" value="CLIENT-ID"><a href="/x?a=1&amp;b=2">x</a></form>"#
        )
        #expect(Self.links(in: page) == ["/x?a=1&b=2"])
        #expect(Self.fileName("Care receiver (web app)") == "care-receiver-web-app")
        guard !Self.recording else { return }
        #expect(throws: SnapshotMissing.self) { try Self.compare("<p>never stored</p>", with: "nobody/nothing.html") }
    }

    // MARK: Walking

    /// Signs `visitor` in as the demo account; where it lands.
    static func signIn(_ credential: DemoSeeder.Credential, as visitor: inout Visitor) async throws -> String {
        if credential.role != nil {
            try await visitor.signIn(username: credential.username, password: credential.password)
            return "/"
        }
        try await visitor.get(credential.signInPath)
        let answer = try await visitor.post(credential.signInPath, form: [("identifier", credential.username), ("password", credential.password)])
        #expect(answer.status == .seeOther, "\(credential.title) could not sign in to the web app")
        return answer.location ?? "/app"
    }

    /// The pages reached from `starts` by following links, one for each kind.
    static func walk(from starts: [String], as visitor: inout Visitor) async throws -> [String: String] {
        var pages: [String: String] = [:]
        var queue = starts
        var queued = Set(starts.map(kind(of:)))
        while !queue.isEmpty, pages.count < pageLimit {
            let path = queue.removeFirst()
            let response = try await visitor.get(path)
            // A page that sends its visitor on (the home page of a role with a page of its own).
            if [.seeOther, .found].contains(response.status), let location = response.location, followed(location) {
                if queued.insert(kind(of: location)).inserted { queue.append(location) }
                continue
            }
            guard response.status == .ok, response.headers[.contentType]?.hasPrefix("text/html") == true else { continue }
            let html = response.text
            pages[kind(of: path)] = html
            for link in links(in: html) where followed(link) {
                let linkKind = kind(of: link)
                if queued.insert(linkKind).inserted { queue.append(link) }
            }
        }
        return pages
    }

    /// The addresses of a page's links within the portal, in the order they appear.
    static func links(in html: String) -> [String] {
        html.matches(of: /href="(\/[^"]*)"/).map {
            String($0.output.1).replacingOccurrences(of: Visitor.escapedTextMark, with: "").replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    /// Links to other pages: not files, downloads, the API or signing out.
    static func followed(_ link: String) -> Bool {
        let path = link.split(separator: "?", maxSplits: 1).first.map(String.init) ?? link
        guard !link.hasPrefix("//") else { return false }
        let skipped = ["/static/", "/api/", "/metrics", "/health", "/manifest"]
        if skipped.contains(where: { path.hasPrefix($0) }) { return false }
        let downloads = [
            "sign-out", "export", "download", ".csv", ".pdf", ".zip", ".json", "/files/", "/photo", "/video", "/picture", "/illustration", "/avatar",
            "/report", "/calendar.ics"
        ]
        return !downloads.contains(where: { path.contains($0) })
    }

    /// A page's kind: its path, numbers as `N`, slashes as `_`.
    static func kind(of link: String) -> String {
        let path = link.split(separator: "?", maxSplits: 1).first.map(String.init) ?? link
        let parts = path.split(separator: "/").map { $0.allSatisfy(\.isNumber) ? "N" : String($0) }
        return parts.isEmpty ? "home" : parts.joined(separator: "_")
    }

    static func fileName(_ title: String) -> String {
        title.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
    }

    // MARK: Comparing

    /// The page with what changes at every showing written as one word: the form tokens, and the keys a
    /// form of the web app carries so that sending it twice makes one record. And the newest notification's
    /// id that "Mark all as read" carries: PostgreSQL's sequences skip the numbers that inserts which
    /// found their row already there took, so the demo's feeds end on different ids on the two engines.
    static func normalised(_ html: String) -> String {
        html.replacing(/name="csrf_token" value="[^"]*"/, with: #"name="csrf_token" value="CSRF""#)
            .replacing(/name="client_id" value="[^"]*"/, with: #"name="client_id" value="CLIENT-ID""#)
            .replacing(/name="up_to_id" value="[0-9]*"/, with: #"name="up_to_id" value="N""#)
    }

    struct SnapshotMissing: Error, CustomStringConvertible {
        let name: String
        var description: String { "no stored snapshot \(name): record it with CAREPORTAL_RECORD_SNAPSHOTS=1" }
    }

    /// Compares each of `account`'s pages with its snapshot, noting its name in `seen`.
    static func check(_ pages: [String: String], of account: String, seen: inout Set<String>) {
        for (kind, html) in pages.sorted(by: { $0.key < $1.key }) {
            let name = "\(account)/\(kind).html"
            seen.insert(name)
            do {
                try compare(normalised(html), with: name)
            } catch {
                Issue.record(error)
            }
        }
    }

    static func compare(_ html: String, with name: String) throws {
        let file = folder.appendingPathComponent(name)
        if recording {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try html.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        guard let stored = try? String(contentsOf: file, encoding: .utf8) else { throw SnapshotMissing(name: name) }
        guard stored != html else { return }
        let (old, new) = (stored.components(separatedBy: "\n"), html.components(separatedBy: "\n"))
        let line = zip(old, new).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(old.count, new.count)
        Issue.record(
            """
            \(name) differs from its snapshot from line \(line + 1):
            stored: \(line < old.count ? old[line] : "(the end)")
            now:    \(line < new.count ? new[line] : "(the end)")
            """
        )
    }

    static func storedNames() -> Set<String> {
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var names: Set<String> = []
        for case let file as URL in files where file.pathExtension == "html" {
            names.insert(String(file.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1)))
        }
        return names
    }
}

/// Random bytes from a fixed seed (SplitMix64), so the demo's codes and tokens are the same on every run.
final class SeededRandom: Sendable {
    private let state: NIOLockedValueBox<UInt64>

    init(seed: UInt64) {
        state = NIOLockedValueBox(seed)
    }

    func bytes(_ count: Int) -> [UInt8] {
        state.withLockedValue { state in
            (0..<count).map { _ in
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return UInt8(truncatingIfNeeded: z ^ (z >> 31))
            }
        }
    }
}
