import Foundation
import PortalPlatform

/// The memory-care apps' JSON: what they send (every field optional, so a missing one is a per-field
/// message) and what they are answered.
enum CareAPI {
    // MARK: Accounts

    struct Registration: Decodable, Sendable {
        var email: String?
        var password: String?
        var name: String?
    }

    /// A new password chosen while signed in.
    struct PasswordChange: Decodable, Sendable {
        var currentPassword: String?
        var newPassword: String?
    }

    struct FeedbackBody: Decodable, Sendable {
        var message: String?
        /// `feedback` (when left out) or `bug_report`.
        var kind: String?
    }

    struct CheckEmail: Encodable, Sendable {
        let message: String
    }

    struct Confirmation: Decodable, Sendable {
        var token: String?
    }

    struct Support: Encodable, Sendable {
        let phone: String
        let email: String
    }

    struct Account: Encodable, Sendable {
        let id: Int64
        let name: String
        let email: String
        /// Care receivers only: whether she has made her PIN for secured memories.
        let hasPin: Bool?
        let support: Support

        init(_ account: CareAccount, settings: CareSettings) {
            (id, name, email) = (account.id, account.name, account.email)
            hasPin = account.kind == .careReceiver ? account.hasPIN : nil
            support = Support(phone: settings.supportPhone, email: settings.supportEmail)
        }
    }

    struct Session: Encodable, Sendable {
        let token: String
        let expiresAt: Date
        let account: Account
    }

    struct PINChange: Decodable, Sendable {
        var password: String?
        var pin: String?
    }

    struct Unlock: Decodable, Sendable {
        var pin: String?
    }

    struct Unlocked: Encodable, Sendable {
        let unlockedUntil: Date
    }

    // MARK: Memories

    struct CustomFieldBody: Decodable, Sendable {
        var title: String?
        var content: String?
    }

    struct ItemBody: Decodable, Sendable {
        var text: String?
        var done: Bool?
    }

    struct MemoryBody: Decodable, Sendable {
        var clientId: String?
        var type: String?
        var secured: Bool?
        var version: Int64?
        var title: String?
        var category: String?
        var happensAt: String?
        var reminderAt: String?
        var recurrence: String?
        var recurrenceDays: [String]?
        var status: String?
        var tags: [String]?
        var location: String?
        var emoji: String?
        var description: String?
        var customFields: [CustomFieldBody]?
        var people: [Int64]?
        var fields: [String: String]?
        var items: [ItemBody]?

        /// The content it gives, with the defaults of a field left out.
        var content: MemoryContent {
            MemoryContent(
                title: title?.trimmed ?? "",
                category: category ?? MemoryCategory.other.rawValue,
                happensAt: happensAt.flatMap { $0.isEmpty ? nil : $0 },
                reminderAt: reminderAt.flatMap { $0.isEmpty ? nil : $0 },
                recurrence: recurrence ?? Recurrence.none.rawValue,
                recurrenceDays: recurrenceDays ?? [],
                status: status ?? MemoryStatus.none.rawValue,
                tags: tags ?? [],
                location: location?.trimmed ?? "",
                emoji: emoji ?? "",
                description: description ?? "",
                customFields: (customFields ?? []).map { CustomField(title: $0.title?.trimmed ?? "", content: $0.content ?? "") },
                people: people ?? [],
                fields: fields ?? [:],
                items: (items ?? []).map { TodoItem(text: $0.text?.trimmed ?? "", done: $0.done ?? false) }
            )
        }
    }

