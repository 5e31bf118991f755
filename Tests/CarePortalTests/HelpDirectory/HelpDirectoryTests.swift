import Foundation
import HTTPTypes
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct PhoneNumberTests {
    @Test(arguments: ["(800) 662-4357", "1-800-662-4357", "800.662.4357", "+1 800 662 4357", "8006624357", " 1 (800) 662 4357 "])
    func aUSNumberTypedAnyCommonWayIsOneNumber(typed: String) throws {
        let number = try #require(PhoneNumber(typed))
        #expect(number.digits == "8006624357" && number.display == "1-800-662-4357" && number.dialable == "+18006624357")
    }

    @Test func localNumbersAndServiceCodesShowAsPeopleDialThem() {
        #expect(PhoneNumber("(615) 555-0134")?.display == "615-555-0134")
        #expect(PhoneNumber("988")?.display == "988" && PhoneNumber("988")?.dialable == "988")
        #expect(PhoneNumber("211")?.digits == "211")
    }

    @Test(arguments: ["", "12345", "555-0134", "(123) 456-7890", "800-062-4357", "1-800-662-4357 ext 2", "call 988", "+44 20 7946 0958", "9999"])
    func anythingElseIsRefused(typed: String) {
        #expect(PhoneNumber(typed) == nil)
    }
}

enum DirectorySteps {
    static func form(
        name: String = "Tennessee Recovery Line",
        kind: String = "helpline",
        phone: String = "(615) 555-0134",
        text: String = "",
        web: String = "",
        hours: String = "24 hours, 7 days",
        languages: String = "English",
        description: String = "Peer support.",
        address: String = "",
        reach: String = "states",
        states: String = "TN"
    ) -> [(String, String)] {
        [
            ("name", name), ("kind", kind), ("phone", phone), ("text_number", text), ("web_address", web), ("hours", hours),
            ("languages", languages), ("description", description), ("address", address), ("reach", reach), ("states", states)
        ]
    }

    static func count(_ portal: TestPortal) async throws -> Int {
        try await portal.database.read { db in try await db.count(in: "help_resources") }
    }
}

@Suite struct HelpDirectoryTests {
    @Test(arguments: TestEngines.all)
    func administratorsKeepTheDirectoryWithClearErrorsAndEveryChangeAudited(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await admin.get(SiteURL.helpDirectory.path).text.contains("The directory is empty"))
            #expect(try await admin.get(SiteURL.newHelpResource.path).status == .ok)

            let empty = try await admin.post(
                SiteURL.newHelpResource.path,
                form: DirectorySteps.form(
                    name: "",
                    kind: "",
                    phone: "",
                    hours: "",
                    description: "",
                    reach: ""
                )
            )
            #expect(empty.status == .unprocessableContent)
            for message in [
                "Enter the name", "Choose what kind of help this is", "Give at least one way to reach it", "Enter when it is open",
                "Enter a short description", "Choose where it applies"
            ] {
                #expect(empty.text.contains(message), "says \(message)")
            }
            let wrong = try await admin.post(
                SiteURL.newHelpResource.path,
                form: DirectorySteps.form(
                    kind: "care_location",
                    phone: "555-0134",
                    web: "http://example.org",
                    states: "TN, XX"
                )
            )
            for message in [PhoneNumber.problem, "starts with https://", "Enter the care location", "XX is not a US state code"] {
                #expect(wrong.text.contains(HTMLEscaping.escape(message)), "says \(message)")
            }
            #expect(wrong.text.contains(#"value="555-0134""#), "what was typed is kept")
            #expect(try await DirectorySteps.count(portal) == 0, "bad input stores nothing")

