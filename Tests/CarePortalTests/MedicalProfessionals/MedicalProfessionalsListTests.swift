import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The administrators' list of medical professionals' accounts, each with the real name from her profile.
@Suite struct MedicalProfessionalsListTests {
    @Test(arguments: TestEngines.all)
    func eachAccountIsListedWithItsOwnRealNameOnEveryPage(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (admin, _) = try await portal.signedIn(.administrator, username: "aa.admin")
            var names: [Int64: String] = [:]
            for index in 1...27 {
                let account = try await portal.createStaff(.medicalProfessional, username: String(format: "nurse%02d", index))
                // Profiles made in the reverse order of the accounts, so a name found by position would be another's.
                names[account.id] = "First\(index) Last\(index)"
            }
            for (id, name) in names.sorted(by: { $0.key > $1.key }) {
                let parts = name.split(separator: " ").map(String.init)
                try await portal.database.transaction { db in
                    try await StaffProfileRepository().create(
                        StaffProfile(
                            firstName: parts[0],
                            lastName: parts[1],
                            dateOfBirth: CalendarDate(year: 1980, month: 1, day: 1)!,
                            avatar: .medicalDefault,
                            bio: ""
                        ),
                        accountID: id,
                        on: db
                    )
                }
            }
            // Made without an invitation, so without a profile; and accounts of other roles are not listed.
            let unprofiled = try await portal.createStaff(.medicalProfessional, username: "nurse99")
            try await portal.createStaff(.physician, username: "doc.one")

            func rows(_ html: String) -> [(id: Int64, name: String)] {
                html.matches(of: #/href="/staff/(\d+)">[^<]*</a></td><td class="table__cell">([^<]*)</td>/#).map { (Int64($0.1)!, String($0.2)) }
            }
            let first = try await admin.get("/medical-professionals")
            #expect(first.text.contains("Showing 1 to 25 of 28 medical professionals"))
            let next = try #require(PagingTests.link("next", in: first.text))
            let second = try await admin.get(next)
            #expect(second.text.contains("Showing 26 to 28 of 28 medical professionals"))
            let listed = rows(first.text) + rows(second.text)
            #expect(listed.count == 28)
            #expect(listed.map(\.id) == names.keys.sorted() + [unprofiled.id], "in username order, each account once")
            for row in listed {
                #expect(row.name == (names[row.id] ?? "Not recorded"))
            }
            #expect(!first.text.contains("doc.one") && !second.text.contains("doc.one"))
            // A bookmark from before the cursors opens the same page.
            #expect(rows(try await admin.get("/medical-professionals?page=2").text).map(\.id) == rows(second.text).map(\.id))
        }
    }
}
