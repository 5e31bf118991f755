import Hummingbird

/// An address written once for both its uses: the link, with the values in it, and the router's pattern,
/// with `:name` where each value goes. `"/staff/\(id)/disable"` links to `/staff/12/disable` and routes
/// `/staff/:id/disable`; a second value is named, `"/people/\(link)/memories/\(id, as: "record")"`.
///
/// Record numbers (`Int64`) are values named `id` unless named otherwise; every other value (a day, a
/// week, a token) is named where it is written. A `String` written without a name is a fixed part of
/// the address (a program's folder, a kind's prefix), the same in the link and the pattern.
package struct RoutePath: Sendable, Equatable, ExpressibleByStringInterpolation {
    /// The address to link to.
    package let path: String
    /// The router's pattern.
    package let pattern: String

    package init(stringLiteral value: String) {
        path = value
        pattern = value
    }

    package init(stringInterpolation: StringInterpolation) {
        path = stringInterpolation.path
        pattern = stringInterpolation.pattern
    }

    /// The pattern as the router takes it.
    package var routerPath: RouterPath { RouterPath(pattern) }

    package struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var path = ""
        fileprivate var pattern = ""

        package init(literalCapacity: Int, interpolationCount: Int) {
            path.reserveCapacity(literalCapacity + 8 * interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) {
            path += literal
            pattern += literal
        }

        /// A fixed part: a program's folder or an account kind's prefix.
        package mutating func appendInterpolation(_ fixed: String) {
            appendLiteral(fixed)
        }

        /// A record number, `:id` in the pattern unless named otherwise.
        package mutating func appendInterpolation(_ record: Int64, as name: String = "id") {
            append(String(record), as: name)
        }

        /// A number that is not a record's (a week of pregnancy).
        package mutating func appendInterpolation(_ number: Int, as name: String) {
            append(String(number), as: name)
        }

        /// A value written as text (a day, a schedule entry, a phone's token).
        package mutating func appendInterpolation(_ value: String, as name: String) {
            append(value, as: name)
        }

        private mutating func append(_ value: String, as name: String) {
            path += value
            pattern += ":"
            pattern += name
        }
    }
}
