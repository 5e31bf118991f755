import Foundation
import PortalPlatform
import SQLKit

/// One program's list in the directory: whose it is, who keeps it, where its pages are and what they ask.
/// The perinatal program keeps resources and helplines by state; the research study keeps its care
/// locations (§13), each with a pin for the participants' map.
struct DirectoryList: Sendable {
    let program: Program
    let access: Access
    let title: String
    /// The button and heading of its form for a new entry: "Add to the directory".
    let addTitle: String
    /// The list in a sentence: "added to the directory".
    let noun: String
    /// Who reads it in the app, as the staff pages say it: "Members", "Participants".
    let readers: String
    let introduction: String
    let emptyText: String
    /// Whether entries are kept by US state (members see their state's); otherwise every entry is for everyone.
    let asksStates: Bool
    let kinds: [HelpResource.Kind]
    let defaultKind: HelpResource.Kind?
    let listURL: SiteURL
    let newURL: SiteURL
    let editURL: @Sendable (Int64) -> SiteURL
    let deleteURL: @Sendable (Int64) -> SiteURL

    static let perinatal = DirectoryList(
        program: .perinatalCommunity,
        access: .administrators,
        title: "Resources and helplines",
        addTitle: "Add to the directory",
        noun: "the directory",
        readers: "Members",
        introduction:
            "Members see the nationwide entries and those for their state in the app. After a low mood the app offers the crisis lines and helplines here, crisis lines first; 988 is always among them.",
        emptyText:
            "The directory is empty, so members are offered only the 988 Suicide & Crisis Lifeline. Add the helplines, crisis lines and places of care your members should know.",
        asksStates: true,
        kinds: HelpResource.Kind.allCases,
        defaultKind: nil,
        listURL: .helpDirectory,
        newURL: .newHelpResource,
        editURL: SiteURL.editHelpResource,
        deleteURL: SiteURL.deleteHelpResource
    )

}

/// The directory of help, one list per program: changes audited, and what a member is offered by where she lives.
struct HelpDirectory: Sendable {
    let portal: Portal
    let list: DirectoryList
    let repository: HelpDirectoryRepository

    init(portal: Portal, list: DirectoryList = .perinatal) {
        self.portal = portal
        self.list = list
        repository = HelpDirectoryRepository(program: list.program.id)
    }

    func add(_ draft: HelpResourceDraft, actor: AuditActor, origin: AuditOrigin) async throws -> Int64 {
        try await portal.database.transaction { db in
            let id = try await repository.insert(draft, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .helpResourceAdded,
                    recordType: "help_resource",
                    recordID: String(id),
                    origin: origin,
                    detail: draft.name
                ),
                on: db
            )
            return id
        }
    }

    func change(_ id: Int64, to draft: HelpResourceDraft, actor: AuditActor, origin: AuditOrigin) async throws -> Bool {
        try await portal.database.transaction { db in
            guard try await repository.find(id: id, on: db) != nil else { return false }
            try await repository.update(id: id, draft, now: portal.now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .helpResourceChanged,
                    recordType: "help_resource",
                    recordID: String(id),
                    origin: origin,
                    detail: draft.name
                ),
                on: db
            )
            return true
        }
    }

    /// Deletes an entry; its name, or nil when there was none.
    func delete(_ id: Int64, actor: AuditActor, origin: AuditOrigin) async throws -> String? {
        try await portal.database.transaction { db in
            guard let resource = try await repository.find(id: id, on: db), try await repository.delete(id: id, on: db) else { return nil }
            try await portal.audit.record(
                AuditEvent(
                    actor: actor,
                    action: .helpResourceDeleted,
                    recordType: "help_resource",
                    recordID: String(id),
                    origin: origin,
                    detail: resource.name
                ),
                on: db
            )
            return resource.name
        }
    }

    /// The crisis lines and helplines for a member in `state`, crisis lines first; 988 when the directory
    /// has no crisis line at all, so a member is never offered no help.
    func helplines(forState state: String?) async throws -> [HelpResource] {
        let found = try await portal.database.read { db in
            try await repository.forMember(state: state, kinds: [.crisisLine, .helpline], on: db)
        }
        guard !found.contains(where: { $0.kind == .crisisLine }) else { return found }
        return [Self.lifeline] + found
    }

    /// The 988 Suicide & Crisis Lifeline, offered whatever the directory holds.
    static let lifeline = HelpResource(
        id: 0,
        name: "988 Suicide & Crisis Lifeline",
        kind: .crisisLine,
        phone: PhoneNumber(stored: "988"),
        textNumber: PhoneNumber(stored: "988"),
        webAddress: "https://988lifeline.org",
        hours: "24 hours, 7 days",
        languages: "English and Spanish",
        description: "Free, confidential support for anyone in distress: call or text 988.",
        address: nil,
        pin: nil,
        states: [],
        createdAt: Date(timeIntervalSince1970: 0),
        updatedAt: Date(timeIntervalSince1970: 0)
    )
}