    /// A memory as its owner's app reads it. A deleted one carries only its id, version and `deleted`;
    /// a secured one whose PIN is not entered carries no words, only `locked`.
    struct Memory: Encodable, Sendable, APIJSONSelfWriting {
        let id: Int64
        let clientId: String?
        let type: String
        let secured: Bool
        let locked: Bool
        let deleted: Bool
        let version: Int64
        let createdAt: Date
        let updatedAt: Date
        /// `care_receiver` or `caregiver`: who made the last change.
        let changedBy: String
        let title: String?
        let category: String?
        let happensAt: String?
        let reminderAt: String?
        let recurrence: String?
        let recurrenceDays: [String]?
        let status: String?
        let tags: [String]?
        let location: String?
        let emoji: String?
        let description: String?
        let customFields: [CustomField]?
        let people: [Int64]?
        let fields: [String: String]?
        let items: [TodoItem]?

        init(_ memory: CarePortal.Memory) {
            (id, clientId, type, secured, version, createdAt, updatedAt) = (
                memory.id, memory.clientID, memory.type.rawValue, memory.secured, memory.version, memory.createdAt, memory.updatedAt
            )
            deleted = memory.isDeleted
            locked = !memory.isDeleted && memory.content == nil
            changedBy = memory.changedByCaregiver ? AppAccountKind.caregiver.role : AppAccountKind.careReceiver.role
            let content = memory.content
            title = content?.title
            category = content?.category
            happensAt = content?.happensAt
            reminderAt = memory.isDeleted ? nil : memory.reminderAt
            recurrence = memory.isDeleted ? nil : memory.recurrence.rawValue
            recurrenceDays = content?.recurrenceDays
            status = content?.status
            tags = content?.tags
            location = content?.location
            emoji = content?.emoji
            description = content?.description
            customFields = content?.customFields
            people = content?.people
            fields = content.map { $0.fields.isEmpty ? nil : $0.fields } ?? nil
            items = content?.items
        }
    }

    /// A page of her memories, sent as an `APIPage`.
    struct MemoryPage: Encodable, Sendable {
        let memories: [Memory]
    }

    // MARK: Notifications

    struct Notification: Encodable, Sendable {
        let id: Int64
        /// `care_reminder` (hers) or `care_still_open` (a caregiver's).
        let kind: String
        let message: String
        /// The memory it is about, for the app to open.
        let memoryId: Int64?
        let createdAt: Date
        let read: Bool

        init(_ stored: StoredNotification) {
            (id, kind, message, createdAt, read) = (stored.id, stored.kind, stored.message, stored.createdAt, stored.readAt != nil)
            memoryId = stored.subject?.type == NotificationSubject.careMemoryType ? stored.subject?.id : nil
        }
    }

    struct Notifications: Encodable, Sendable {
        let notifications: [Notification]
        let page: Int
        let pageCount: Int
        let totalCount: Int
        let unreadCount: Int
    }

    // MARK: Contacts

    struct ContactBody: Decodable, Sendable {
        var clientId: String?
        var version: Int64?
        var name: String?
        var phones: [String]?
        var email: String?
        var address: String?
        var company: String?

        var content: ContactContent {
            ContactContent(
                name: name?.trimmed ?? "",
                phones: (phones ?? []).map(\.trimmed),
                email: email?.trimmed ?? "",
                address: address?.trimmed ?? "",
                company: company?.trimmed ?? ""
            )
        }
    }

    struct Contact: Encodable, Sendable, APIJSONSelfWriting {
        let id: Int64
        let clientId: String?
        let deleted: Bool
        let version: Int64
        let updatedAt: Date
        let name: String?
        let phones: [String]?
        let email: String?
        let address: String?
        let company: String?

        init(_ contact: CareContact) {
            (id, clientId, version, updatedAt) = (contact.id, contact.clientID, contact.version, contact.updatedAt)
            deleted = contact.deletedAt != nil
            let content = deleted ? nil : contact.content
            (name, phones, email, address, company) = (content?.name, content?.phones, content?.email, content?.address, content?.company)
        }
    }

    /// A page of her contacts, sent as an `APIPage`.
    struct ContactPage: Encodable, Sendable {
        let contacts: [Contact]
    }

    /// One contact with the memories that name them (§4.1.5.1.1).
    struct ContactDetail: Encodable, Sendable {
        let contact: Contact
        let memories: [Memory]
    }

