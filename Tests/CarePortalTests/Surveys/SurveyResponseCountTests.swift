import Foundation
import HTTPTypes
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// Each survey's number of responses is kept on it (migration 46) for the surveys' list and a survey's page:
/// it must equal a count of the responses after every change.
@Suite struct SurveyResponseCountTests {
    /// Every survey's kept count beside a count of its responses.
    static func keptAndCounted(_ portal: TestPortal) async throws -> (kept: [Int64: Int], counted: [Int64: Int]) {
        try await portal.database.read { db in
            var kept: [Int64: Int] = [:]
            for row in try await db.raw("SELECT id, response_count FROM surveys").all() {
                kept[try row.decode(column: "id", as: Int64.self)] = try row.decode(column: "response_count", as: Int.self)
            }
            var counted = try await db.counts(in: "survey_responses", by: "survey_id", for: Array(kept.keys))
            for id in kept.keys where counted[id] == nil { counted[id] = 0 }
            return (kept, counted)
        }
    }

    /// The number the surveys' list shows for `surveyID`.
    static func listed(_ portal: TestPortal, _ surveyID: Int64) async throws -> Int? {
        try await portal.database.read { db in
            try await SurveyRepository().list(page: PageRequest(number: 1, size: 25), on: db).items.first { $0.survey.id == surveyID }?.responseCount
        }
    }

    @Test(arguments: TestEngines.all)
    func theKeptCountFollowsEveryResponseRetryAndDeletedMember(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            var fixture = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 3))
            let other = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 3))
            #expect(try await Self.listed(portal, fixture.id) == 0)

            var memberIDs: [Int64] = []
            for index in 0..<3 {
                let (member, json) = try await AppClient.registered(portal)
                memberIDs.append(Int64(try #require(json["id"] as? Int)))
                let path = SiteURL.apiSurveyResponses(fixture.id).path
                #expect(try await member.send(.post, path, json: ["client_id": "phone-\(index)", "answers": fixture.answers()]).status == .created)
                // A retry of the same answers is the same response, not another.
                #expect(try await member.send(.post, path, json: ["client_id": "phone-\(index)", "answers": fixture.answers()]).status == .ok)
                if index == 0 {
                    #expect(
                        try await member.send(
                            .post,
                            SiteURL.apiSurveyResponses(other.id).path,
                            json: ["client_id": "other", "answers": other.answers()]
                        ).status == .created
                    )
                }
            }
            var state = try await Self.keptAndCounted(portal)
            #expect(state.kept == state.counted)
            #expect(state.kept[fixture.id] == 3 && state.kept[other.id] == 1)
            #expect(try await Self.listed(portal, fixture.id) == 3)
            let page = try await fixture.admin.get(SiteURL.survey(fixture.id).path).text
            #expect(page.contains(#"<dt class="summary-list__key">Responses</dt><dd class="summary-list__value">3 responses</dd>"#))

            // The member who answered both is deleted: both surveys count one fewer.
            #expect(try await fixture.admin.post(SiteURL.memberDelete(memberIDs[0]).path).status == .seeOther)
            state = try await Self.keptAndCounted(portal)
            #expect(state.kept == state.counted)
            #expect(state.kept[fixture.id] == 2 && state.kept[other.id] == 0)
            #expect(try await Self.listed(portal, fixture.id) == 2)

            // The migration's own count gives the same numbers from any start.
            try await portal.database.write { db in try await db.raw("UPDATE surveys SET response_count = 99").run() }
            try await portal.database.transaction { db in try await SurveyRepository.countResponses(on: db) }
            state = try await Self.keptAndCounted(portal)
            #expect(state.kept == state.counted && state.kept[fixture.id] == 2)
        }
    }

    /// Members answer while one of them is deleted, all at once: each response stored is counted once, the
    /// deleted member's answers go with her, and no request fails for the locks the others hold.
    @Test(arguments: TestEngines.all)
    func membersAnsweringWhileOneOfThemIsDeletedAreCountedOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let fixture = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 3))
            var members: [(AppClient, Int64)] = []
            for _ in 0..<6 {
                let (member, json) = try await AppClient.registered(portal)
                members.append((member, Int64(try #require(json["id"] as? Int))))
            }
            let deleted = members[0].1
            let path = SiteURL.apiSurveyResponses(fixture.id).path
            let bodies = try members.indices.map { index in
                String(
                    decoding: try JSONSerialization.data(withJSONObject: ["client_id": "phone-\(index)", "answers": fixture.answers()]),
                    as: UTF8.self
                )
            }
            let admin = fixture.admin
            let statuses = try await withThrowingTaskGroup(of: (Int64, HTTPResponse.Status).self) { group in
                for (index, (member, id)) in members.enumerated() {
                    let body = bodies[index]
                    group.addTask { (id, try await member.send(.post, path, raw: body).status) }
                }
                group.addTask {
                    var admin = admin
                    return (0, try await admin.post(SiteURL.memberDelete(deleted).path).status)
                }
                return try await group.reduce(into: [Int64: HTTPResponse.Status]()) { $0[$1.0] = $1.1 }
            }
            #expect(statuses[0] == .seeOther, "the deletion went through")
            for (_, id) in members.dropFirst() { #expect(statuses[id] == .created) }
            // Hers was stored before the deletion (and went with it) or refused after it.
            #expect(statuses[deleted] == .created || statuses[deleted] == .unauthorized)
            let state = try await Self.keptAndCounted(portal)
            #expect(state.kept == state.counted)
            #expect(state.kept[fixture.id] == 5)
        }
    }
}
