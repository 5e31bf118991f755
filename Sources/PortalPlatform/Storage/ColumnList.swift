import SQLKit

/// A fixed list of columns a repository selects on every request, quoted once when the list is made.
///
/// SQLKit quotes each column name again every time a statement is written (asking the dialect for its
/// quote, checking its type, escaping the name), and a page's statements name dozens of columns. Both
/// engines quote identifiers alike (a double quote, doubled inside a name), so the list is written here
/// the way their dialects write it, and serializes as one string (`ColumnListTests` compares the two).
package struct ColumnList: SQLExpression, Sendable {
    /// The names, in order, for reading the rows back.
    package let names: [String]
    private let sql: String

    /// `names`, each as `table.name` when `table` is given.
    package init(_ names: [String], table: String? = nil) {
        self.names = names
        let prefix = table.map { Self.quoted($0) + "." } ?? ""
        sql = names.map { prefix + Self.quoted($0) }.joined(separator: ", ")
    }

    /// Several lists, one after another (columns of joined tables).
    package init(joining lists: [ColumnList]) {
        names = lists.flatMap(\.names)
        sql = lists.map(\.sql).joined(separator: ", ")
    }

    package func serialize(to serializer: inout SQLSerializer) {
        serializer.write(sql)
    }

    /// `name` as both engines' dialects quote an identifier.
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
