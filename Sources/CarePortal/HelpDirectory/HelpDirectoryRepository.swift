import Foundation
import PortalPlatform
import SQLKit

struct HelpDirectoryQuery: Sendable, Equatable {
    enum Sort: String, Sendable, CaseIterable {
        case name, kind
    }

    var kind: HelpResource.Kind?
    /// Entries for this state, and the nationwide ones.
    var state: String?
    var search = ""
    var sort = Sort.name
    var page = PageRequest(number: 1)
}

/// The only place the help directory's SQL lives: each instance reads and writes one program's list.
struct HelpDirectoryRepository: Sendable {
    /// The `Program.id` whose list this is; every statement is limited to it.
    let program: String

    init(program: String = Program.perinatalCommunity.id) {
        self.program = program
    }

    func list(_ query: HelpDirectoryQuery, on db: any SQLDatabase) async throws -> PageOf<HelpResource> {
        let words = WordStarts.words(of: query.search)
        let byName: [SortKey] = [.text("name_key"), .integer("id")]
        let order = ListOrder(
            query.sort.rawValue,
            keys: query.sort == .kind
                ? [SortKey(Self.kindOrder, resultColumn: "kind_order", kind: .integer)] + byName : byName,
            descending: false
        )
        /// The kind and state filters, on `help_resources` or on the rows of either search table, whose `id`
        /// and `kind` are the entry's.
        func filtered(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            builder.where("program", .equal, program)
            if let kind = query.kind { builder.where("kind", .equal, kind.rawValue) }
            if let state = query.state {
                builder.where(SQLQueryString("id IN (SELECT resource_id FROM help_resource_reach WHERE state = \(bind: state))"))
            }
            return builder
        }
        /// The entries whose names' words start with every word typed, under the names `help_resources` gives the same values.
        func matchingWords(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            builder.fromWordStarts(words, table: "help_resource_words", owner: "resource_id", copied: ["name_key", "kind", "program"])
        }
        /// The list's rows read from a search table in the list's order by name (and counted there): the
        /// words typed, with the filters, or else the state's row of each entry its members see.
        func searching(_ builder: SQLSelectBuilder) -> SQLSelectBuilder {
            if !words.isEmpty { return filtered(matchingWords(builder)) }
            builder.from(SQLAlias(SQLGroupExpression(Self.reachRows), as: SQLIdentifier("help_resource_reach")))
                .where("state", .equal, query.state ?? "").where("program", .equal, program)
            if let kind = query.kind { builder.where("kind", .equal, kind.rawValue) }
            return builder
        }
        let rows: PageOf<any SQLRow>
        if !query.search.isEmpty && words.isEmpty {
            // Nothing typed that a name's words could start with (only punctuation): nothing matches.
            rows = try await db.seek(
                query.page,
                order: order,
                columns: Self.listColumns,
                rows: { $0.from("help_resources").where(SQLLiteral.boolean(false)) },
                decode: { $0 }
            )
        } else if query.sort == .name && (!words.isEmpty || query.state != nil) {
            rows = try await db.seek(
                query.page,
                order: order,
                columns: Self.listColumns,
                rows: { $0.from("help_resources") },
                counted: searching,
                idsFirst: searching,
                decode: { $0 }
            )
        } else if !words.isEmpty {
            // Sorted by kind, the kind order's index is walked and each entry looked up among the words' matches.
            rows = try await db.seek(
                query.page,
                order: order,
                columns: Self.listColumns,
                rows: {
                    filtered($0.from("help_resources")).where(
                        SQLBinaryExpression(
                            SQLIdentifier("id"),
                            .in,
                            SQLGroupExpression(matchingWords(db.select().column("id")).select)
                        )
                    )
                },
                counted: searching,
                decode: { $0 }
            )
        } else {
            rows = try await db.seek(
                query.page,
                order: order,
                columns: Self.listColumns,
                rows: { filtered($0.from("help_resources")) },
                decode: { $0 }
            )
        }
        return rows.replacingItems(try await decode(rows.items, on: db))
    }

