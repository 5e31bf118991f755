import Foundation
import Hummingbird
import PortalPlatform

/// `POST /api/v1/events`: what only the app knows — that it was opened, and which sections were viewed for
/// how long — sent in batches of up to 100. Each event carries the app's own id, so a batch sent again is
/// counted once; a time in the future or more than 7 days ago is refused with the field that holds it.
struct AppEventsAPI {
    static let maximumBatch = 100
    static let oldest: TimeInterval = 7 * 86_400
    /// Phones' clocks drift: a time a little ahead of the server's is taken as now.
    static let clockAllowance: TimeInterval = 5 * 60
    static let maximumSeconds = 24 * 3_600
    let portal: Portal

    struct Batch: Decodable {
        struct Event: Decodable {
            let clientId: String?
            let kind: String?
            let section: String?
            let seconds: Int?
            let occurredAt: String?
        }

        let events: [Event]?
    }

    struct Received: Encodable {
        let received: Int
        let recorded: Int
    }

    enum Kind: String, CaseIterable {
        case appOpened = "app_opened"
        case sectionViewed = "section_viewed"
    }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.post(SiteURL.apiEvents.pattern, access: .member, receive)
    }

    private static let instantFormats = [
        Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle(includingFractionalSeconds: false)
    ]

    static func instant(_ text: String) -> Date? {
        for format in instantFormats { if let date = try? format.parse(text) { return date } }
        return nil
    }

    /// The batch as events of `memberID` in `cohortID`, or every problem keyed by its field (`events[2].section`).
    static func events(_ batch: Batch, memberID: Int64, cohortID: Int64, now: Date) -> Result<[MemberEvent], APIError> {
        guard let items = batch.events, !items.isEmpty, items.count <= maximumBatch else {
            return .failure(.validation(["events": "Send a list of 1 to \(maximumBatch) events"]))
        }
        var problems: [String: String] = [:]
        var events: [MemberEvent] = []
        for (index, item) in items.enumerated() {
            let field = { (name: String) in "events[\(index)].\(name)" }
            if let problem = Chat.clientIDProblem(item.clientId ?? "") {
                problems[field("client_id")] = problem.replacingOccurrences(of: "message", with: "event")
            }
            let kind = Kind(rawValue: item.kind ?? "")
            if kind == nil { problems[field("kind")] = "Choose app_opened or section_viewed" }
            var section: AppSection?
            if kind == .sectionViewed {
                section = AppSection(rawValue: item.section ?? "")
                if section == nil { problems[field("section")] = "Choose one of \(AppSection.allCases.map(\.rawValue).joined(separator: ", "))" }
                if let seconds = item.seconds, !(0...maximumSeconds).contains(seconds) {
                    problems[field("seconds")] = "Send the seconds spent, from 0 to \(maximumSeconds)"
                }
            }
            let occurredAt = item.occurredAt.flatMap(instant)
            if let occurredAt {
                if occurredAt > now.addingTimeInterval(clockAllowance) {
                    problems[field("occurred_at")] = "This time is in the future; send when it happened"
                } else if occurredAt < now.addingTimeInterval(-oldest) {
                    problems[field("occurred_at")] = "This is more than 7 days ago; events that old are not counted"
                }
            } else {
                problems[field("occurred_at")] = "Send when it happened, as an ISO 8601 time such as 2026-11-25T09:30:00Z"
            }
            guard let kind, let occurredAt, problems.isEmpty else { continue }
            events.append(
                MemberEvent(
                    kind: kind == .appOpened ? .appOpened : .sectionViewed,
                    memberID: memberID,
                    cohortID: cohortID,
                    occurredAt: min(occurredAt, now),
                    number: kind == .sectionViewed ? Int64(item.seconds ?? 0) : nil,
                    label: section?.rawValue,
                    clientID: item.clientId
                )
            )
        }
        return problems.isEmpty ? .success(events) : .failure(.validation(problems))
    }

    @Sendable func receive(request: Request, context: PortalContext) async throws -> Response {
        let batch = try await request.json(Batch.self)
        let memberID = try context.requireMember().accountID
        let now = portal.now
        let clock = portal.programSettings.current.clock
        let recorded = try await portal.database.transaction { db in
            guard let member = try await MemberRepository().find(id: memberID, on: db) else { throw APIError.unauthorized }
            let events = try Self.events(batch, memberID: memberID, cohortID: member.cohort.id, now: now).get()
            return try await MemberEvents().record(events, clock: clock, on: db)
        }
        return .json(Received(received: batch.events?.count ?? 0, recorded: recorded))
    }
}
