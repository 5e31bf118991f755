import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// What people are told when the database is away or full, or a body is too large (docs/faults.md).
/// Tests/faults proves each on the real binary, with real sockets: the router's test client sets a
/// body's length itself, so a body announced larger than it is cannot be sent from here.
@Suite struct FaultAnswerTests {
    @Test func databaseFaultsAreAnsweredInWordsWithTheirOwnStatus() {
        let unavailable = ErrorPage(for: DatabaseUnavailable(reason: "test"))
        #expect(unavailable.status == .serviceUnavailable)
        #expect(unavailable.retryAfter == 5)
        #expect(unavailable.title == "Sorry, the service is unavailable for a moment")
        let full = ErrorPage(for: SQLiteHandle.Failure(code: 13, message: "database or disk is full"))
        #expect(full.status.code == 507)
        #expect(full.title == "Sorry, the service has run out of storage space")
        #expect(full.retryAfter == nil)
        #expect(ErrorPage(for: NIOTooManyBytesError(maxBytes: 10)).status == .contentTooLarge)
        // Other SQLite errors stay plain 500s.
        #expect(ErrorPage(for: SQLiteHandle.Failure(code: 19, message: "constraint failed")).status == .internalServerError)
    }
}