    private static let listColumns: [any SQLExpression] = [SQLLiteral.all, SQLAlias(kindOrder, as: SQLIdentifier("kind_order"))]
    private static let reachRows = SQLRaw("SELECT state, resource_id AS id, name_key, kind, program FROM help_resource_reach")

    /// What a member in `state` (nil: none given) is offered: nationwide entries and her state's, crisis lines first.
    func forMember(state: String?, kinds: [HelpResource.Kind] = HelpResource.Kind.allCases, on db: any SQLDatabase) async throws -> [HelpResource] {
        var select = db.select().column("*").from("help_resources").where("program", .equal, program).where("kind", .in, kinds.map(\.rawValue))
        select = select.where { group in
            group.where("nationwide", .equal, true)
                .orWhere(SQLRaw("id IN (SELECT resource_id FROM help_resource_states WHERE state = "), SQLBind(state ?? ""), SQLRaw(")"))
        }
        return try await decode(try await select.orderBy(Self.kindOrder).orderBy("name_key").orderBy("id").limit(500).all(), on: db)
    }

    func find(id: Int64, on db: any SQLDatabase) async throws -> HelpResource? {
        guard let row = try await db.select().column("*").from("help_resources").where("id", .equal, id).where("program", .equal, program).first()
        else { return nil }
        return try await decode([row], on: db).first
    }

    func insert(_ draft: HelpResourceDraft, now: Date, on db: any SQLDatabase) async throws -> Int64 {
        let id = try await db.insert(into: "help_resources")
            .columns(
                "program",
                "name",
                "name_key",
                "kind",
                "phone",
                "text_number",
                "web_address",
                "hours",
                "languages",
                "description",
                "address",
                "latitude",
                "longitude",
                "nationwide",
                "created_at",
                "updated_at"
            )
            .values(
                SQLBind(program),
                SQLBind(draft.name),
                SQLBind(Self.nameKey(draft.name)),
                SQLBind(draft.kind.rawValue),
                SQLBind(draft.phone?.digits),
                SQLBind(draft.textNumber?.digits),
                SQLBind(draft.webAddress),
                SQLBind(draft.hours),
                SQLBind(draft.languages),
                SQLBind(draft.description),
                SQLBind(draft.address),
                SQLBind(draft.pin?.latitude),
                SQLBind(draft.pin?.longitude),
                SQLBind(draft.states.isEmpty),
                SQLBind(now.millisecondsSince1970),
                SQLBind(now.millisecondsSince1970)
            )
            .returning("id").first()!.decode(column: "id", as: Int64.self)
        try await setStates(draft.states, of: id, on: db)
        try await setSearchRows(of: id, name: draft.name, kind: draft.kind.rawValue, states: draft.states, on: db)
        return id
    }

    func update(id: Int64, _ draft: HelpResourceDraft, now: Date, on db: any SQLDatabase) async throws {
        try await db.update("help_resources")
            .set("name", to: draft.name).set("name_key", to: Self.nameKey(draft.name)).set("kind", to: draft.kind.rawValue)
            .set("phone", to: SQLBind(draft.phone?.digits)).set("text_number", to: SQLBind(draft.textNumber?.digits))
            .set("web_address", to: SQLBind(draft.webAddress)).set("hours", to: draft.hours).set("languages", to: draft.languages)
            .set("description", to: draft.description).set("address", to: SQLBind(draft.address))
            .set("latitude", to: SQLBind(draft.pin?.latitude)).set("longitude", to: SQLBind(draft.pin?.longitude))
            .set("nationwide", to: draft.states.isEmpty).set("updated_at", to: now.millisecondsSince1970)
            .where("id", .equal, id).where("program", .equal, program).run()
        try await setStates(draft.states, of: id, on: db)
        try await setSearchRows(of: id, name: draft.name, kind: draft.kind.rawValue, states: draft.states, on: db)
    }

