import Foundation
import PropertyBased
import Testing
@testable import PortalPlatform

/// The API's JSON writer writes exactly the bytes Foundation's encoder, set up as the API's, writes.
/// (Every API response in the other suites is compared as well: `TestPortal` turns the comparison on.)
@Suite struct APIJSONWriterTests {
    private static func foundation(_ value: some Encodable) throws -> String {
        String(decoding: try APIJSON.encoder.encode(value), as: UTF8.self)
    }

    private static func ours(_ value: some Encodable) throws -> String {
        String(decoding: try APIJSONWriter.encode(value), as: UTF8.self)
    }

    struct Sample: Encodable {
        var threadID = 12
        var upToId: Int64 = 9_007_199_254_740_993
        var URLValue = "a/b \u{1}\u{7f}\u{2028}é\"\\\n\t\u{8}\u{c}\r\u{1f}"
        var a10 = 1.0
        var a2 = 0.1
        var ab = 1e20
        var a_b = -0.0
        var small = 1e-7
        var huge = 1.5e300
        var single: Float = 0.1
        var tiny: Int8 = -3
        var unsigned = UInt64.max
        var ok = true
        var at = Date(timeIntervalSince1970: 1_764_000_000.999)
        var before1970 = Date(timeIntervalSince1970: -1.5)
        var ancient = Date(timeIntervalSince1970: -70_000_000_000)
        var farAhead = Date(timeIntervalSince1970: 300_000_000_000)
        var missing: String? = nil
        var present: String? = "x"
        var holes: [Int?] = [1, nil]
        var empty: [Int] = []
        var counts = ["someKey": 1, "Other": 2, "a_c": 3]
        var nested = [["inner": [1.5]]]
        var link = URL(string: "https://example.org/a?b=c")!
        var bytes = Data([1, 2, 250])
        var amount = Decimal(string: "1.25")!
        var child = Child()
        struct Child: Encodable { var isRead = false; var readAt: Date? = Date(timeIntervalSince1970: 0) }
    }

    @Test func writesWhatFoundationWrites() throws {
        #expect(try Self.ours(Sample()) == Self.foundation(Sample()))
        #expect(try Self.ours(Sample?.none) == Self.foundation(Sample?.none))
        #expect(try Self.ours("top-level") == Self.foundation("top-level"))
        #expect(try Self.ours([Sample(), Sample()]) == Self.foundation([Sample(), Sample()]))
    }

    /// A list's page is one object: its items and what it says of the whole list, with the page's position
    /// beside them, exactly as one flat record of all of them writes.
    @Test func aPageOfAListIsOneObjectWithItsPosition() throws {
        struct Feed: Encodable, Sendable { let notifications: [Int]; let unreadCount: Int }
        struct CountedFlat: Encodable { let notifications: [Int]; let unreadCount, page, pageSize, pageCount, totalCount: Int }
        struct ReadAheadFlat: Encodable { let notifications: [Int]; let unreadCount, page, pageSize: Int; let hasMore: Bool }
        let feed = Feed(notifications: [3, 2], unreadCount: 1)

        let counted = APIPage(feed, .counted(page: 2, pageSize: 25, pageCount: 3, totalCount: 52))
        #expect(try Self.ours(counted) == #"{"notifications":[3,2],"page":2,"page_count":3,"page_size":25,"total_count":52,"unread_count":1}"#)
        #expect(
            try Self.foundation(counted)
                == Self.foundation(CountedFlat(notifications: [3, 2], unreadCount: 1, page: 2, pageSize: 25, pageCount: 3, totalCount: 52))
        )

        let readAhead = APIPage(feed, .readAhead(page: 1, pageSize: 50, hasMore: true))
        #expect(try Self.ours(readAhead) == #"{"has_more":true,"notifications":[3,2],"page":1,"page_size":50,"unread_count":1}"#)
        #expect(
            try Self.foundation(readAhead)
                == Self.foundation(ReadAheadFlat(notifications: [3, 2], unreadCount: 1, page: 1, pageSize: 50, hasMore: true))
        )
    }

    @Test func stringsAndInstantsMatchFoundationsForAnyValue() async {
        let scalar = Gen.oneOf(Gen.unicodeScalar(in: "\u{0}"..."\u{7F}"), Gen.unicodeScalar(in: "\u{80}"..."\u{2FFF}"))
        let text = scalar.array(of: 0...40).map { String(String.UnicodeScalarView($0)) }
        let millisecond = Gen.int(in: -2_000_000_000_000...4_000_000_000_000)
        let double = Gen.int(in: -1_000_000...1_000_000).map { Double($0) / 64 }
        struct Row: Encodable { let text: String; let at: Date; let number: Double }
        await propertyCheck(count: 1_000, input: text, millisecond, double) { text, millisecond, number in
            let row = Row(text: text, at: Date(timeIntervalSince1970: Double(millisecond) / 1000), number: number)
            let expected = try? Self.foundation(row)
            #expect(expected != nil)
            #expect((try? Self.ours(row)) == expected)
        }
    }

    @Test func aNumberJSONCannotHoldIsAnError() {
        #expect(throws: EncodingError.self) { try APIJSONWriter.encode([Double.nan]) }
    }
}
