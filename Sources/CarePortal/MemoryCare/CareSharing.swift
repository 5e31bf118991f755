import Foundation
import PortalPlatform
import SQLKit

/// Sharing by consent: her invitation codes, the links they make, every change to a link recorded, a
/// caregiver's reads checked against the link on every request and written to her access log.
extension MemoryCare {
    /// A new invitation code granting `grant`; the code is returned once and kept only as a hash.
    func invite(_ holder: AppAccountHolder, grant: CareGrant, origin: AuditOrigin) async throws -> (CareInvitation, code: String) {
        let now = portal.now
        let randomBytes = portal.dependencies.randomBytes
        return try await portal.database.transaction { db in
            for _ in 0..<5 {
                let code = InvitationCode.make(randomBytes: randomBytes)
                guard let hash = InvitationCode.hash(code),
                    let id = try await repository.createInvitation(
                        receiverID: holder.accountID,
                        codeHash: hash,
                        grant: grant,
                        now: now,
                        expiresAt: now.addingTimeInterval(InvitationCode.lifetime),
                        on: db
                    )
                else { continue }
                try await portal.audit.record(
                    AuditEvent(
                        actor: Self.actor(holder),
                        action: .careInvitationMade,
                        recordType: "care_invitation",
                        recordID: "\(id)",
                        origin: origin,
                        detail: grant.storedScopes
                    ),
                    on: db
                )
                return (
                    CareInvitation(
                        id: id,
                        receiverID: holder.accountID,
                        grant: grant,
                        createdAt: now,
                        expiresAt: now.addingTimeInterval(InvitationCode.lifetime)
                    ), code
                )
            }
            throw APIError(status: .serviceUnavailable, code: "try_again", message: "No invitation code could be made just now. Please try again.")
        }
    }

    func openInvitations(receiverID: Int64) async throws -> [CareInvitation] {
        let now = portal.now
        return try await portal.database.read { db in try await repository.openInvitations(receiverID: receiverID, now: now, on: db) }
    }

    func withdrawInvitation(id: Int64, _ holder: AppAccountHolder) async throws {
        let now = portal.now
        guard
            try await portal.database.write({ db in try await repository.withdrawInvitation(id: id, receiverID: holder.accountID, now: now, on: db) })
        else { throw APIError.notFound }
    }