    func delete(id: Int64, on db: any SQLDatabase) async throws -> Bool {
        try await db.delete(from: "help_resources").where("id", .equal, id).where("program", .equal, program).returning("id").all().count > 0
    }

    private func setStates(_ states: [String], of id: Int64, on db: any SQLDatabase) async throws {
        try await db.delete(from: "help_resource_states").where("resource_id", .equal, id).run()
        for state in states {
            try await db.insert(into: "help_resource_states").columns("resource_id", "state").values(SQLBind(id), SQLBind(state)).run()
        }
    }

    /// Crisis lines first, then helplines, locators, care locations, websites. Migration 44 indexes this
    /// expression as written then; the list by kind reads that index only while the two are the same text.
    static let kindOrderSQL =
        "CASE kind " + HelpResource.Kind.allCases.map { "WHEN '\($0.rawValue)' THEN \($0.rank)" }.joined(separator: " ") + " ELSE 99 END"
    private static let kindOrder = SQLRaw(kindOrderSQL)

    /// The name as the list sorts it.
    static func nameKey(_ name: String) -> String { name.lowercased() }

    /// Writes the entry's rows in the search tables afresh (migration 48): the starts of its name's words,
    /// and the states whose members see it, every state when it is nationwide (`states` empty).
    func setSearchRows(of id: Int64, name: String, kind: String, states: [String], on db: any SQLDatabase) async throws {
        let copied: [(String, any Encodable & Sendable)] = [("name_key", Self.nameKey(name)), ("kind", kind), ("program", program)]
        try await db.replaceSearchRows(
            in: "help_resource_words",
            column: "word_start",
            values: WordStarts.starts(of: name).sorted(),
            owner: "resource_id",
            id: id,
            copied: copied
        )
        try await db.replaceSearchRows(
            in: "help_resource_reach",
            column: "state",
            values: states.isEmpty ? USState.all.sorted() : states,
            owner: "resource_id",
            id: id,
            copied: copied
        )
    }

    private static func pin(of row: any SQLRow) throws -> MapPin? {
        guard let latitude = try row.decode(column: "latitude", as: Double?.self),
            let longitude = try row.decode(column: "longitude", as: Double?.self)
        else { return nil }
        return MapPin(latitude: latitude, longitude: longitude)
    }

    private func decode(_ rows: [any SQLRow], on db: any SQLDatabase) async throws -> [HelpResource] {
        let ids = try rows.map { try $0.decode(column: "id", as: Int64.self) }
        var states: [Int64: [String]] = [:]
        if !ids.isEmpty {
            for row in try await db.select().columns("resource_id", "state").from("help_resource_states").where("resource_id", .in, ids)
                .orderBy("state").all()
            {
                states[try row.decode(column: "resource_id", as: Int64.self), default: []].append(try row.decode(column: "state", as: String.self))
            }
        }
        return try rows.map { row in
            let id = try row.decode(column: "id", as: Int64.self)
            return HelpResource(
                id: id,
                name: try row.decode(column: "name", as: String.self),
                kind: HelpResource.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .website,
                phone: try row.decode(column: "phone", as: String?.self).map(PhoneNumber.init(stored:)),
                textNumber: try row.decode(column: "text_number", as: String?.self).map(PhoneNumber.init(stored:)),
                webAddress: try row.decode(column: "web_address", as: String?.self),
                hours: try row.decode(column: "hours", as: String.self),
                languages: try row.decode(column: "languages", as: String.self),
                description: try row.decode(column: "description", as: String.self),
                address: try row.decode(column: "address", as: String?.self),
                pin: try Self.pin(of: row),
                states: states[id] ?? [],
                createdAt: Date(millisecondsSince1970: try row.decode(column: "created_at", as: Int64.self)),
                updatedAt: Date(millisecondsSince1970: try row.decode(column: "updated_at", as: Int64.self))
            )
        }
    }
}