            let added = try await admin.post(SiteURL.newHelpResource.path, form: DirectorySteps.form(phone: "1 (615) 555 0134", states: "tn, ky"))
            #expect(added.status == .seeOther)
            let list = try await admin.get(SiteURL.helpDirectory.path).text
            #expect(list.contains("Tennessee Recovery Line") && list.contains("615-555-0134") && list.contains(#"href="tel:+16155550134""#))
            #expect(list.contains("KY, TN"))
            let resource = try #require(
                try await portal.database.read { db in
                    try await HelpDirectoryRepository().list(HelpDirectoryQuery(), on: db).items.first
                }
            )
            #expect(try await admin.get(SiteURL.helpDirectory.path + "?state=OH").text.contains("No entries match"))
            #expect(try await admin.get(SiteURL.helpDirectory.path + "?state=TN&kind=helpline&q=recovery").text.contains("Tennessee Recovery Line"))

            let changed = try await admin.post(
                SiteURL.editHelpResource(resource.id).path,
                form: DirectorySteps.form(
                    name: "Tennessee Recovery Line",
                    reach: "nationwide",
                    states: ""
                )
            )
            #expect(changed.status == .seeOther)
            #expect(try await admin.get(SiteURL.helpDirectory.path + "?state=OH").text.contains("Tennessee Recovery Line"), "now nationwide")
            #expect(try await admin.get(SiteURL.deleteHelpResource(resource.id).path).text.contains("Delete Tennessee Recovery Line?"))
            #expect(try await DirectorySteps.count(portal) == 1, "the confirmation deletes nothing")
            #expect(try await admin.post(SiteURL.deleteHelpResource(resource.id).path).status == .seeOther)
            #expect(try await DirectorySteps.count(portal) == 0)
            #expect(try await admin.post(SiteURL.deleteHelpResource(resource.id).path).status == .notFound)
            for action in [AuditAction.helpResourceAdded, .helpResourceChanged, .helpResourceDeleted] {
                #expect(try await portal.auditEntries(action: action).count == 1, "\(action) audited")
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func aMemberSeesTheNationwideEntriesAndHerStatesCrisisLinesFirst(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            for form in [
                DirectorySteps.form(
                    name: "FindTreatment.gov",
                    kind: "treatment_locator",
                    phone: "",
                    web: "https://findtreatment.gov",
                    reach: "nationwide"
                ),
                DirectorySteps.form(name: "Tennessee Recovery Line"),
                DirectorySteps.form(
                    name: "National Maternal Mental Health Hotline",
                    kind: "crisis_line",
                    phone: "1-833-852-6262",
                    reach: "nationwide"
                )
            ] {
                #expect(try await admin.post(SiteURL.newHelpResource.path, form: form).status == .seeOther)
            }
            let (tennessee, _) = try await AppClient.registered(portal, pseudonym: "Wren", ["state": "TN"])
            let (ohio, _) = try await AppClient.registered(portal, pseudonym: "Lark", ["state": "OH"])

            let hers = try await tennessee.get(SiteURL.apiResources.path).object
            #expect(hers["state"] as? String == "TN")
            #expect(
                (hers["resources"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                    == ["National Maternal Mental Health Hotline", "Tennessee Recovery Line", "FindTreatment.gov"]
            )
            let theirs = try await ohio.get(SiteURL.apiResources.path).object["resources"] as? [[String: Any]]
            #expect(theirs?.compactMap { $0["name"] as? String } == ["National Maternal Mental Health Hotline", "FindTreatment.gov"])
            let crisis = try await tennessee.get(SiteURL.apiResources.path + "?kind=crisis_line").object["resources"] as? [[String: Any]]
            #expect(
                crisis?.count == 1 && crisis?.first?["phone"] as? String == "1-833-852-6262"
                    && crisis?.first?["phone_dial"] as? String == "+18338526262"
            )
            #expect(try await tennessee.get(SiteURL.apiResources.path + "?kind=gossip").status == .badRequest)

            // After a low mood: the crisis lines and helplines for where she lives.
            let low = try await tennessee.send(.post, SiteURL.apiMoods.path, json: ["mood": "sad", "client_id": "low-1"]).object
            let offered = ((low["follow_up"] as? [String: Any])?["helplines"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(offered == ["National Maternal Mental Health Hotline", "Tennessee Recovery Line"])
            let elsewhere = try await ohio.send(.post, SiteURL.apiMoods.path, json: ["mood": "sad", "client_id": "low-2"]).object
            #expect(
                ((elsewhere["follow_up"] as? [String: Any])?["helplines"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                    == ["National Maternal Mental Health Hotline"]
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func withNoCrisisLineInTheDirectory988IsStillOffered(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (wren, _) = try await AppClient.registered(portal)
            let low = try await wren.send(.post, SiteURL.apiMoods.path, json: ["mood": "overwhelmed", "client_id": "low-1"]).object
            let helplines = try #require((low["follow_up"] as? [String: Any])?["helplines"] as? [[String: Any]])
            #expect(helplines.first?["phone"] as? String == "988" && helplines.first?["kind"] as? String == "crisis_line")
            #expect(try await FeedSteps.entries(wren, kind: "mood_follow_up").count == 1, "the follow-up stays in her feed")
        }
    }

    /// The name search finds an entry when every word typed starts one of its name's words, whatever their
    /// case or order, and keeps finding it by its current name after an edit, and not once it is deleted.
    @Test(arguments: TestEngines.all)
    func theNameSearchFindsEntriesByTheStartsOfTheirWords(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator)
            for form in [
                DirectorySteps.form(name: "Lakeview Women's Clinic", kind: "care_location", address: "1 Main Street"),
                DirectorySteps.form(name: "Tennessee Recovery Line")
            ] {
                #expect(try await admin.post(SiteURL.newHelpResource.path, form: form).status == .seeOther)
            }
            _ = try await admin.get(SiteURL.helpDirectory.path) // shows, and so clears, the message that it was added
            func found(_ search: String) async throws -> [String] {
                let path = SiteURL.helpDirectory.path + "?q=" + (search.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
                let page = try await admin.get(path).text
                return ["Lakeview Women's Clinic", "Tennessee Recovery Line"].filter { page.contains(HTMLEscaping.escape($0)) }
            }
            #expect(try await found("lake") == ["Lakeview Women's Clinic"])
            #expect(try await found("CLINIC women") == ["Lakeview Women's Clinic"], "any case, any order")
            #expect(try await found("women's") == ["Lakeview Women's Clinic"], "punctuation typed as in the name")
            #expect(try await found("view").isEmpty, "the middle of a word is not a start")
            #expect(try await found("lake recovery").isEmpty, "every word typed must match")
            #expect(try await found("re") == ["Tennessee Recovery Line"])
            let nothing = try await admin.get(SiteURL.helpDirectory.path + "?q=%26%26").text
            #expect(nothing.contains("No entries match") && !nothing.contains("Tennessee Recovery Line"), "punctuation alone matches nothing")

            let line = try #require(
                try await portal.database.read { db in
                    try await HelpDirectoryRepository().list(HelpDirectoryQuery(search: "tennessee"), on: db).items.first
                }
            )
            #expect(
                try await admin.post(SiteURL.editHelpResource(line.id).path, form: DirectorySteps.form(name: "Smoky Mountain Helpline")).status
                    == .seeOther
            )
            _ = try await admin.get(SiteURL.helpDirectory.path)
            #expect(try await found("tennessee").isEmpty, "found by its new name only")
            #expect(try await admin.get(SiteURL.helpDirectory.path + "?q=smoky").text.contains("Smoky Mountain Helpline"))
            #expect(try await admin.post(SiteURL.deleteHelpResource(line.id).path).status == .seeOther)
            let left = try await portal.database.read { db in
                try await db.count(in: "help_resource_words") { $0.where("resource_id", .equal, line.id) }
            }
            #expect(left == 0, "a deleted entry's words go with it")
        }
    }

    /// Migration 48 writes the word starts and the reach of the entries already in the directory.
    @Test(arguments: TestEngines.all)
    func entriesAddedBeforeTheSearchIndexAreFoundToo(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.database.transaction { db in
                try await db.drop(table: "help_resource_words").run()
                try await db.drop(table: "help_resource_reach").run()
                try await db.raw(
                    """
                    INSERT INTO help_resources (name, name_key, kind, phone, hours, languages, description, nationwide, created_at, updated_at)
                    VALUES ('Harbor Help', 'harbor help', 'helpline', '988', 'Always', 'English', 'Help.', \(bind: true), 0, 0),
                           ('Harbor Clinic', 'harbor clinic', 'care_location', '988', 'Always', 'English', 'Help.', \(bind: false), 0, 0)
                    """
                ).run()
                try await db.raw(
                    "INSERT INTO help_resource_states (resource_id, state) SELECT id, 'TN' FROM help_resources WHERE name = 'Harbor Clinic'"
                ).run()
                try await IndexHelpEntriesByWordAndState().apply(to: db, engine: engine)
                for table in KeepADirectoryPerProgram.searchTables { try await KeepADirectoryPerProgram.addProgram(to: table, on: db) }
            }
            let found = try await portal.database.read { db in
                try await HelpDirectoryRepository().list(HelpDirectoryQuery(search: "harb"), on: db)
            }
            #expect(found.items.map(\.name) == ["Harbor Clinic", "Harbor Help"] && found.totalCount == 2)
            for (state, names) in [("TN", ["Harbor Clinic", "Harbor Help"]), ("OH", ["Harbor Help"]), ("VI", ["Harbor Help"])] {
                let seen = try await portal.database.read { db in try await HelpDirectoryRepository().list(HelpDirectoryQuery(state: state), on: db) }
                #expect(seen.items.map(\.name) == names, "members in \(state) see \(names)")
            }
        }
    }

    /// The list by kind is read from migration 44's index of the kind order, which only serves while the
    /// repository's expression is the text it indexed: a change to the kinds needs a migration of its own.
    @Test func theKindOrderIsTheExpressionItsIndexHolds() {
        #expect(HelpDirectoryRepository.kindOrderSQL == IndexListsForOldPageLinks.helpKindOrder)
    }

    /// Pages by name and by kind, followed both ways by their cursors and opened by number, hold the entries
    /// in the order a sort of all of them gives: kinds in the app's order, names tied across kinds and
    /// within one, the id last. So do the pages of a name search (read from the index of word starts when
    /// sorted by name), alone and with the state and kind filters.
    @Test(arguments: TestEngines.all)
    func everyPageByNameAndByKindFollowsTheWholeDirectorysOrder(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let repository = HelpDirectoryRepository()
            let kinds = HelpResource.Kind.allCases
            var entries: [(id: Int64, kind: HelpResource.Kind, name: String, tennessee: Bool)] = []
            try await portal.database.transaction { db in
                for n in 0..<43 {
                    let kind = kinds[(n * 3) % kinds.count]
                    let name = ["Lakeview Line", "Harbor Help", "lakeview line", "Avenue Support"][n % 4]
                    let draft = HelpResourceDraft(
                        name: name,
                        kind: kind,
                        phone: PhoneNumber("988"),
                        textNumber: nil,
                        webAddress: nil,
                        hours: "Always",
                        languages: "English",
                        description: "Help.",
                        address: nil,
                        states: n % 5 == 0 ? ["TN"] : []
                    )
                    entries.append(
                        (try await repository.insert(draft, now: Date(timeIntervalSince1970: 1_800_000_000), on: db), kind, name, n % 5 == 0)
                    )
                }
            }
            let sortedByName = entries.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
            let sortedByKind = entries.sorted { ($0.kind.rank, $0.name.lowercased(), $0.id) < ($1.kind.rank, $1.name.lowercased(), $1.id) }
            let lakeview = { (entry: (id: Int64, kind: HelpResource.Kind, name: String, tennessee: Bool)) in
                entry.name.lowercased() == "lakeview line"
            }
            let cases: [(HelpDirectoryQuery, [Int64])] = [
                (HelpDirectoryQuery(sort: .name), sortedByName.map(\.id)),
                (HelpDirectoryQuery(sort: .kind), sortedByKind.map(\.id)),
                (HelpDirectoryQuery(search: "LAKE li", sort: .name), sortedByName.filter(lakeview).map(\.id)),
                (HelpDirectoryQuery(search: "lakeview", sort: .kind), sortedByKind.filter(lakeview).map(\.id)),
                (
                    HelpDirectoryQuery(kind: .helpline, search: "line", sort: .name),
                    sortedByName.filter { lakeview($0) && $0.kind == .helpline }.map(\.id)
                ),
                (HelpDirectoryQuery(state: "TN", search: "lakeview", sort: .name), sortedByName.filter(lakeview).map(\.id)),
                (HelpDirectoryQuery(state: "TN", sort: .name), sortedByName.map(\.id)),
                (HelpDirectoryQuery(state: "OH", sort: .name), sortedByName.filter { !$0.tennessee }.map(\.id)),
                (
                    HelpDirectoryQuery(kind: .helpline, state: "OH", sort: .name),
                    sortedByName.filter { !$0.tennessee && $0.kind == .helpline }.map(\.id)
                ),
                (HelpDirectoryQuery(state: "OH", sort: .kind), sortedByKind.filter { !$0.tennessee }.map(\.id)),
                (HelpDirectoryQuery(state: "OH", search: "lakeview", sort: .name), sortedByName.filter { lakeview($0) && !$0.tennessee }.map(\.id))
            ]
            for (base, expected) in cases {
                let what = "sort \(base.sort), search \(base.search), kind \(base.kind?.rawValue ?? "any"), state \(base.state ?? "any")"
                #expect(expected.count > 4, "\(what) spans pages")
                try await portal.database.read { db in
                    var query = base
                    query.page = PageRequest(.first, size: 4)
                    #expect(try await repository.list(query, on: db).totalCount == expected.count, "\(what) counted")
                    let (seen, backwards) = try await PageWalk.bothWays(size: 4, limit: expected.count) { request in
                        var one = base
                        one.page = request
                        let page = try await repository.list(one, on: db)
                        return page.replacingItems(page.items.map(\.id))
                    }
                    #expect(seen == expected, "\(what) through Next")
                    #expect(backwards == expected, "\(what) through Previous")
                    for number in [2, 5] where number * 4 <= expected.count {
                        query.page = PageRequest(number: number, size: 4)
                        #expect(
                            try await repository.list(query, on: db).items.map(\.id) == Array(expected[(number - 1) * 4..<number * 4]),
                            "\(what) page \(number)"
                        )
                    }
                }
            }
        }
    }
}

@Suite struct WordStartsTests {
    @Test func aNamesWordsAreSplitAtAnythingButLettersAndDigitsAndFolded() {
        #expect(WordStarts.words(of: "Lakeview Women's Clinic, 24/7") == ["lakeview", "women", "s", "clinic", "24", "7"])
        #expect(WordStarts.words(of: "Ødegård ØDEGÅRD") == ["ødegård"], "folded and each word once")
        #expect(WordStarts.words(of: "Cafe\u{301}") == WordStarts.words(of: "Caf\u{E9}"), "composed alike")
        #expect(WordStarts.words(of: " &&/ ").isEmpty)
    }

    @Test func everyStartOfEveryWordIsKeptOnce() {
        #expect(WordStarts.starts(of: "Oak oak Co") == ["o", "oa", "oak", "c", "co"])
        #expect(WordStarts.starts(of: "").isEmpty)
    }
}
