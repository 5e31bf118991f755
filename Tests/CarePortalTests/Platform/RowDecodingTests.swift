import Foundation
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Columns read the same on both engines, whichever way a repository asks for them: rows read the
/// common types directly (`SQLiteSQLDatabase.Row`, `PostgresSQLDatabase.Row`) and everything else
/// through the engine's SQLKit decoder.
@Suite struct RowDecodingTests {
    enum Drink: String, Decodable { case tea }

    @Test(arguments: TestEngines.all)
    func everyCommonTypeAndItsOptionalReadsAsStored(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.database.read { db in
                let found = try await db.raw(
                    """
                    SELECT CAST(7 AS BIGINT) AS i, 'tea' AS s, NULL AS n, CAST(2.5 AS DOUBLE PRECISION) AS d,
                           CAST(-3000000000 AS BIGINT) AS big, (1 = 1) AS yes, (1 = 0) AS no,
                           CAST(5 AS INTEGER) AS small, CAST(1.5 AS NUMERIC) AS num
                    """
                ).first()
                let row = try #require(found)
                #expect(try row.decode(column: "i", as: Int64.self) == 7)
                #expect(try row.decode(column: "i", as: Int.self) == 7)
                #expect(try row.decode(column: "i", as: Int64?.self) == 7)
                #expect(try row.decode(column: "i", as: Int?.self) == 7)
                #expect(try row.decode(column: "big", as: Int64.self) == -3_000_000_000)
                #expect(try row.decode(column: "small", as: Int.self) == 5)
                #expect(try row.decode(column: "small", as: Int64?.self) == 5)
                #expect(try row.decode(column: "num", as: Double.self) == 1.5)
                #expect(try row.decode(column: "s", as: String.self) == "tea")
                #expect(try row.decode(column: "s", as: String?.self) == "tea")
                #expect(try row.decode(column: "s", as: Drink.self) == .tea)
                #expect(try row.decode(column: "d", as: Double.self) == 2.5)
                #expect(try row.decode(column: "yes", as: Bool.self))
                #expect(try !row.decode(column: "no", as: Bool.self))
                #expect(try row.decodeNil(column: "n"))
                #expect(try !row.decodeNil(column: "i"))
                #expect(try row.decode(column: "n", as: Int64?.self) == nil)
                #expect(try row.decode(column: "n", as: Int?.self) == nil)
                #expect(try row.decode(column: "n", as: String?.self) == nil)
                // Types not read directly go through the engine's decoder, optionals included.
                #expect(try row.decode(column: "d", as: Double?.self) == 2.5)
                #expect(try row.decode(column: "n", as: Double?.self) == nil)
                #expect(try row.decode(column: "n", as: Drink?.self) == nil)
                #expect(try row.decode(column: "s", as: Drink?.self) == .tea)
                #expect(row.contains(column: "i"))
                #expect(!row.contains(column: "nope"))
                #expect(throws: (any Error).self) { try row.decode(column: "nope", as: Int64.self) }
                #expect(throws: (any Error).self) { try row.decode(column: "s", as: Int64.self) }
                #expect(throws: (any Error).self) { try row.decode(column: "n", as: Int64.self) }
            }
        }
    }
}
