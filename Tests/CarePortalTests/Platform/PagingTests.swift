import Foundation
import HTTPTypes
import Testing
import SQLKit
@testable import CarePortal
@testable import PortalPlatform

/// Lists seek to their pages: every page, forwards and backwards, holds exactly the rows `OFFSET` would
/// have given at its place, with ties on the sort key, with filters, on both engines.
@Suite struct PagingTests {
    static let memberCount = 137

    /// Members straight through SQL: creation times tie in sevens, last activity in many ways, a third
    /// of them disabled, spread over three cohorts.
    private static func addMembers(_ portal: TestPortal) async throws -> [Int64] {
        try await portal.database.transaction { db in
            var cohorts: [Int64] = []
            for month in ["2027-01", "2027-02", "2027-03"] {
                try await db.insert(into: "cohorts").columns("due_month", "created_at").values(SQLBind(month), SQLBind(Int64(0))).run()
                cohorts.append(
                    try #require(try await db.select().column("id").from("cohorts").where("due_month", .equal, month).first())
                        .decode(column: "id", as: Int64.self)
                )
            }
            for n in 0..<memberCount {
                let name = "Member_\(String(format: "%03d", (n * 37) % memberCount))"
                try await db.insert(into: "members")
                    .columns(
                        "pseudonym",
                        "pseudonym_key",
                        "password_hash",
                        "avatar",
                        "due_date",
                        "cohort_id",
                        "recovery_email",
                        "recovery_email_key",
                        "security_question",
                        "security_answer_hash",
                        "bio",
                        "status",
                        "created_at",
                        "updated_at",
                        "last_active_at"
                    )
                    .values(
                        SQLBind(name),
                        SQLBind(name.lowercased()),
                        SQLBind("x"),
                        SQLBind("sun"),
                        SQLBind("2027-01-15"),
                        SQLBind(cohorts[n % 3]),
                        SQLBind("m\(n)@example.org"),
                        SQLBind("m\(n)@example.org"),
                        SQLBind("Q"),
                        SQLBind("x"),
                        SQLBind(""),
                        SQLBind(n % 3 == 1 ? "disabled" : "active"),
                        SQLBind(Int64(1_000_000 + n / 7)),
                        SQLBind(Int64(0)),
                        SQLBind(Int64(2_000_000 + (n * 11) % 5))
                    )
                    .run()
            }
            return cohorts
        }
    }

    /// The ids `OFFSET` gives for one page of the members list.
    private static func offsetPage(_ query: MemberListQuery, offset: Int, limit: Int? = nil, on db: any SQLDatabase) async throws -> [Int64] {
        let direction = query.descending ? "DESC" : "ASC"
        var conditions: [String] = []
        if let cohort = query.cohortID { conditions.append("cohort_id = \(cohort)") }
        if let status = query.status { conditions.append("status = '\(status.rawValue)'") }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try await db.raw(
            """
            SELECT id FROM members \(unsafeRaw: filter) ORDER BY \(unsafeRaw: query.sort.column) \(unsafeRaw: direction), id \(unsafeRaw: direction)
            LIMIT \(literal: limit ?? query.page.size) OFFSET \(literal: offset)
            """
        ).all().map { try $0.decode(column: "id", as: Int64.self) }
    }

