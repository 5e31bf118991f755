import SQLKit

/// Whether PostgreSQL plans a task's statements for the values bound to them.
///
/// Kept statements (`PostgresSQLDatabase`) end up on one generic plan, made for an average value of each
/// parameter. For a list filtered on a column whose values differ greatly in how many rows have them
/// (one moderator's entries among a hundred thousand, or nine messages in ten), that plan reads the list's
/// order from its own index and filters every row: for a rare value, the whole table for one page.
/// Planned with the values, PostgreSQL reads the filter's index for a rare value and the order's for a
/// common one, at about 0.1 to 0.3 ms of planning a statement.
package enum StatementPlanning {
    @TaskLocal package static var withValues = false

    /// Runs `body` with its statements planned for their values when `condition` holds: on PostgreSQL they
    /// are sent unnamed, which PostgreSQL plans at each run with the values bound. SQLite is unchanged.
    package static func forValues<Result>(
        if condition: Bool,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        guard condition else { return try await body() }
        return try await $withValues.withValue(true, operation: body)
    }
}

/// A value written into the statement rather than bound: only for values from a closed set the server
/// itself names (a status, an action, an account number it parsed), never the user's text. Each value is
/// then a statement of its own, kept with a plan made for that value: a rare action or a moderator with
/// a handful of entries reads its own index, where a bound value's generic plan filters the whole list.
package func valueFromClosedSet(_ value: String) -> any SQLExpression {
    SQLLiteral.string(value)
}

package func valueFromClosedSet(_ value: Int64) -> any SQLExpression {
    SQLLiteral.numeric(String(value))
}