    /// A caregiver enters her code: a link is made with the code's grant (or, when they are linked already,
    /// the link takes the code's grant). Wrong codes count against him, so nobody guesses one.
    func accept(code typed: String, _ holder: AppAccountHolder, origin: AuditOrigin) async throws -> CareLink {
        let throttle = SignInThrottle()
        let now = portal.now
        let keys = [SignInThrottle.Key.careInvitation(holder.accountID)]
        let attempt = try await throttle.reserveAPIAttempt(keys, now: now, in: portal.database)
        let unknown = APIError.validation(["code": "This code is not right, was used already or has expired. Ask for a new one."])
        guard let hash = InvitationCode.hash(typed) else {
            try await portal.database.transaction { db in try await throttle.fail(attempt, on: db) }
            throw typed.trimmed.isEmpty ? APIError.validation(["code": "Enter the code you were given, like K7QM-3XPD"]) : unknown
        }
        let linked: CareLink? = try await portal.database.transaction { db in
            guard let invitation = try await repository.useInvitation(codeHash: hash, now: now, on: db) else {
                try await throttle.fail(attempt, on: db)
                try await portal.audit.record(
                    AuditEvent(
                        actor: Self.actor(holder),
                        action: .careLinkGranted,
                        recordType: "care_link",
                        outcome: .failure,
                        origin: origin,
                        detail: "unknown code"
                    ),
                    on: db
                )
                return nil
            }
            try await throttle.release(attempt, on: db)
            try await throttle.clear(keys[0], on: db)
            let linkID: Int64
            if let existing = try await repository.activeLink(receiverID: invitation.receiverID, caregiverID: holder.accountID, on: db) {
                linkID = existing.id
                _ = try await repository.changeLink(id: linkID, grant: invitation.grant, on: db)
                try await repository.addLinkEvent(
                    linkID: linkID,
                    event: .changed,
                    by: .careReceiver(invitation.receiverID),
                    grant: invitation.grant,
                    now: now,
                    on: db
                )
            } else {
                linkID = try await repository.createLink(
                    receiverID: invitation.receiverID,
                    caregiverID: holder.accountID,
                    grant: invitation.grant,
                    now: now,
                    on: db
                )
                try await repository.addLinkEvent(
                    linkID: linkID,
                    event: .granted,
                    by: .careReceiver(invitation.receiverID),
                    grant: invitation.grant,
                    now: now,
                    on: db
                )
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: Self.actor(holder),
                    action: .careLinkGranted,
                    recordType: "care_link",
                    recordID: "\(linkID)",
                    origin: origin,
                    detail: invitation.grant.storedScopes
                ),
                on: db
            )
            return try await repository.link(id: linkID, on: db)
        }
        guard let linked else { throw unknown }
        return linked
    }

    /// Her links, or his, each with its history (grants, changes, revocations) for her.
    func links(of holder: AppAccountHolder) async throws -> [(CareLink, [CareLinkEvent])] {
        try await portal.database.read { db in
            let links =
                holder.kind == .careReceiver
                ? try await repository.links(receiverID: holder.accountID, on: db)
                : try await repository.links(caregiverID: holder.accountID, on: db).filter(\.isActive)
            var result: [(CareLink, [CareLinkEvent])] = []
            for link in links { result.append((link, holder.kind == .careReceiver ? try await repository.linkEvents(linkID: link.id, on: db) : [])) }
            return result
        }
    }

    /// She changes what a link grants; it takes effect on the caregiver's next request.
    func changeLink(id: Int64, grant: CareGrant, _ holder: AppAccountHolder, origin: AuditOrigin) async throws -> CareLink {
        let now = portal.now
        return try await portal.database.transaction { db in
            guard let link = try await repository.link(id: id, on: db), link.receiverID == holder.accountID, link.isActive else {
                throw APIError.notFound
            }
            _ = try await repository.changeLink(id: id, grant: grant, on: db)
            try await repository.addLinkEvent(linkID: id, event: .changed, by: .careReceiver(holder.accountID), grant: grant, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: Self.actor(holder),
                    action: .careLinkChanged,
                    recordType: "care_link",
                    recordID: "\(id)",
                    origin: origin,
                    detail: grant.storedScopes
                ),
                on: db
            )
            return try await repository.link(id: id, on: db)!
        }
    }

    /// Ends a link at once: by her, by the caregiver, or by staff (then both are told by email).
    func revokeLink(id: Int64, by actor: CareLinkEvent.Actor, auditActor: AuditActor, origin: AuditOrigin) async throws {
        let now = portal.now
        try await portal.database.transaction { db in
            guard let link = try await repository.link(id: id, on: db), link.isActive else { throw APIError.notFound }
            switch actor.role {
            case AppAccountKind.careReceiver.role where actor.id != link.receiverID: throw APIError.notFound
            case AppAccountKind.caregiver.role where actor.id != link.caregiverID: throw APIError.notFound
            default: break
            }
            _ = try await repository.revokeLink(id: id, now: now, on: db)
            try await repository.addLinkEvent(linkID: id, event: .revoked, by: actor, grant: link.grant, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: auditActor,
                    action: .careLinkRevoked,
                    recordType: "care_link",
                    recordID: "\(id)",
                    origin: origin,
                    detail: "by \(actor.description)"
                ),
                on: db
            )
            let receiver = try await repository.account(id: link.receiverID, kind: .careReceiver, on: db)
            let caregiver = try await repository.account(id: link.caregiverID, kind: .caregiver, on: db)
            let byStaff = actor.role == "staff"
            if let caregiver, byStaff || actor.role == AppAccountKind.careReceiver.role {
                try await portal.outbox.enqueue(Mail.careLinkEnded(to: caregiver.email, otherName: link.receiverName, byStaff: byStaff), on: db)
            }
            if let receiver, byStaff || actor.role == AppAccountKind.caregiver.role {
                try await portal.outbox.enqueue(Mail.careLinkEnded(to: receiver.email, otherName: link.caregiverName, byStaff: byStaff), on: db)
            }
        }
    }

    // MARK: What a caregiver may read

    /// His link in force by id, allowing `scope`: 404 when there is none (or it is revoked, or someone
    /// else's), 403 when the link does not grant the scope. Read on every request, so a change or a
    /// revocation holds from the next one.
    func link(_ id: Int64, for holder: AppAccountHolder, allowing scope: CareScope?) async throws -> CareLink {
        let link = try await portal.database.read { db in try await repository.link(id: id, on: db) }
        guard let link, link.caregiverID == holder.accountID, link.isActive else { throw APIError.notFound }
        if let scope, !link.grant.allows(scope) {
            throw APIError(status: .forbidden, code: "not_shared", message: "\(link.receiverName) has not shared this with you.")
        }
        return link
    }

    /// His link in force to the care receiver who owns memory `memoryID`, if any.
    func activeLink(of holder: AppAccountHolder, toOwnerOf memoryID: Int64) async throws -> CareLink? {
        try await portal.database.read { db in try await repository.activeLink(caregiverID: holder.accountID, toOwnerOf: memoryID, on: db) }
    }

    /// Notes a caregiver's read in her access log.
    func logAccess(_ link: CareLink, what: CareAccessEntry.What, recordID: Int64? = nil) async throws {
        try await logAccess(link, seen: [what], recordID: recordID)
    }

    /// Notes what one page showed a caregiver, in one write: on SQLite's one writer, a page that wrote each
    /// part's line on its own waited its turn three times.
    func logAccess(_ link: CareLink, seen: [CareAccessEntry.What], recordID: Int64? = nil) async throws {
        guard !seen.isEmpty else { return }
        let now = portal.now
        try await portal.database.write { db in
            for what in seen {
                try await repository.logAccess(
                    receiverID: link.receiverID,
                    caregiverID: link.caregiverID,
                    what: what,
                    recordID: recordID,
                    now: now,
                    on: db
                )
            }
        }
    }

    /// Her reminders, appointments and to-dos, for a caregiver with the `reminders` scope (never a secured one).
    func remindersAndPlans(of link: CareLink, page: Int) async throws -> (memories: [Memory], hasMore: Bool) {
        let result = try await memories(receiverID: link.receiverID, filter: Self.remindersAndPlans, page: page, unlocked: false)
        try await logAccess(link, what: .reminders)
        return result
    }

    /// Her memories in the shared categories, for a caregiver with the `memories` scope (never a secured one).
    func sharedMemories(of link: CareLink, words: [String], page: Int) async throws -> (memories: [Memory], hasMore: Bool) {
        let result = try await memories(receiverID: link.receiverID, filter: Self.shared(by: link, words: words), page: page, unlocked: false)
        try await logAccess(link, what: .memories)
        return result
    }

    private static let remindersAndPlans = CareRepository.MemoryFilter(plainOnly: true, remindersOrPlans: true)

    private static func shared(by link: CareLink, words: [String]) -> CareRepository.MemoryFilter {
        CareRepository.MemoryFilter(words: words, categories: link.grant.sortedCategories.map(\.rawValue), plainOnly: true)
    }

    /// What a caregiver's page of her shows, read at once, each part only as the link grants it: the first page
    /// of her reminders and plans, of her shared memories (found by `words`), and her location. The caller
    /// notes what was seen (`logAccess(_:seen:)`).
    func sharedAtOnce(of link: CareLink, words: [String]) async throws -> (reminders: [Memory]?, memories: [Memory]?, location: CareLocation?) {
        try await portal.database.read { db in
            let reminders =
                link.grant.allows(.reminders)
                ? try await memories(receiverID: link.receiverID, filter: Self.remindersAndPlans, page: 1, unlocked: false, on: db).memories : nil
            let shared =
                link.grant.allows(.memories)
                ? try await memories(receiverID: link.receiverID, filter: Self.shared(by: link, words: words), page: 1, unlocked: false, on: db)
                    .memories : nil
            let location = link.grant.allows(.location) ? try await repository.location(receiverID: link.receiverID, on: db) : nil
            return (reminders, shared, location)
        }
    }

    /// One memory, if the link lets him see it: in a shared category (all of it), or as a reminder or plan
    /// (its time, place and status only — the caller shows only those fields). 404 otherwise, secured or not.
    func sharedMemory(_ id: Int64, of link: CareLink) async throws -> (Memory, whole: Bool) {
        let stored = try await portal.database.read { db in try await repository.memory(id: id, receiverID: link.receiverID, on: db) }
        guard let memory = stored?.memory, !memory.secured, !memory.isDeleted, let content = memory.content else { throw APIError.notFound }
        let inCategory = link.grant.allows(.memories) && link.grant.categories.contains { $0.rawValue == content.category }
        let asPlan = link.grant.allows(.reminders) && (memory.type.isPlan || memory.reminderAt != nil)
        guard inCategory || asPlan else { throw APIError.notFound }
        try await logAccess(link, what: .memory, recordID: id)
        return (memory, inCategory)
    }

    /// Her latest location, logged as seen only when there is one to see.
    func location(of link: CareLink) async throws -> CareLocation? {
        let location = try await portal.database.read { db in try await repository.location(receiverID: link.receiverID, on: db) }
        if location != nil { try await logAccess(link, what: .location) }
        return location
    }

    func saveLocation(_ location: CareLocation, receiverID: Int64) async throws {
        try await portal.database.write { db in try await repository.saveLocation(location, receiverID: receiverID, on: db) }
    }

    func accessLog(receiverID: Int64, page: Int) async throws -> (entries: [CareAccessEntry], hasMore: Bool) {
        try await portal.database.read { db in
            let rows = try await repository.accessLog(receiverID: receiverID, limit: Self.pageSize, offset: (page - 1) * Self.pageSize, on: db)
            return (Array(rows.prefix(Self.pageSize)), rows.count > Self.pageSize)
        }
    }
}