    // MARK: Sync

    struct Changes: Encodable, Sendable {
        let memories: [Memory]
        let contacts: [Contact]
        /// Send it back as `since` for the next changes.
        let cursor: String
        let hasMore: Bool
    }

    /// A 409: the error, and the record as it is now, to merge with.
    struct Conflict<Record: Encodable & Sendable>: Encodable, Sendable {
        struct Problem: Encodable, Sendable {
            let code: String
            let message: String
            let fields: [String: String]
        }

        let error: Problem
        let current: Record

        init(_ current: Record) {
            error = Problem(code: "version_conflict", message: "This was changed elsewhere. Here it is as it is now.", fields: [:])
            self.current = current
        }
    }

    // MARK: Sharing

    struct GrantBody: Decodable, Sendable {
        var scopes: [String]?
        var categories: [String]?
    }

    struct Invitation: Encodable, Sendable {
        let id: Int64
        /// Only in the answer that made it: read it to the caregiver.
        let code: String?
        let scopes: [String]
        let categories: [String]
        let createdAt: Date
        let expiresAt: Date

        init(_ invitation: CareInvitation, code: String? = nil) {
            (id, self.code, createdAt, expiresAt) = (invitation.id, code, invitation.createdAt, invitation.expiresAt)
            scopes = invitation.grant.sortedScopes.map(\.rawValue)
            categories = invitation.grant.sortedCategories.map(\.rawValue)
        }
    }

    struct Invitations: Encodable, Sendable {
        let invitations: [Invitation]
    }

    /// A file attached to a memory, or a contact's photo; `url` reads its bytes.
    struct File: Encodable, Sendable {
        let id: Int64
        let name: String
        let contentType: String
        let size: Int
        let createdAt: Date
        let url: String

        init(_ file: CareFile, url: String) {
            (id, name, contentType, size, createdAt, self.url) = (file.id, file.name ?? "", file.type.rawValue, file.size, file.createdAt, url)
        }
    }

    struct Files: Encodable, Sendable {
        let files: [File]
    }

    struct InvitationAnswer: Decodable, Sendable {
        var code: String?
    }

    struct LinkEvent: Encodable, Sendable {
        let at: Date
        /// `granted`, `changed` or `revoked`.
        let event: String
        /// `care_receiver`, `caregiver` or `staff`.
        let by: String
        let scopes: [String]
        let categories: [String]
    }

    struct Link: Encodable, Sendable {
        let id: Int64
        /// The other person: her caregiver in her app, the care receiver in his.
        let name: String
        let scopes: [String]
        let categories: [String]
        let createdAt: Date
        let revokedAt: Date?
        /// Her app only: every grant, change and revocation, oldest first.
        let history: [LinkEvent]?

        init(_ link: CareLink, history: [CareLinkEvent]?, forCaregiver: Bool) {
            (id, createdAt, revokedAt) = (link.id, link.createdAt, link.revokedAt)
            name = forCaregiver ? link.receiverName : link.caregiverName
            scopes = link.grant.sortedScopes.map(\.rawValue)
            categories = link.grant.sortedCategories.map(\.rawValue)
            self.history = history?.map {
                LinkEvent(
                    at: $0.at,
                    event: $0.kind.rawValue,
                    by: $0.actor.role,
                    scopes: $0.grant.sortedScopes.map(\.rawValue),
                    categories: $0.grant.sortedCategories.map(\.rawValue)
                )
            }
        }
    }

    struct Links: Encodable, Sendable {
        let links: [Link]
    }

    struct AccessEntry: Encodable, Sendable {
        let at: Date
        let caregiverName: String?
        /// `reminders`, `memories`, `memory` or `location`.
        let what: String
        let recordId: Int64?
        /// "Sam saw your reminders and appointments on 3 Mar 2026, 10:14 EST".
        let sentence: String
    }

