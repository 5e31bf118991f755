import Foundation
import Hummingbird
import PortalPlatform

/// The care receiver's app: her account and PIN, memories, contacts, changes for sync, and sharing.
struct CareAPIController {
    let portal: Portal
    var care: MemoryCare { MemoryCare(portal: portal) }

    func addRoutes(to routes: inout PortalRoutes) {
        for kind in CareAccountKind.allCases {
            routes.post(CareURL.apiRegistrations(kind).pattern, access: .everyone) { [care, portal] request, context in
                let body = try await request.json(CareAPI.Registration.self)
                try await care.register(
                    kind: kind,
                    email: body.email ?? "",
                    name: body.name ?? "",
                    password: body.password ?? "",
                    origin: portal.origin(of: request, context: context)
                )
                return .json(CareAPI.CheckEmail(message: MemoryCare.checkEmail), status: .accepted)
            }
            routes.post(CareURL.apiPasswordResets(kind).pattern, access: .everyone) { [care, portal] request, context in
                let body = try await request.json(AppPasswordReset.Ask.self)
                try await care.requestReset(kind: kind, email: body.email ?? "", origin: portal.origin(of: request, context: context))
                return .json(CareAPI.CheckEmail(message: AppPasswordReset.sent), status: .accepted)
            }
            routes.post(CareURL.apiPasswordResetCompletion(kind).pattern, access: .everyone) { [care] request, context in
                try await care.passwordReset.complete(request: request, context: context)
            }
            routes.post(CareURL.apiFeedback(kind).pattern, access: .app(kind.appAccount)) { [care] request, context in
                guard let holder = context.appAccount else { throw APIError.unauthorized }
                let body = try await request.json(CareAPI.FeedbackBody.self)
                return .json(try await care.sendFeedback(body.message ?? "", kind: body.kind, from: holder), status: .created)
            }
            routes.appSessions(kind.appAccount) { issued, db in
                guard let account = try await CareRepository().account(id: issued.accountID, kind: kind, on: db) else { throw APIError.unauthorized }
                let settings = try await CareRepository().settings(on: db)
                return CareAPI.Session(token: issued.token, expiresAt: issued.expiresAt, account: CareAPI.Account(account, settings: settings))
            }
            routes.post(CareURL.apiPassword(kind).pattern, access: .app(kind.appAccount)) { [care, portal] request, context in
                guard let holder = context.appAccount else { throw APIError.unauthorized }
                let body = try await request.json(CareAPI.PasswordChange.self)
                try await care.changePassword(
                    holder,
                    current: body.currentPassword ?? "",
                    new: body.newPassword ?? "",
                    origin: portal.origin(of: request, context: context)
                )
                return .noContent
            }
            routes.get(CareURL.apiMe(kind).pattern, access: .app(kind.appAccount)) { [care] _, context in
                guard let holder = context.appAccount else { throw APIError.unauthorized }
                let (account, settings) = try await care.account(holder)
                return .json(CareAPI.Account(account, settings: settings))
            }
            routes.get(CareURL.apiNotifications(kind).pattern, access: .app(kind.appAccount)) { [portal] request, context in
                guard let holder = context.appAccount else { throw APIError.unauthorized }
                let page = try Self.page(request)
                let (feed, unread) = try await portal.database.read { db in
                    try await portal.notifications.feed(
                        of: AppAccountRef(role: kind.rawValue, accountID: holder.accountID),
                        page: PageRequest(number: page),
                        on: db
                    )
                }
                return .json(
                    CareAPI.Notifications(
                        notifications: feed.items.map(CareAPI.Notification.init),
                        page: page,
                        pageCount: feed.pageCount,
                        totalCount: feed.totalCount,
                        unreadCount: unread
                    )
                )
            }
            AppNotificationsAPIController(
                portal: portal,
                accounts: NotificationAccounts(
                    kind: kind.appAccount,
                    access: .app(kind.appAccount),
                    preferences: .care(.apiNotificationPreferences(kind)),
                    pushTokens: .care(.apiPushTokens(kind)),
                    pushToken: { .care(.apiPushToken(kind, $0)) },
                    read: { .care(.apiNotificationRead(kind, $0)) },
                    readAll: .care(.apiNotificationsReadAll(kind)),
                    choosesReminders: false
                )
            ).addRoutes(to: &routes)
        }
        routes.post(CareURL.apiConfirmations.pattern, access: .everyone, confirm)
        routes.put(CareURL.apiPIN.pattern, access: .careReceiver, setPIN)
        routes.post(CareURL.apiUnlock.pattern, access: .careReceiver, unlock)
        routes.delete(CareURL.apiUnlock.pattern, access: .careReceiver, lock)
        routes.get(CareURL.apiMemories.pattern, access: .careReceiver, memories)
        routes.post(CareURL.apiMemories.pattern, access: .careReceiver, createMemory)
        routes.get(CareURL.pattern(CareURL.apiMemory), access: .careReceiver, memory)
        routes.put(CareURL.pattern(CareURL.apiMemory), access: .careReceiver, updateMemory)
        routes.delete(CareURL.pattern(CareURL.apiMemory), access: .careReceiver, deleteMemory)
        routes.get(CareURL.pattern(CareURL.apiMemoryFiles), access: .careReceiver, memoryFiles)
        routes.post(CareURL.pattern(CareURL.apiMemoryFiles), access: .careReceiver, attachFile)
        routes.get(CareURL.pattern(CareURL.apiMemoryFile), access: .careReceiver, memoryFile)
        routes.delete(CareURL.pattern(CareURL.apiMemoryFile), access: .careReceiver, removeFile)
        routes.get(CareURL.apiChanges.pattern, access: .careReceiver, changes)
        routes.get(CareURL.apiExport.pattern, access: .careReceiver, export)
        routes.post(CareURL.apiImport.pattern, access: .careReceiver, bodyLimit: CareTransfer.maximumBodySize, importDocument)
        routes.get(CareURL.apiContacts.pattern, access: .careReceiver, contacts)
        routes.post(CareURL.apiContacts.pattern, access: .careReceiver, createContact)
        routes.get(CareURL.pattern(CareURL.apiContact), access: .careReceiver, contact)
        routes.put(CareURL.pattern(CareURL.apiContact), access: .careReceiver, updateContact)
        routes.delete(CareURL.pattern(CareURL.apiContact), access: .careReceiver, deleteContact)
        routes.get(CareURL.pattern(CareURL.apiContactPhoto), access: .careReceiver, contactPhoto)
        routes.put(CareURL.pattern(CareURL.apiContactPhoto), access: .careReceiver, setContactPhoto)
        routes.delete(CareURL.pattern(CareURL.apiContactPhoto), access: .careReceiver, removeContactPhoto)
        routes.get(CareURL.apiInvitations.pattern, access: .careReceiver, invitations)
        routes.post(CareURL.apiInvitations.pattern, access: .careReceiver, invite)
        routes.delete(CareURL.pattern(CareURL.apiInvitation), access: .careReceiver, withdrawInvitation)
        routes.get(CareURL.apiLinks.pattern, access: .careReceiver, links)
        routes.put(CareURL.pattern(CareURL.apiLink), access: .careReceiver, changeLink)
        routes.delete(CareURL.pattern(CareURL.apiLink), access: .careReceiver, revokeLink)
        routes.get(CareURL.apiAccessLog.pattern, access: .careReceiver, accessLog)
        routes.put(CareURL.apiLocation.pattern, access: .careReceiver, saveLocation)
    }

