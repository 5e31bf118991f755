import Foundation
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// A column list quoted once writes exactly what SQLKit writes for the same columns on each engine, and
/// selects the same rows.
@Suite struct ColumnListTests {
    @Test(arguments: TestEngines.all)
    func aColumnListIsWrittenAsTheEnginesDialectWritesItsColumns(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.database.read { db in
                let names = ["id", "due_month", "a \"quoted\" name"]
                #expect(db.serialize(ColumnList(names)).sql == db.serialize(SQLList(names.map { SQLColumn($0) })).sql)
                #expect(db.serialize(ColumnList(names, table: "c")).sql == db.serialize(SQLList(names.map { SQLColumn($0, table: "c") })).sql)
                let joined = ColumnList(joining: [ColumnList(["id"], table: "c"), ColumnList(["pseudonym"], table: "m")])
                #expect(joined.names == ["id", "pseudonym"])
                #expect(db.serialize(joined).sql == db.serialize(SQLList([SQLColumn("id", table: "c"), SQLColumn("pseudonym", table: "m")])).sql)
            }
            try await portal.database.transaction { db in
                try await db.insert(into: "cohorts").columns("due_month", "created_at").values(SQLBind("2027-03"), SQLBind(Int64(0))).run()
            }
            let row = try await portal.database.read { db in
                try await db.select().column(ColumnList(["id", "due_month"], table: "c"))
                    .from(SQLAlias(SQLIdentifier("cohorts"), as: SQLIdentifier("c"))).where(
                        SQLColumn("due_month", table: "c"),
                        .equal,
                        SQLBind("2027-03")
                    )
                    .first()
            }
            #expect(try row?.decode(column: "due_month", as: String.self) == "2027-03")
            #expect(try row?.decode(column: "id", as: Int64.self) ?? 0 > 0)
        }
    }
}