    struct AccessLog: Encodable, Sendable {
        let entries: [AccessEntry]
        let page: Int
        let hasMore: Bool
    }

    struct LocationBody: Decodable, Sendable {
        var latitude: Double?
        var longitude: Double?
        var accuracyMetres: Double?
    }

    struct Location: Encodable, Sendable {
        let latitude: Double
        let longitude: Double
        let accuracyMetres: Double?
        let at: Date
    }

    /// What a caregiver sees of a memory: all of it in a shared category; only its time, place and status
    /// as a reminder or plan.
    struct SharedMemory: Encodable, Sendable {
        let id: Int64
        let type: String
        let version: Int64
        let title: String
        let category: String?
        let happensAt: String?
        let reminderAt: String?
        let recurrence: String
        let recurrenceDays: [String]
        let status: String
        let location: String
        let emoji: String
        let description: String?
        let tags: [String]?
        let customFields: [CustomField]?
        let items: [TodoItem]?

        init?(_ memory: CarePortal.Memory, whole: Bool) {
            guard let content = memory.content else { return nil }
            (id, type, version, title, happensAt, reminderAt) = (
                memory.id, memory.type.rawValue, memory.version, content.title, content.happensAt, content.reminderAt
            )
            (recurrence, recurrenceDays, status, location, emoji) = (
                content.recurrence, content.recurrenceDays, content.status, content.location, content.emoji
            )
            category = whole ? content.category : nil
            description = whole ? content.description : nil
            tags = whole ? content.tags : nil
            customFields = whole ? content.customFields : nil
            items = whole || memory.type == .todoList ? content.items : nil
        }
    }

    /// A page of what a link shows a caregiver of her memories, sent as an `APIPage`.
    struct SharedMemories: Encodable, Sendable {
        let memories: [SharedMemory]
    }
}

extension CareAPI.Memory {
    /// Her list, her search and her changes carry hundreds of these: written field by field, in the sorted
    /// order of their snake-case keys, as their synthesized encoding gives them (the tests compare the two).
    func writeJSON(to object: inout APIJSONObject) throws {
        object.field("category", category)
        object.field("changed_by", changedBy)
        object.field("client_id", clientId)
        object.field("created_at", createdAt)
        if customFields?.isEmpty == true {
            object.field("custom_fields", [String]())
        } else {
            try object.field("custom_fields", encoding: customFields)
        }
        object.field("deleted", deleted)
        object.field("description", description)
        object.field("emoji", emoji)
        try object.field("fields", encoding: fields)
        object.field("happens_at", happensAt)
        object.field("id", id)
        if items?.isEmpty == true { object.field("items", [String]()) } else { try object.field("items", encoding: items) }
        object.field("location", location)
        object.field("locked", locked)
        object.field("people", people)
        object.field("recurrence", recurrence)
        object.field("recurrence_days", recurrenceDays)
        object.field("reminder_at", reminderAt)
        object.field("secured", secured)
        object.field("status", status)
        object.field("tags", tags)
        object.field("title", title)
        object.field("type", type)
        object.field("updated_at", updatedAt)
        object.field("version", version)
    }
}

extension CareAPI.Contact {
    /// Her first sync carries hundreds of contacts: written as `CareAPI.Memory` is.
    func writeJSON(to object: inout APIJSONObject) throws {
        object.field("address", address)
        object.field("client_id", clientId)
        object.field("company", company)
        object.field("deleted", deleted)
        object.field("email", email)
        object.field("id", id)
        object.field("name", name)
        object.field("phones", phones)
        object.field("updated_at", updatedAt)
        object.field("version", version)
    }
}

extension APIPagePosition {
    /// Where a page of one of memory care's lists sits: 50 to a page, read one row past it.
    static func memoryCare(page: Int, hasMore: Bool) -> APIPagePosition {
        .readAhead(page: page, pageSize: MemoryCare.pageSize, hasMore: hasMore)
    }
}
