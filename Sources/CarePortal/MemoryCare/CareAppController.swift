import Foundation
import Hummingbird
import PortalPlatform

/// The care receiver's pages in the people's web app (`/app/care`), over the same domain code as her
/// app's API (`MemoryCare`): her memories with search and a category filter, adding and changing them one
/// kind at a time, ticking plans done (with undo), her secured memories behind her PIN, and her contacts.
/// Sharing is in `CareSharingController`.
struct CareAppController {
    let portal: Portal
    var care: MemoryCare { MemoryCare(portal: portal) }
    let repository = CareRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        CareAppAccounts(portal: portal, kind: .careReceiver, navigation: .careReceiver).addRoutes(to: &routes)
        let access = Access.careReceiverPages
        routes.get(CareURL.appMemories.pattern, access: access, memories)
        routes.get(CareURL.appMemoryNew.pattern, access: access, newMemory)
        routes.post(CareURL.appMemoryNew.pattern, access: access, createMemory)
        routes.get(CareURL.pattern(CareURL.appMemory), access: access, memory)
        routes.get(CareURL.pattern(CareURL.appMemoryEdit), access: access, editMemory)
        routes.post(CareURL.pattern(CareURL.appMemoryEdit), access: access, saveMemory)
        routes.post(CareURL.pattern(CareURL.appMemoryStatus), access: access, changeStatus)
        routes.get(CareURL.pattern(CareURL.appMemoryDelete), access: access, confirmDelete)
        routes.post(CareURL.pattern(CareURL.appMemoryDelete), access: access, deleteMemory)
        routes.post(CareURL.pattern(CareURL.appMemoryFiles), access: access, attachFile)
        routes.get(CareURL.pattern(CareURL.appMemoryFile), access: access, file)
        routes.get(CareURL.pattern(CareURL.appMemoryFileRemove), access: access, confirmRemoveFile)
        routes.post(CareURL.pattern(CareURL.appMemoryFileRemove), access: access, removeFile)
        routes.get(CareURL.appUnlock.pattern, access: access, unlockForm)
        routes.post(CareURL.appUnlock.pattern, access: access, unlock)
        routes.post(CareURL.appLock.pattern, access: access, lock)
        routes.get(CareURL.appPIN.pattern, access: access, pinForm)
        routes.post(CareURL.appPIN.pattern, access: access, savePIN)
        CareContactsController(portal: portal).addRoutes(to: &routes)
        CareSharingController(portal: portal).addRoutes(to: &routes)
    }

    static func layout(_ portal: Portal, _ title: String, _ context: PortalContext, _ url: CareURL) -> Layout {
        portal.appLayout(title, context: context, navigation: .careReceiver, currentPath: url.path)
    }

    private func layout(_ title: String, _ context: PortalContext, _ url: CareURL = .appMemories) -> Layout {
        Self.layout(portal, title, context, url)
    }

    static func receiver(_ context: PortalContext) throws -> AppAccountHolder {
        guard let holder = context.appAccount, holder.kind == .careReceiver else { throw HTTPError(.notFound) }
        return holder
    }

    private var clock: ProgramClock { portal.programSettings.current.clock }

    // MARK: Her memories

    @Sendable func memories(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let query = MemoryRules.withoutControlCharacters(request.query("q") ?? "")
        let category = request.query("category").flatMap(MemoryCategory.init(rawValue:))?.rawValue
        let page = CarePageLinks.number(request)
        var filter = CareRepository.MemoryFilter(words: query.split(whereSeparator: \.isWhitespace).map(String.init))
        if let category { filter.categories = [category] }
        let openUntil = care.unlockedUntil(holder)
        let (account, memories, hasMore, thisWeek) = try await care.memoriesPage(
            holder,
            filter: filter,
            page: page,
            unlocked: openUntil != nil,
            weekAhead: page == 1 && query.isEmpty && category == nil
        )
        let notice: String? =
            switch request.query("done") {
            case "deleted": "The memory is deleted."
            case "locked": "Your secured memories are closed again."
            default: nil
            }
        return portal.pages.response(
            CareMemoriesPage(
                layout: layout("Your memories", context),
                name: account.name,
                thisWeek: thisWeek,
                memories: memories,
                query: query.trimmed,
                category: category,
                page: page,
                hasMore: hasMore,
                openUntil: openUntil,
                hasSecured: account.hasPIN,
                clock: clock,
                notice: notice
            )
        )
    }

    /// Her contacts to choose people from, and whether she has a PIN.
    private func formContext(_ holder: AppAccountHolder) async throws -> (contacts: [CareContact], hasPIN: Bool) {
        let contacts = try await care.contacts(receiverID: holder.accountID, words: [], page: 1).contacts
        return (contacts, try await care.account(holder).0.hasPIN)
    }

    private func formPage(
        _ context: PortalContext,
        type: MemoryType,
        typed: CareMemoryTyped,
        problems: CareMemoryTyped.Problems = .init(),
        memory: Memory? = nil,
        conflict: String? = nil,
        askPIN: Bool = false,
        holder: AppAccountHolder
    ) async throws -> CareMemoryFormPage {
        let (contacts, hasPIN) = try await formContext(holder)
        return CareMemoryFormPage(
            layout: layout(memory == nil ? "New memory" : "Change a memory", context),
            type: type,
            typed: typed,
            problems: problems,
            memoryID: memory?.id,
            version: memory?.version,
            action: memory.map { CareURL.appMemoryEdit($0.id).path } ?? CareURL.appMemoryNew.path,
            cancelPath: memory.map { CareURL.appMemory($0.id).path } ?? CareURL.appMemories.path,
            contacts: contacts,
            hasPIN: hasPIN,
            conflict: conflict,
            askPIN: askPIN
        )
    }

    /// Step one chooses the kind of memory (`?type=`); step two is its form.
    @Sendable func newMemory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        guard let type = request.query("type").flatMap(MemoryType.init(rawValue:)) else {
            let problem = request.query("chosen") == nil ? nil : "Choose what kind of memory it is"
            return portal.pages.response(
                CareMemoryTypePage(layout: layout("New memory", context, .appMemoryNew), problem: problem),
                status: problem == nil ? .ok : .unprocessableContent
            )
        }
        return portal.pages.response(try await formPage(context, type: type, typed: CareMemoryTyped(), holder: holder))
    }

    /// What she typed as a memory of `type` over `kept`, or the form again with every problem.
    private func checked(
        _ form: CareMemoryForm,
        type: MemoryType,
        kept: MemoryContent?,
        offered: [CareContact]
    ) -> (MemoryContent, CareMemoryTyped.Problems) {
        var typed = form.typed
        // People the form could not offer (beyond her first page of contacts) stay on the memory.
        let offeredIDs = Set(offered.map(\.id))
        typed.people += (kept?.people ?? []).filter { !offeredIDs.contains($0) }
        return typed.checked(type: type, kept: kept, knownContacts: offeredIDs.union(kept?.people ?? []))
    }

    /// A refusal of the domain's (no PIN, a paused throttle) as a problem beside the field it is about.
    private static func problems(of error: APIError) -> CareMemoryTyped.Problems {
        var problems = CareMemoryTyped.Problems()
        if error.code == APIError.pinNotSet.code {
            problems.fields["secured"] = "Make a PIN first: secured memories open only with it"
        } else if error.code == APIError.locked.code {
            problems.fields["secured"] = "Enter your PIN first to change a secured memory"
        } else {
            CareMemoryTyped.add(error.fields.isEmpty ? ["title": error.message] : error.fields, to: &problems)
        }
        return problems
    }

    @Sendable func createMemory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let form = try await request.form(CareMemoryForm.self, context: context)
        guard let type = form.type.flatMap(MemoryType.init(rawValue:)) else { throw HTTPError(.badRequest) }
        let (contacts, _) = try await formContext(holder)
        let (content, found) = checked(form, type: type, kept: nil, offered: contacts)
        var problems = found
        if problems.isEmpty {
            do {
                let unlocked = care.unlockedUntil(holder) != nil
                let (memory, _) = try await care.create(
                    receiverID: holder.accountID,
                    by: .careReceiver(holder.accountID),
                    type: type,
                    secured: form.secured == "on" || type.isSecret,
                    clientID: nil,
                    content: content,
                    unlocked: unlocked
                )
                return seeOther("\(CareURL.appMemory(memory.id).path)?done=saved")
            } catch let error as APIError where error.status != .notFound {
                problems = Self.problems(of: error)
            }
        }
        return portal.pages.response(
            try await formPage(context, type: type, typed: form.typed, problems: problems, holder: holder),
            status: .unprocessableContent
        )
    }

    /// Her memory, opened if her PIN is entered; 404 for one that is not hers or is deleted.
    private func stored(_ context: PortalContext, _ holder: AppAccountHolder) async throws -> Memory {
        try await care.memory(
            id: try context.parameters.recordID(),
            receiverID: holder.accountID,
            unlocked: care.unlockedUntil(holder) != nil
        )
    }

    /// The names of her contacts a memory is about, by id.
    private func names(_ people: [Int64], receiverID: Int64) async throws -> [Int64: String] {
        try await portal.database.read { db in
            var names: [Int64: String] = [:]
            for id in people.prefix(MemoryRules.maximumPeople) {
                if let contact = try await repository.contact(id: id, receiverID: receiverID, on: db), contact.deletedAt == nil {
                    names[id] = contact.content.name
                }
            }
            return names
        }
    }

    @Sendable func memory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let (notice, undo): (String?, String?) =
            switch request.query("done") {
            case "saved": ("Saved.", nil)
            case "done": ("Marked as done.", MemoryStatus.open.rawValue)
            case "open": ("Marked as not done.", MemoryStatus.done.rawValue)
            case "changed": ("It was changed somewhere else just now. This is how it is now: please try again.", nil)
            case "attached": ("Added.", nil)
            case "removed": ("Removed.", nil)
            default: (nil, nil)
            }
        return try await memoryPage(try await stored(context, holder), holder, context, notice: notice, undo: undo)
    }

    /// Her memory's page, with its files when it is open; `fileError` beside the file box (422).
    private func memoryPage(
        _ memory: Memory,
        _ holder: AppAccountHolder,
        _ context: PortalContext,
        notice: String? = nil,
        undo: String? = nil,
        fileError: String? = nil
    ) async throws -> Response {
        let names = try await names(memory.content?.people ?? [], receiverID: holder.accountID)
        let files = memory.content == nil ? [] : try await care.files(of: memory)
        return portal.pages.response(
            CareMemoryPage(
                layout: layout(memory.content?.title ?? "Secured memory", context),
                memory: memory,
                contacts: names,
                notice: notice,
                undoStatus: undo,
                files: files,
                fileError: fileError
            ),
            status: fileError == nil ? .ok : .unprocessableContent
        )
    }

    // MARK: Pictures and files

    @Sendable func attachFile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let form = try await request.multipartForm()
        let memory = try await stored(context, holder)
        guard memory.content != nil else { return seeOther("\(CareURL.appUnlock.path)?next=\(CareURL.appMemory(memory.id).path)") }
        do {
            _ = try await care.attach(form.files["file"], toMemory: memory.id, receiverID: holder.accountID, unlocked: true)
        } catch let refused as CareFileRefused {
            return try await memoryPage(memory, holder, context, fileError: refused.message)
        }
        return seeOther("\(CareURL.appMemory(memory.id).path)?done=attached")
    }

    @Sendable func file(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let id = try context.parameters.recordID()
        let unlocked = care.unlockedUntil(holder) != nil
        do {
            guard
                let file = try await care.file(
                    try context.parameters.secondRecordID(),
                    ofMemory: id,
                    receiverID: holder.accountID,
                    unlocked: unlocked
                )
            else {
                throw HTTPError(.notFound)
            }
            return try await care.response(for: file, receiverID: holder.accountID, request: request, context: context)
        } catch let error as APIError where error.code == APIError.locked.code {
            return seeOther("\(CareURL.appUnlock.path)?next=\(CareURL.appMemory(id).path)")
        }
    }

    @Sendable func confirmRemoveFile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let memory = try await stored(context, holder)
        guard memory.content != nil else { return seeOther("\(CareURL.appUnlock.path)?next=\(CareURL.appMemory(memory.id).path)") }
        let fileID = try context.parameters.secondRecordID()
        guard let file = try await care.file(fileID, ofMemory: memory.id, receiverID: holder.accountID, unlocked: true) else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(
            CareConfirmPage(
                layout: layout("Remove a file", context),
                heading: "Remove “\(file.name ?? "file")”?",
                body: "It goes from this memory, and from the apps of anyone you share it with. This cannot be undone.",
                action: CareURL.appMemoryFileRemove(memory.id, fileID).path,
                version: nil,
                button: "Yes, remove it",
                cancelPath: CareURL.appMemory(memory.id).path
            )
        )
    }

    @Sendable func removeFile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let id = try context.parameters.recordID()
        do {
            try await care.removeFile(
                try context.parameters.secondRecordID(),
                ofMemory: id,
                receiverID: holder.accountID,
                unlocked: care.unlockedUntil(holder) != nil
            )
        } catch let error as APIError where error.code == APIError.locked.code {
            return seeOther("\(CareURL.appUnlock.path)?next=\(CareURL.appMemory(id).path)")
        }
        return seeOther("\(CareURL.appMemory(id).path)?done=removed")
    }

    @Sendable func editMemory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let memory = try await stored(context, holder)
        guard let content = memory.content else { return seeOther("\(CareURL.appUnlock.path)?next=\(CareURL.appMemoryEdit(memory.id).path)") }
        return portal.pages.response(
            try await formPage(
                context,
                type: memory.type,
                typed: CareMemoryTyped(content, secured: memory.secured),
                memory: memory,
                holder: holder
            )
        )
    }

    @Sendable func saveMemory(request: Request, context: PortalContext) async throws -> Response {
        var holder = try Self.receiver(context)
        let form = try await request.form(CareMemoryForm.self, context: context)
        var current = try await stored(context, holder)
        func formAgain(_ problems: CareMemoryTyped.Problems, memory: Memory, conflict: String? = nil, askPIN: Bool = false) async throws -> Response {
            let page = try await formPage(
                context,
                type: current.type,
                typed: form.typed,
                problems: problems,
                memory: memory,
                conflict: conflict,
                askPIN: askPIN,
                holder: holder
            )
            return portal.pages.response(page, status: conflict == nil ? .unprocessableContent : .conflict)
        }
        if current.content == nil {
            // Her secured memories closed while she typed: her PIN, typed on the form, opens them and her changes
            // are saved; until then the form keeps everything she typed.
            if let problems = try await reopen(pin: form.pin, holder: &holder, origin: portal.origin(of: request, context: context)) {
                return try await formAgain(problems, memory: current, askPIN: true)
            }
            current = try await stored(context, holder)
        }
        guard let kept = current.content else { throw HTTPError(.notFound) }
        let (contacts, _) = try await formContext(holder)
        let (content, problems) = checked(form, type: current.type, kept: kept, offered: contacts)
        guard problems.isEmpty else { return try await formAgain(problems, memory: current) }
        switch try await update(current, to: content, form: form, holder: holder) {
        case .saved: return seeOther("\(CareURL.appMemory(current.id).path)?done=saved")
        case .changedElsewhere(let newer):
            // What she typed stays in the boxes; saving again keeps it over the newer version.
            let conflict =
                "It was changed somewhere else (perhaps in the app) since you opened it. Your changes are still below: save again to keep them."
            return try await formAgain(problems, memory: newer, conflict: conflict)
        case .refused(let refused): return try await formAgain(refused, memory: current)
        }
    }

    /// Opens her secured memories again with the PIN typed on the form (`holder` then says so for the rest of
    /// the request); what to tell her, by field, when it does not.
    private func reopen(pin: String?, holder: inout AppAccountHolder, origin: AuditOrigin) async throws -> CareMemoryTyped.Problems? {
        var problems = CareMemoryTyped.Problems()
        guard let pin, !pin.isEmpty else {
            problems.fields["pin"] =
                "Your secured memories closed after \(Int(MemoryCare.unlockLifetime / 60)) minutes: enter your PIN to save your changes"
            return problems
        }
        do {
            holder = holder.opened(until: try await care.unlock(holder, pin: pin, origin: origin))
            return nil
        } catch let error as APIError {
            problems.fields["pin"] = error.pausedPageMessage ?? error.fields["pin"] ?? error.message
            return problems
        }
    }

    /// What saving her changed memory came to.
    private enum MemoryUpdate {
        case saved
        /// Changed elsewhere since she opened it: the newer version.
        case changedElsewhere(Memory)
        case refused(CareMemoryTyped.Problems)
    }

    private func update(_ memory: Memory, to content: MemoryContent, form: CareMemoryForm, holder: AppAccountHolder) async throws -> MemoryUpdate {
        do {
            _ = try await care.update(
                id: memory.id,
                receiverID: holder.accountID,
                by: .careReceiver(holder.accountID),
                version: Int64(form.version ?? "") ?? -1,
                secured: memory.type.isSecret ? true : form.secured == "on",
                content: content,
                unlocked: care.unlockedUntil(holder) != nil
            )
            return .saved
        } catch CareConflict.memory(let newer) {
            return .changedElsewhere(newer)
        } catch let error as APIError where error.status != .notFound {
            return .refused(Self.problems(of: error))
        }
    }

    private struct StatusForm: Decodable {
        var status: String?
        var item: String?
    }

    /// Ticks a plan done or not (`status`), or one line of a to-do list (`item`); the page offers undo.
    @Sendable func changeStatus(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let memory = try await stored(context, holder)
        guard var content = memory.content else { return seeOther("\(CareURL.appUnlock.path)?next=\(CareURL.appMemory(memory.id).path)") }
        let form = try await request.form(StatusForm.self, context: context)
        let done: String
        if let item = form.item.flatMap(Int.init), content.items.indices.contains(item) {
            content.items[item].done.toggle()
            done = "saved"
        } else if let status = form.status.flatMap(MemoryStatus.init(rawValue:)), status == .done || status == .open, memory.type.isPlan {
            content.status = status.rawValue
            done = status.rawValue
        } else {
            throw HTTPError(.badRequest)
        }
        do {
            _ = try await care.update(
                id: memory.id,
                receiverID: holder.accountID,
                by: .careReceiver(holder.accountID),
                version: memory.version,
                secured: memory.secured,
                content: content,
                unlocked: care.unlockedUntil(holder) != nil
            )
        } catch CareConflict.memory {
            return seeOther("\(CareURL.appMemory(memory.id).path)?done=changed")
        }
        return seeOther("\(CareURL.appMemory(memory.id).path)?done=\(done)")
    }

    @Sendable func confirmDelete(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let memory = try await stored(context, holder)
        guard let content = memory.content else { return seeOther("\(CareURL.appUnlock.path)?next=\(CareURL.appMemoryDelete(memory.id).path)") }
        let reminders = content.reminderAt == nil ? "" : " Its reminders stop."
        return portal.pages.response(
            CareConfirmPage(
                layout: layout("Delete a memory", context),
                heading: "Delete “\(content.title)”?",
                body: "It goes from your memories, and from the apps of anyone you share it with.\(reminders) This cannot be undone.",
                action: CareURL.appMemoryDelete(memory.id).path,
                version: memory.version,
                button: "Yes, delete it",
                cancelPath: CareURL.appMemory(memory.id).path
            )
        )
    }

    private struct VersionForm: Decodable {
        var version: String?
    }

    @Sendable func deleteMemory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let id = try context.parameters.recordID()
        let version = try await request.form(VersionForm.self, context: context).version.flatMap { Int64($0) }
        do {
            try await care.delete(
                id: id,
                receiverID: holder.accountID,
                by: .careReceiver(holder.accountID),
                version: version,
                unlocked: care.unlockedUntil(holder) != nil
            )
        } catch CareConflict.memory {
            // Changed since she was asked: she sees it as it is now before deciding again.
            return seeOther("\(CareURL.appMemory(id).path)?done=changed")
        } catch let error as APIError where error.code == APIError.locked.code {
            return seeOther("\(CareURL.appUnlock.path)?next=\(CareURL.appMemoryDelete(id).path)")
        }
        return seeOther("\(CareURL.appMemories.path)?done=deleted")
    }

    // MARK: Her PIN

    @Sendable func unlockForm(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let hasPIN = try await care.account(holder).0.hasPIN
        return portal.pages.response(
            CareUnlockPage(
                layout: layout("Secured memories", context),
                hasPIN: hasPIN,
                next: AppAccountKind.careReceiver.ownPage(request.query("next"))
            )
        )
    }

    private struct PINForm: Decodable {
        var pin: String?
        var password: String?
        var next: String?
    }

    @Sendable func unlock(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let form = try await request.form(PINForm.self, context: context)
        let next = AppAccountKind.careReceiver.ownPage(form.next)
        do {
            _ = try await care.unlock(holder, pin: form.pin ?? "", origin: portal.origin(of: request, context: context))
            return seeOther(next ?? CareURL.appMemories.path)
        } catch let error as APIError {
            var errors = FormErrors()
            errors.add("pin", error.pausedPageMessage ?? error.fields["pin"] ?? error.message)
            let hasPIN = try await care.account(holder).0.hasPIN
            return portal.pages.response(
                CareUnlockPage(layout: layout("Secured memories", context), hasPIN: hasPIN, next: next, errors: errors),
                status: .unprocessableContent
            )
        }
    }

    @Sendable func lock(request: Request, context: PortalContext) async throws -> Response {
        try await care.lock(try Self.receiver(context))
        return seeOther("\(CareURL.appMemories.path)?done=locked")
    }

    @Sendable func pinForm(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let hasPIN = try await care.account(holder).0.hasPIN
        return portal.pages.response(CarePINPage(layout: layout("Your PIN", context), hasPIN: hasPIN, saved: request.query("saved") != nil))
    }

    @Sendable func savePIN(request: Request, context: PortalContext) async throws -> Response {
        let holder = try Self.receiver(context)
        let form = try await request.form(PINForm.self, context: context)
        do {
            try await care.setPIN(holder, password: form.password ?? "", pin: form.pin ?? "", origin: portal.origin(of: request, context: context))
            return seeOther("\(CareURL.appPIN.path)?saved=1")
        } catch let error as APIError {
            var errors = FormErrors()
            if let paused = error.pausedPageMessage { errors.add("password", paused) }
            for field in ["password", "pin"] { if let problem = error.fields[field] { errors.add(field, problem) } }
            if errors.isEmpty { errors.add("password", error.message) }
            let hasPIN = try await care.account(holder).0.hasPIN
            return portal.pages.response(
                CarePINPage(layout: layout("Your PIN", context), hasPIN: hasPIN, errors: errors),
                status: .unprocessableContent
            )
        }
    }
}

extension Access {
    /// The care receiver's pages in the web app, with her cookie session in force.
    static let careReceiverPages = Access.appPage(.careReceiver)
    /// The caregiver's pages in the web app.
    static let caregiverPages = Access.appPage(.caregiver)
}
