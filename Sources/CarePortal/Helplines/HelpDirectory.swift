import Foundation
import PortalPlatform
import SQLKit

/// The directory of help: changes audited, and what a member is offered by where she lives.
struct HelpDirectory: Sendable {
    let portal: Portal
    let repository = HelpDirectoryRepository()

    func add(_ draft: HelpResourceDraft, actor: AuditActor, origin: AuditOrigin) async throws -> Int64 {
        try await portal.database.transaction { db in
            let id = try await repository.insert(draft, now: portal.now, on: db)
            try await portal.audit.record(AuditEvent(actor: actor, action: .helpResourceAdded, recordType: "help_resource", recordID: String(id),
                                                     origin: origin, detail: draft.name), on: db)
            return id
        }
    }

    func change(_ id: Int64, to draft: HelpResourceDraft, actor: AuditActor, origin: AuditOrigin) async throws -> Bool {
        try await portal.database.transaction { db in
            guard try await repository.find(id: id, on: db) != nil else { return false }
            try await repository.update(id: id, draft, now: portal.now, on: db)
            try await portal.audit.record(AuditEvent(actor: actor, action: .helpResourceChanged, recordType: "help_resource", recordID: String(id),
                                                     origin: origin, detail: draft.name), on: db)
            return true
        }
    }

    /// Deletes an entry; its name, or nil when there was none.
    func delete(_ id: Int64, actor: AuditActor, origin: AuditOrigin) async throws -> String? {
        try await portal.database.transaction { db in
            guard let resource = try await repository.find(id: id, on: db), try await repository.delete(id: id, on: db) else { return nil }
            try await portal.audit.record(AuditEvent(actor: actor, action: .helpResourceDeleted, recordType: "help_resource", recordID: String(id),
                                                     origin: origin, detail: resource.name), on: db)
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
        id: 0, name: "988 Suicide & Crisis Lifeline", kind: .crisisLine, phone: PhoneNumber(stored: "988"), textNumber: PhoneNumber(stored: "988"),
        webAddress: "https://988lifeline.org", hours: "24 hours, 7 days", languages: "English and Spanish",
        description: "Free, confidential support for anyone in distress: call or text 988.", address: nil, states: [],
        createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0)
    )
}