    // MARK: Account

    @Sendable func confirm(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(CareAPI.Confirmation.self)
        guard try await care.confirm(token: body.token ?? "", origin: portal.origin(of: request, context: context)) else {
            throw APIError.validation(["token": "This link has expired or has already been used. Register again to get a new one."])
        }
        return .noContent
    }

    @Sendable func setPIN(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let body = try await request.json(CareAPI.PINChange.self)
        try await care.setPIN(holder, password: body.password ?? "", pin: body.pin ?? "", origin: portal.origin(of: request, context: context))
        return .noContent
    }

    @Sendable func unlock(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let body = try await request.json(CareAPI.Unlock.self)
        let until = try await care.unlock(holder, pin: body.pin ?? "", origin: portal.origin(of: request, context: context))
        return .json(CareAPI.Unlocked(unlockedUntil: until))
    }

    @Sendable func lock(request: Request, context: PortalContext) async throws -> Response {
        try await care.lock(try context.requireCareReceiver())
        return .noContent
    }

    // MARK: Memories

    /// `page` from 1 (1 when absent); a 400 otherwise.
    static func page(_ request: Request) throws -> Int { try request.apiPage().number }

    /// The words of `q`, without control characters (which no memory holds, and PostgreSQL refuses to compare).
    static func words(_ request: Request) -> [String] {
        MemoryRules.withoutControlCharacters(request.query("q") ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// The list's filters from the query: `q`, `category`, `type`, `tag`, `from` and `to` (dates, `to` not included).
    static func filter(_ request: Request) throws -> CareRepository.MemoryFilter {
        var problems: [String: String] = [:]
        var filter = CareRepository.MemoryFilter(words: words(request))
        if let category = request.query("category") {
            if MemoryCategory(rawValue: category) == nil {
                problems["category"] = "Use one of \(MemoryCategory.allCases.map(\.rawValue).joined(separator: ", "))"
            }
            filter.categories = [category]
        }
        if let type = request.query("type") {
            if let type = MemoryType(rawValue: type) {
                filter.types = [type]
            } else {
                problems["type"] = "Use one of \(MemoryType.allCases.map(\.rawValue).joined(separator: ", "))"
            }
        }
        if let tag = request.query("tag").map(MemoryRules.withoutControlCharacters), !tag.trimmed.isEmpty { filter.tag = tag }
        for name in ["from", "to"] {
            guard let text = request.query(name) else { continue }
            if let date = CalendarDate(iso: text) {
                if name == "from" { filter.from = date.iso } else { filter.to = date.iso }
            } else {
                problems[name] = "Use a date like 2026-03-03"
            }
        }
        guard problems.isEmpty else { throw APIError.invalidQuery(problems) }
        return filter
    }

    private func unlocked(_ holder: AppAccountHolder) async throws -> Bool {
        care.unlockedUntil(holder) != nil
    }

    @Sendable func memories(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let (filter, page) = (try Self.filter(request), try Self.page(request))
        let (memories, hasMore) = try await care.memories(
            receiverID: holder.accountID,
            filter: filter,
            page: page,
            unlocked: try await unlocked(holder)
        )
        return .json(APIPage(CareAPI.MemoryPage(memories: memories.map(CareAPI.Memory.init)), .memoryCare(page: page, hasMore: hasMore)))
    }

    private func type(of body: CareAPI.MemoryBody) throws -> MemoryType {
        guard let typed = body.type, let type = MemoryType(rawValue: typed) else {
            throw APIError.validation(["type": "Choose a template: \(MemoryType.allCases.map(\.rawValue).joined(separator: ", "))"])
        }
        return type
    }

    /// `POST …/memories`: 201 with the new memory, or 200 with the one this `client_id` made before.
    @Sendable func createMemory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let body = try await request.json(CareAPI.MemoryBody.self)
        if let problem = MemoryRules.newClientIDProblem(body.clientId) { throw APIError.validation(["client_id": problem]) }
        let (memory, created) = try await care.create(
            receiverID: holder.accountID,
            by: .careReceiver(holder.accountID),
            type: try type(of: body),
            secured: body.secured ?? false,
            clientID: body.clientId,
            content: body.content,
            unlocked: try await unlocked(holder)
        )
        return .json(CareAPI.Memory(memory), status: created ? .created : .ok)
    }

    @Sendable func memory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let memory = try await care.memory(id: try context.parameters.recordID(), receiverID: holder.accountID, unlocked: try await unlocked(holder))
        return .json(CareAPI.Memory(memory))
    }

