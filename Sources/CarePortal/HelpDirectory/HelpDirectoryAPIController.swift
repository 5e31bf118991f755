import Foundation
import Hummingbird
import PortalPlatform

struct HelpDirectoryAPIController {
    let portal: Portal
    let directory: HelpDirectory

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.apiResources.pattern, access: .member, list)
    }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let memberID = try context.requireMember().accountID
        let kinds = try Self.kinds(request, of: directory.list)
        let (state, resources) = try await portal.database.read { db in
            let state = try await MemberRepository().find(id: memberID, on: db)?.usState
            return (state, try await directory.repository.forMember(state: state, kinds: kinds, on: db))
        }
        return .json(HelpDirectoryAPI.List(state: state, resources: resources.map(HelpDirectoryAPI.Entry.init)))
    }

    /// The kinds asked for with `?kind=`, or every kind the list keeps.
    static func kinds(_ request: Request, of list: DirectoryList) throws -> [HelpResource.Kind] {
        guard let kind = request.query("kind") else { return list.kinds }
        guard let chosen = HelpResource.Kind(rawValue: kind), list.kinds.contains(chosen) else {
            throw APIError.invalidQuery(["kind": "Use one of \(list.kinds.map(\.rawValue).joined(separator: ", "))"])
        }
        return [chosen]
    }
}
