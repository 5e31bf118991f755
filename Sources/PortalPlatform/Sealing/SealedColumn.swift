import Foundation
import SQLKit

/// A column whose values are sealed, declared by the feature that owns it, so a rotation of the key
/// re-seals every one of them without the platform naming any feature.
public struct SealedColumn: Sendable {
    package let table: String
    /// The row's key, a single integer column.
    package let key: String
    package let column: String
    package let purpose: SealingPurpose

    package init(table: String, key: String, column: String, purpose: SealingPurpose) {
        self.table = table
        self.key = key
        self.column = column
        self.purpose = purpose
    }

    /// Opens every value of the column with `from` and seals it again under `to`'s key; returns how many.
    package func reseal(from: Sealer, to: Sealer, on db: any SQLDatabase) async throws -> Int {
        let rows = try await db.select().column(key).column(column).from(table)
            .where(SQLColumn(column), .isNot, SQLLiteral.null)
            .all()
        var count = 0
        for row in rows {
            let id = try row.decode(column: key, as: Int64.self)
            let sealed = try row.decode(column: column, as: String.self)
            let opened: String
            do { opened = try from.open(sealed, for: purpose) } catch let error as Unsealable {
                throw Unsealable("\(table).\(column) of row \(id): \(error.description)")
            }
            try await db.update(table).set(column, to: try to.seal(opened, for: purpose)).where(key, .equal, id).run()
            count += 1
        }
        return count
    }
}

/// Re-seals every sealed column under a new key, in the caller's one transaction: either every value
/// is under the new key or, when one does not open, none is.
package struct SealingKeyRotation: Sendable {
    package let columns: [SealedColumn]

    package init(columns: [SealedColumn]) {
        self.columns = columns
    }

    package func reseal(from: Sealer, to: Sealer, on db: any SQLDatabase) async throws -> Int {
        var count = 0
        for column in columns { count += try await column.reseal(from: from, to: to, on: db) }
        return count
    }
}