    static func conflictResponse(_ conflict: CareConflict) -> Response {
        switch conflict {
        case .memory(let memory): .json(CareAPI.Conflict(CareAPI.Memory(memory)), status: .conflict)
        case .contact(let contact): .json(CareAPI.Conflict(CareAPI.Contact(contact)), status: .conflict)
        }
    }

    static func version(_ body: Int64?) throws -> Int64 {
        guard let version = body, version >= 1 else { throw APIError.validation(["version": "Send the version you changed, as read"]) }
        return version
    }

    /// A version in the query (`?version=3`) for a delete: optional, but checked when given.
    static func queryVersion(_ request: Request) throws -> Int64? {
        guard let text = request.query("version") else { return nil }
        guard let version = Int64(text), version >= 1 else { throw APIError.invalidQuery(["version": "Use the version you read"]) }
        return version
    }

    /// `PUT …/memories/{id}`: the whole memory as it should be, with the version it was changed from.
    @Sendable func updateMemory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let body = try await request.json(CareAPI.MemoryBody.self)
        do {
            let memory = try await care.update(
                id: try context.parameters.recordID(),
                receiverID: holder.accountID,
                by: .careReceiver(holder.accountID),
                version: try Self.version(body.version),
                secured: body.secured,
                content: body.content,
                unlocked: try await unlocked(holder)
            )
            return .json(CareAPI.Memory(memory))
        } catch let conflict as CareConflict {
            return Self.conflictResponse(conflict)
        }
    }

    @Sendable func deleteMemory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        do {
            try await care.delete(
                id: try context.parameters.recordID(),
                receiverID: holder.accountID,
                by: .careReceiver(holder.accountID),
                version: try Self.queryVersion(request),
                unlocked: try await unlocked(holder)
            )
            return .noContent
        } catch let conflict as CareConflict {
            return Self.conflictResponse(conflict)
        }
    }

    /// `GET …/changes?since=cursor`: what changed since the cursor (everything when absent), deletions included.
    @Sendable func changes(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        guard let since = Int64(request.query("since") ?? "0"), since >= 0 else {
            throw APIError.invalidQuery(["since": "Send the cursor of the last changes, or nothing"])
        }
        guard let limit = Int(request.query("limit") ?? "200"), (1...500).contains(limit) else {
            throw APIError.invalidQuery(["limit": "Use a limit from 1 to 500"])
        }
        let changes = try await care.changes(receiverID: holder.accountID, since: since, limit: limit, unlocked: try await unlocked(holder))
        return .json(
            CareAPI.Changes(
                memories: changes.memories.map(CareAPI.Memory.init),
                contacts: changes.contacts.map(CareAPI.Contact.init),
                cursor: "\(changes.cursor)",
                hasMore: changes.hasMore
            )
        )
    }

    // MARK: Files

    /// `GET …/memories/{id}/files`: what is attached to her memory; a secured one's only while her PIN has it open.
    @Sendable func memoryFiles(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let id = try context.parameters.recordID()
        let files = try await care.files(ofMemory: id, receiverID: holder.accountID, unlocked: try await unlocked(holder))
        return .json(CareAPI.Files(files: files.map { CareAPI.File($0, url: CareURL.apiMemoryFile(id, $0.id).path) }))
    }

    /// `POST …/memories/{id}/files`: a picture or PDF (`multipart/form-data`, field `file`, at most 4 MB).
    @Sendable func attachFile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let id = try context.parameters.recordID()
        let form = try await Self.multipart(request)
        do {
            let file = try await care.attach(form.files["file"], toMemory: id, receiverID: holder.accountID, unlocked: try await unlocked(holder))
            return .json(CareAPI.File(file, url: CareURL.apiMemoryFile(id, file.id).path), status: .created)
        } catch let refused as CareFileRefused {
            throw APIError.validation(["file": refused.message])
        }
    }

    /// The form of a file upload, or a 400 in the API's words.
    static func multipart(_ request: Request) async throws -> MultipartForm {
        do {
            return try await request.multipartForm()
        } catch is HTTPError {
            throw APIError(status: .badRequest, code: "bad_request", message: "Send the file as multipart/form-data.")
        }
    }

    @Sendable func memoryFile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        guard
            let file = try await care.file(
                try context.parameters.secondRecordID(),
                ofMemory: try context.parameters.recordID(),
                receiverID: holder.accountID,
                unlocked: try await unlocked(holder)
            )
        else { throw APIError.notFound }
        return try await care.response(for: file, receiverID: holder.accountID, request: request, context: context)
    }

    @Sendable func removeFile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        try await care.removeFile(
            try context.parameters.secondRecordID(),
            ofMemory: try context.parameters.recordID(),
            receiverID: holder.accountID,
            unlocked: try await unlocked(holder)
        )
        return .noContent
    }

    @Sendable func contactPhoto(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        guard let photo = try await care.photo(ofContact: try context.parameters.recordID(), receiverID: holder.accountID) else {
            throw APIError.notFound
        }
        return try await care.response(for: photo, receiverID: holder.accountID, request: request, context: context)
    }

    /// `PUT …/contacts/{id}/photo`: a picture (`multipart/form-data`, field `photo`, at most 4 MB) in place of any before.
    @Sendable func setContactPhoto(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let id = try context.parameters.recordID()
        let form = try await Self.multipart(request)
        do {
            let photo = try await care.setPhoto(form.files["photo"], ofContact: id, receiverID: holder.accountID)
            return .json(CareAPI.File(photo, url: CareURL.apiContactPhoto(id).path))
        } catch let refused as CareFileRefused {
            throw APIError.validation(["photo": refused.message])
        }
    }

    @Sendable func removeContactPhoto(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        try await care.removePhoto(ofContact: try context.parameters.recordID(), receiverID: holder.accountID)
        return .noContent
    }

    // MARK: Export and import

    /// `GET …/export`: everything she owns as one document; secured memories only while her PIN has them open.
    @Sendable func export(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let export = try await care.export(receiverID: holder.accountID, unlocked: try await unlocked(holder))
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: #"attachment; filename="memories.json""#
            ],
            body: care.body(of: export)
        )
    }

    /// `POST …/import`: a document in the export's format; all of it, or (with every problem by path) none of it.
    @Sendable func importDocument(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let document = try await request.json(CareTransfer.Document.self, upTo: CareTransfer.maximumBodySize)
        return .json(try await care.importDocument(document, receiverID: holder.accountID))
    }

    // MARK: Contacts

    @Sendable func contacts(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let page = try Self.page(request)
        let (contacts, hasMore) = try await care.contacts(receiverID: holder.accountID, words: Self.words(request), page: page)
        return .json(APIPage(CareAPI.ContactPage(contacts: contacts.map(CareAPI.Contact.init)), .memoryCare(page: page, hasMore: hasMore)))
    }

    @Sendable func createContact(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let body = try await request.json(CareAPI.ContactBody.self)
        let (contact, created) = try await care.createContact(receiverID: holder.accountID, clientID: body.clientId, content: body.content)
        return .json(CareAPI.Contact(contact), status: created ? .created : .ok)
    }

    @Sendable func contact(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let (contact, memories) = try await care.contact(id: try context.parameters.recordID(), receiverID: holder.accountID)
        return .json(CareAPI.ContactDetail(contact: CareAPI.Contact(contact), memories: memories.map(CareAPI.Memory.init)))
    }

    @Sendable func updateContact(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let body = try await request.json(CareAPI.ContactBody.self)
        do {
            let contact = try await care.updateContact(
                id: try context.parameters.recordID(),
                receiverID: holder.accountID,
                version: try Self.version(body.version),
                content: body.content
            )
            return .json(CareAPI.Contact(contact))
        } catch let conflict as CareConflict {
            return Self.conflictResponse(conflict)
        }
    }

    @Sendable func deleteContact(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        do {
            try await care.deleteContact(id: try context.parameters.recordID(), receiverID: holder.accountID, version: try Self.queryVersion(request))
            return .noContent
        } catch let conflict as CareConflict {
            return Self.conflictResponse(conflict)
        }
    }

    // MARK: Sharing

    static func grant(_ body: CareAPI.GrantBody) throws -> CareGrant {
        try CareGrant.parse(scopes: body.scopes, categories: body.categories).get()
    }

    @Sendable func invite(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let grant = try Self.grant(try await request.json(CareAPI.GrantBody.self))
        let (invitation, code) = try await care.invite(holder, grant: grant, origin: portal.origin(of: request, context: context))
        return .json(CareAPI.Invitation(invitation, code: code), status: .created)
    }

    @Sendable func invitations(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        return .json(CareAPI.Invitations(invitations: try await care.openInvitations(receiverID: holder.accountID).map { CareAPI.Invitation($0) }))
    }

    @Sendable func withdrawInvitation(request: Request, context: PortalContext) async throws -> Response {
        try await care.withdrawInvitation(id: try context.parameters.recordID(), try context.requireCareReceiver())
        return .noContent
    }

    @Sendable func links(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let links = try await care.links(of: holder)
        return .json(CareAPI.Links(links: links.map { CareAPI.Link($0.0, history: $0.1, forCaregiver: false) }))
    }

    @Sendable func changeLink(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let grant = try Self.grant(try await request.json(CareAPI.GrantBody.self))
        let link = try await care.changeLink(
            id: try context.parameters.recordID(),
            grant: grant,
            holder,
            origin: portal.origin(of: request, context: context)
        )
        return .json(CareAPI.Link(link, history: nil, forCaregiver: false))
    }

    @Sendable func revokeLink(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        try await care.revokeLink(
            id: try context.parameters.recordID(),
            by: .careReceiver(holder.accountID),
            auditActor: MemoryCare.actor(holder),
            origin: portal.origin(of: request, context: context)
        )
        return .noContent
    }

    /// "Sam saw your reminders and appointments on 3 Mar 2026, 10:14 EST", in the program's time zone.
    @Sendable func accessLog(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let page = try Self.page(request)
        let (entries, hasMore) = try await care.accessLog(receiverID: holder.accountID, page: page)
        let clock = portal.programSettings.current.clock
        return .json(
            CareAPI.AccessLog(
                entries: entries.map { entry in
                    CareAPI.AccessEntry(
                        at: entry.at,
                        caregiverName: entry.caregiverName,
                        what: entry.what.rawValue,
                        recordId: entry.recordID,
                        sentence:
                            "\(entry.caregiverName ?? "A caregiver whose account is closed") saw \(entry.what.seen) on \(clock.dateTime(entry.at))"
                    )
                },
                page: page,
                hasMore: hasMore
            )
        )
    }

    @Sendable func saveLocation(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCareReceiver()
        let body = try await request.json(CareAPI.LocationBody.self)
        var problems: [String: String] = [:]
        if body.latitude.map({ (-90...90).contains($0) }) != true { problems["latitude"] = "Send a latitude from -90 to 90" }
        if body.longitude.map({ (-180...180).contains($0) }) != true { problems["longitude"] = "Send a longitude from -180 to 180" }
        if let accuracy = body.accuracyMetres, !(0...100_000).contains(accuracy) {
            problems["accuracy_metres"] = "Send an accuracy from 0 to 100000 metres"
        }
        guard problems.isEmpty, let latitude = body.latitude, let longitude = body.longitude else { throw APIError.validation(problems) }
        try await care.saveLocation(
            CareLocation(latitude: latitude, longitude: longitude, accuracyMetres: body.accuracyMetres, at: portal.now),
            receiverID: holder.accountID
        )
        return .noContent
    }
}