    /// Follows "next" from the first page and "previous" from the last, checking every page against `OFFSET`.
    private static func walk(_ base: MemberListQuery, in portal: TestPortal) async throws {
        try await portal.database.read { db in
            let label =
                "\(base.sort) \(base.descending ? "desc" : "asc") cohort \(base.cohortID.map(String.init) ?? "-") \(base.status?.rawValue ?? "-")"
            let everyone = try await offsetPage(base, offset: 0, limit: 10_000, on: db)
            var query = base
            var seen: [Int64] = []
            var page = try await MemberRepository().list(query, on: db)
            while true {
                let ids = page.items.map(\.id)
                let start = try #require(page.startIndex, "\(label)")
                #expect(ids == (try await offsetPage(query, offset: start - 1, on: db)), "\(label) forward at \(start)")
                #expect(start == seen.count + 1, "\(label)")
                #expect(page.totalCount == everyone.count)
                seen += ids
                guard page.hasNext, let last = page.lastCursor else { break }
                query.page = PageRequest(.after(last), size: base.page.size)
                page = try await MemberRepository().list(query, on: db)
            }
            #expect(seen == everyone, "\(label): forwards reaches every row once, in order")

            query.page = PageRequest(.last, size: base.page.size)
            page = try await MemberRepository().list(query, on: db)
            var reached: [Int64] = []
            while true {
                let ids = page.items.map(\.id)
                let start = try #require(page.startIndex, "\(label)")
                #expect(ids == (try await offsetPage(query, offset: start - 1, on: db)), "\(label) backward at \(start)")
                reached = ids + reached.filter { !ids.contains($0) }
                guard page.hasPrevious, let first = page.firstCursor else { break }
                query.page = PageRequest(.before(first), size: base.page.size)
                page = try await MemberRepository().list(query, on: db)
            }
            #expect(reached == everyone, "\(label): backwards reaches every row, in order")

            // An old page number gives the rows it always did.
            for number in [1, 2, 4] {
                query.page = PageRequest(number: number, size: base.page.size)
                let numbered = try await MemberRepository().list(query, on: db)
                #expect(
                    numbered.items.map(\.id) == (try await offsetPage(query, offset: (number - 1) * base.page.size, on: db)),
                    "\(label) page \(number)"
                )
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func everyPageOfTheMembersListIsTheRowsOffsetWouldGive(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let cohorts = try await Self.addMembers(portal)
            for sort in MemberSort.allCases {
                for descending in [false, true] {
                    for (cohort, status) in [(nil, nil), (cohorts[1], nil), (nil, Member.Status.disabled), (cohorts[0], Member.Status.active)] {
                        var query = MemberListQuery()
                        query.sort = sort
                        query.descending = descending
                        query.cohortID = cohort
                        query.status = status
                        query.page = PageRequest(.first, size: 10)
                        try await Self.walk(query, in: portal)
                    }
                }
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func theAuditLogPagesThroughEntriesOfTheSameMillisecond(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            // One batch: every entry has the same time, so only the id orders them.
            let events = (0..<83).map { n in
                AuditEvent(
                    actor: n % 3 == 0 ? AuditActor(accountID: 7, role: "administrator", name: "Ann.Admin") : .system,
                    action: n % 4 == 0 ? .signOut : .signIn,
                    recordType: "member",
                    recordID: "\(n % 5)",
                    origin: .commandLine
                )
            }
            try await portal.database.transaction { db in try await portal.portal.audit.record(events, on: db) }
            // Every filter pages alike (on PostgreSQL each is planned for its values: `StatementPlanning`).
            let filters: [(person: String, action: AuditAction?, record: String, sql: String)] = [
                ("", nil, "", ""), ("", .signOut, "", "WHERE action = 'sign_out'"), ("ann.ADMIN", nil, "", "WHERE actor_name = 'Ann.Admin'"),
                ("7", .signIn, "", "WHERE actor_account_id = 7 AND action = 'sign_in'"), ("", nil, "member:2", "WHERE record_id = '2'")
            ]
            try await portal.database.read { db in
                for (person, action, record, filter) in filters {
                    var query = AuditQuery()
                    query.person = person
                    query.action = action
                    query.record = record
                    let everyone = try await db.raw("SELECT id FROM audit_log \(unsafeRaw: filter) ORDER BY occurred_at DESC, id DESC")
                        .all().map { try $0.decode(column: "id", as: Int64.self) }
                    #expect(everyone.count > 16, "\(filter) keeps three pages or more")
                    query.page = PageRequest(.first, size: 8)
                    var seen: [Int64] = []
                    var page = try await portal.portal.audit.list(query, on: db)
                    while true {
                        let start = try #require(page.startIndex)
                        #expect(page.items.map(\.id) == Array(everyone[(start - 1)..<min(everyone.count, start - 1 + 8)]))
                        seen += page.items.map(\.id)
                        guard page.hasNext, let last = page.lastCursor else { break }
                        query.page = PageRequest(.after(last), size: 8)
                        page = try await portal.portal.audit.list(query, on: db)
                    }
                    #expect(seen == everyone)
                    // An old page number skips as many rows.
                    query.page = PageRequest(number: 2, size: 8)
                    #expect(try await portal.portal.audit.list(query, on: db).items.map(\.id) == Array(everyone[8..<16]))
                    // And back from the end.
                    query.page = PageRequest(.last, size: 8)
                    page = try await portal.portal.audit.list(query, on: db)
                    var reached: [Int64] = []
                    while true {
                        let start = try #require(page.startIndex)
                        #expect(page.items.map(\.id) == Array(everyone[(start - 1)..<(start - 1 + page.items.count)]))
                        reached = page.items.map(\.id) + reached.filter { id in !page.items.contains { $0.id == id } }
                        guard page.hasPrevious, let first = page.firstCursor else { break }
                        query.page = PageRequest(.before(first), size: 8)
                        page = try await portal.portal.audit.list(query, on: db)
                    }
                    #expect(reached == everyone)
                }
            }
        }
    }

    /// Every page of the members list joined to cohorts, through the shared seek with and without "ids
    /// first", forwards, backwards and by number: the rows `OFFSET` gives at its place.
    private static func walkIDsFirst(
        _ query: MemberListQuery,
        idsFirst: Bool,
        on db: any SQLDatabase
    ) async throws -> (forwards: [Int64], backwards: [Int64]) {
        let label =
            "\(query.sort) \(query.descending ? "desc" : "asc") cohort \(query.cohortID.map(String.init) ?? "-") \(query.status?.rawValue ?? "-") ids first \(idsFirst)"
        let key: SortKey = query.sort == .pseudonym ? .text(query.sort.column, table: "m") : .integer(query.sort.column, table: "m")
        let order = ListOrder(query.sort.rawValue, keys: [key, .integer("id", table: "m")], descending: query.descending)
        func filter(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            if let cohort = query.cohortID { builder.where(SQLColumn("cohort_id", table: "m"), .equal, SQLBind(cohort)) }
            if let status = query.status { builder.where(SQLColumn("status", table: "m"), .equal, SQLBind(status.rawValue)) }
            return builder
        }
        func members(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            filter(builder.from(SQLAlias(SQLIdentifier("members"), as: SQLIdentifier("m"))))
        }
        func page(_ request: PageRequest) async throws -> PageOf<Int64> {
            try await db.seek(
                request,
                order: order,
                columns: [SQLColumn("id", table: "m"), SQLColumn(query.sort.column, table: "m"), SQLColumn("due_month", table: "c")],
                rows: {
                    members($0).join(
                        SQLAlias(SQLIdentifier("cohorts"), as: SQLIdentifier("c")),
                        method: SQLJoinMethod.inner,
                        on: SQLColumn("cohort_id", table: "m"),
                        .equal,
                        SQLColumn("id", table: "c")
                    )
                },
                counted: members,
                idsFirst: idsFirst ? members : nil,
                decode: { row in
                    // The joined column is there: the rows were read with their joins.
                    #expect(try row.decode(column: "due_month", as: String.self).hasPrefix("2027-"))
                    return try row.decode(column: "id", as: Int64.self)
                }
            )
        }
        let size = query.page.size
        var forwards: [Int64] = []
        var current = try await page(PageRequest(.first, size: size))
        while true {
            let start = try #require(current.startIndex, "\(label)")
            #expect(current.items == (try await offsetPage(query, offset: start - 1, on: db)), "\(label) forward at \(start)")
            forwards += current.items
            guard current.hasNext, let last = current.lastCursor else { break }
            current = try await page(PageRequest(.after(last), size: size))
        }
        var backwards: [Int64] = []
        current = try await page(PageRequest(.last, size: size))
        while true {
            let start = try #require(current.startIndex, "\(label)")
            #expect(current.items == (try await offsetPage(query, offset: start - 1, on: db)), "\(label) backward at \(start)")
            backwards = current.items + backwards.filter { !current.items.contains($0) }
            guard current.hasPrevious, let first = current.firstCursor else { break }
            current = try await page(PageRequest(.before(first), size: size))
        }
        for number in [1, 3] {
            #expect(
                try await page(PageRequest(number: number, size: size)).items == (try await offsetPage(query, offset: (number - 1) * size, on: db)),
                "\(label) page \(number)"
            )
        }
        return (forwards, backwards)
    }

    @Test(arguments: TestEngines.all)
    func readingIDsFirstGivesTheSamePagesAsThePlainSeekAndOffset(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let cohorts = try await Self.addMembers(portal)
            try await portal.database.read { db in
                for sort in MemberSort.allCases {
                    for descending in [false, true] {
                        for (cohort, status) in [(nil, nil), (cohorts[2], nil), (nil, Member.Status.active), (cohorts[1], Member.Status.disabled)] {
                            var query = MemberListQuery()
                            query.sort = sort
                            query.descending = descending
                            query.cohortID = cohort
                            query.status = status
                            query.page = PageRequest(.first, size: 9)
                            let everyone = try await Self.offsetPage(query, offset: 0, limit: 10_000, on: db)
                            let plain = try await Self.walkIDsFirst(query, idsFirst: false, on: db)
                            let idsFirst = try await Self.walkIDsFirst(query, idsFirst: true, on: db)
                            #expect(!everyone.isEmpty)
                            #expect(plain.forwards == everyone && plain.backwards == everyone)
                            #expect(idsFirst.forwards == plain.forwards && idsFirst.backwards == plain.backwards)
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func linksMoveByCursorAndOldPageNumbersStillWork(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await Self.addMembers(portal)
            var (admin, _) = try await portal.signedIn(.administrator)
            let first = try await admin.get("/members?sort=pseudonym&order=asc")
            #expect(first.text.contains("Showing 1 to 25 of \(Self.memberCount) members"))
            #expect(!first.text.contains("rel=\"prev\""))
            let next = try #require(Self.link("next", in: first.text))
            #expect(next.contains("after=") && next.contains("sort=pseudonym"))
            let second = try await admin.get(next)
            #expect(second.status == .ok)
            #expect(second.text.contains("Showing 26 to 50 of \(Self.memberCount) members"))
            #expect(second.text.contains(">Member_025</a>") && !second.text.contains(">Member_024</a>"))
            let previous = try #require(Self.link("prev", in: second.text))
            #expect(previous.contains("before="))
            #expect(try await admin.get(previous).text.contains("Showing 1 to 25 of \(Self.memberCount) members"))

            // A bookmark from before cursors opens the same rows.
            let bookmarked = try await admin.get("/members?sort=pseudonym&order=asc&page=2")
            #expect(bookmarked.text.contains("Showing 26 to 50 of \(Self.memberCount) members"))
            #expect(bookmarked.text.contains(">Member_025</a>"))
            let last = try await admin.get("/members?sort=pseudonym&order=asc&page=last")
            #expect(last.text.contains("Showing 113 to 137 of \(Self.memberCount) members"))
            #expect(last.text.contains(">Member_136</a>") && !last.text.contains("rel=\"next\""))
        }
    }

    @Test(arguments: TestEngines.all)
    func aListLongerThanItsCountSaysMoreThanAndStillKnowsItsPlace(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.database.transaction { db in
                try await db.insert(into: "cohorts").columns("due_month", "created_at").values(SQLBind("2027-01"), SQLBind(Int64(0))).run()
                let cohort = try #require(try await db.select().column("id").from("cohorts").first()).decode(column: "id", as: Int64.self)
                for chunk in stride(from: 0, to: PageRequest.countLimit + 30, by: 200) {
                    let insert = db.insert(into: "members")
                        .columns(
                            "pseudonym",
                            "pseudonym_key",
                            "password_hash",
                            "avatar",
                            "due_date",
                            "cohort_id",
                            "recovery_email",
                            "recovery_email_key",
                            "security_question",
                            "security_answer_hash",
                            "bio",
                            "status",
                            "created_at",
                            "updated_at",
                            "last_active_at"
                        )
                    for n in chunk..<min(chunk + 200, PageRequest.countLimit + 30) {
                        let name = "Long_\(String(format: "%04d", n))"
                        insert.values(
                            SQLBind(name),
                            SQLBind(name.lowercased()),
                            SQLBind("x"),
                            SQLBind("sun"),
                            SQLBind("2027-01-15"),
                            SQLBind(cohort),
                            SQLBind("l\(n)@example.org"),
                            SQLBind("l\(n)@example.org"),
                            SQLBind("Q"),
                            SQLBind("x"),
                            SQLBind(""),
                            SQLBind("active"),
                            SQLBind(Int64(1_000_000 + n)),
                            SQLBind(Int64(0)),
                            SQLBind(Int64(0))
                        )
                    }
                    try await insert.run()
                }
            }
            var (admin, _) = try await portal.signedIn(.administrator)
            let first = try await admin.get("/members?sort=pseudonym&order=asc")
            #expect(first.text.contains("Showing 1 to 25 of more than 1,000 members"))
            let second = try await admin.get(try #require(Self.link("next", in: first.text)))
            #expect(second.text.contains("Showing 26 to 50 of more than 1,000 members"))
            #expect(second.text.contains(">Long_0025</a>"))
            // Past the count's limit a page is not counted: it says "more than" from its place, and its rows
            // and links are those of a counted page.
            let counted = try await admin.get("/members?sort=pseudonym&order=asc&page=40")
            #expect(
                counted.text.contains("Showing 976 to 1000 of more than 1,000 members") && counted.text.contains(">Long_0975</a>"),
                "\(Self.summary(counted.text))"
            )
            let past = try await admin.get(try #require(Self.link("next", in: counted.text)))
            #expect(
                past.text.contains("Showing 1001 to 1025 of more than 1,000 members") && past.text.contains(">Long_1000</a>"),
                "\(Self.summary(past.text))"
            )
            let end = try await admin.get(try #require(Self.link("next", in: past.text)))
            #expect(
                end.text.contains("Showing 1026 to 1030 of more than 1,000 members") && end.text.contains(">Long_1029</a>"),
                "\(Self.summary(end.text))"
            )
            #expect(Self.link("next", in: end.text) == nil)
            let back = try await admin.get(try #require(Self.link("prev", in: end.text)))
            #expect(
                back.text.contains("Showing 1001 to 1025 of more than 1,000 members") && back.text.contains(">Long_1000</a>"),
                "\(Self.summary(back.text))"
            )
            // The end of the list is read backwards: its rows are right, its place past the count unknown.
            let last = try await admin.get("/members?sort=pseudonym&order=asc&page=last")
            #expect(last.text.contains("Showing 25 of more than 1,000 members"))
            #expect(last.text.contains(">Long_\(PageRequest.countLimit + 29)</a>") && !last.text.contains("rel=\"next\""))
        }
    }

    /// Old page numbers open within the rows a list counts; further in, a 410 page says why and links to the
    /// list's first and last pages with its search, filters and sort, whatever the list's page size.
    @Test(arguments: TestEngines.all)
    func anOldPageNumberPastTheCountedRowsIsAClear410PageThatLinksToTheList(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await Self.addMembers(portal)
            var (admin, _) = try await portal.signedIn(.administrator)
            // Within the counted rows, a number past the list's end opens its last page, as before.
            let end = try await admin.get("/members?sort=pseudonym&order=asc&page=40")
            #expect(end.status == .ok && end.text.contains("Showing 113 to 137 of \(Self.memberCount) members"), "\(Self.summary(end.text))")
            for (path, number, first) in [
                ("/members?sort=pseudonym&order=asc&q=Member&page=41", "41", "/members?sort=pseudonym&amp;order=asc&amp;q=Member"),
                ("/members?page=2000&status=active", "2,000", "/members?status=active"),
                ("/members?q=Mem%20b%26r&page=99", "99", "/members?q=Mem%20b%26r"),
                ("/audit?page=21", "21", "/audit"),
                ("//members?page=500", "500", "/members"),
                ("/members?page=\(Int.max)", Int.max.formatted(.number.grouping(.automatic)), "/members")
            ] {
                let response = try await admin.get(path)
                #expect(response.status == .gone, "\(path)")
                #expect(response.text.contains("Lists no longer open at page \(number)"), "\(path)")
                #expect(response.text.contains("href=\"\(first)\">Go to the first page of the list"), "\(path)")
                let separator = first.contains("?") ? "&amp;" : "?"
                #expect(response.text.contains("href=\"\(first)\(separator)page=last\">Go to the last page of the list"), "\(path)")
            }
            // The audit log shows fifty a page: its page 20 is still within the counted rows.
            #expect(try await admin.get("/audit?page=20").status == .ok)
            // A list still paged by number (the desk's) opens any of its pages, and any number typed in.
            #expect(try await admin.get("/desk?filter=all&page=41").status == .ok)
            #expect(try await admin.get("/desk?filter=all&page=\(Int.max)").status == .ok)
        }
    }

    /// A cursor's link is written directly, byte for byte what Foundation's encoder wrote, so links
    /// made before still open their page.
    @Test func theSummarySaysHowManyInWordsThatFitTheCount() {
        let address = ListAddress(path: "/studies/feedback", parameters: [])
        func summary(_ count: Int, _ noun: String) -> String {
            PaginationView(PageOf(items: Array(0..<min(count, 25)), totalCount: count, request: PageRequest(number: 1)), address: address, noun: noun)
                .summary
        }
        #expect(summary(0, "messages") == "No messages")
        #expect(summary(1, "messages") == "Showing 1 message")
        #expect(summary(1, "entries") == "Showing 1 entry")
        #expect(summary(1, "flagged posts") == "Showing 1 flagged post")
        #expect(summary(2, "messages") == "Showing 1 to 2 of 2 messages")
    }

    @Test func aCursorsLinkIsWhatFoundationsEncoderWroteAndReadsBack() throws {
        let texts = ["", "member_0421", "Ana/Beth \\ \"quoted\"", "Zoë 😀 \u{2028}", "tab\tnew\nline\u{01}", String(repeating: "x", count: 200)]
        var cursors: [PageCursor] = []
        for (n, text) in texts.enumerated() {
            cursors.append(PageCursor(order: "pseudonym.asc", values: [.text(text), .integer(Int64(n) * 7_919)], index: n * 25))
            cursors.append(PageCursor(order: "joined/desc", values: [.integer(-Int64(n)), .integer(Int64.max), .text(text)], index: 0))
        }
        for cursor in cursors {
            #expect(cursor.token == cursor.foundationToken, "\(cursor.values)")
            #expect(try PageCursor(token: cursor.token) == cursor)
        }
    }

    @Test(arguments: TestEngines.all)
    func aChangedCursorIsAClear400Page(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await Self.addMembers(portal)
            var (admin, _) = try await portal.signedIn(.administrator)
            let next = try #require(Self.link("next", in: try await admin.get("/members?sort=pseudonym&order=asc").text))
            let token = try #require(next.components(separatedBy: "after=").last?.components(separatedBy: "&").first)
            let cursor = try PageCursor(token: token)
            // Another place, re-encoded by hand without its check; a flipped character; not a cursor at all;
            // a cursor of another order; a value of the wrong kind.
            var moved = cursor
            moved.values[0] = .text("member_100")
            let movedToken = String(moved.token.split(separator: ".")[0]) + "." + String(cursor.token.split(separator: ".")[1])
            let flipped = String(token.prefix(5)) + (token.dropFirst(5).first == "A" ? "B" : "A") + String(token.dropFirst(6))
            var wrongKind = cursor
            wrongKind.values[0] = .integer(12)
            for (path, why) in [
                ("/members?sort=pseudonym&order=asc&after=\(movedToken)", "edited"),
                ("/members?sort=pseudonym&order=asc&after=\(flipped)", "flipped"),
                ("/members?sort=pseudonym&order=asc&before=not-a-cursor", "garbage"),
                ("/members?sort=joined&order=asc&after=\(token)", "another order"),
                ("/members?sort=pseudonym&order=asc&after=\(wrongKind.token)", "wrong kind"),
                ("/audit?after=\(token)", "another list")
            ] {
                let response = try await admin.get(path)
                #expect(response.status == .badRequest, "\(why)")
                #expect(response.text.contains("This link to a page of the list does not work"), "\(why)")
            }
        }
    }

    /// The address of the pagination's `rel` link, with its ampersands unescaped.
    /// The list's "Showing …" line, for a failure's message.
    static func summary(_ html: String) -> String {
        html.range(of: "Showing [^<]*", options: .regularExpression).map { String(html[$0]) } ?? "no summary"
    }

    static func link(_ rel: String, in html: String) -> String? {
        guard let relRange = html.range(of: "rel=\"\(rel)\"") else { return nil }
        let before = html[..<relRange.lowerBound]
        guard let hrefStart = before.range(of: "href=\"", options: .backwards) else { return nil }
        return String(before[hrefStart.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }
}
