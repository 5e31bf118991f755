import Foundation
import Hummingbird
import PortalPlatform

/// The caregiver's app: entering a care receiver's code, and reading or adding only what each link
/// grants. Every read is written to her access log; a link he does not hold (or no longer holds) is 404.
struct CaregiverAPIController {
    let portal: Portal
    var care: MemoryCare { MemoryCare(portal: portal) }

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(CareURL.apiCaregiverLinks.pattern, access: .caregiver, links)
        routes.post(CareURL.apiCaregiverLinks.pattern, access: .caregiver, accept)
        routes.delete(CareURL.pattern(CareURL.apiCaregiverLink), access: .caregiver, leave)
        routes.get(CareURL.pattern { CareURL.apiCaregiverReminders(link: $0) }, access: .caregiver, reminders)
        routes.get(CareURL.pattern { CareURL.apiCaregiverMemories(link: $0) }, access: .caregiver, memories)
        routes.get(CareURL.pattern { CareURL.apiCaregiverMemory(link: $0, $1) }, access: .caregiver, memory)
        routes.get(CareURL.pattern { CareURL.apiCaregiverMemoryFiles(link: $0, $1) }, access: .caregiver, memoryFiles)
        routes.get(CareURL.pattern { CareURL.apiCaregiverMemoryFile(link: $0, $1, $2) }, access: .caregiver, memoryFile)
        routes.post(CareURL.pattern { CareURL.apiCaregiverPlans(link: $0) }, access: .caregiver, addPlan)
        routes.put(CareURL.pattern { CareURL.apiCaregiverPlan(link: $0, $1) }, access: .caregiver, changePlan)
        routes.get(CareURL.pattern { CareURL.apiCaregiverLocation(link: $0) }, access: .caregiver, location)
    }

    @Sendable func links(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCaregiver()
        return .json(CareAPI.Links(links: try await care.links(of: holder).map { CareAPI.Link($0.0, history: nil, forCaregiver: true) }))
    }

    @Sendable func accept(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCaregiver()
        let body = try await request.json(CareAPI.InvitationAnswer.self)
        let link = try await care.accept(code: body.code ?? "", holder, origin: portal.origin(of: request, context: context))
        return .json(CareAPI.Link(link, history: nil, forCaregiver: true), status: .created)
    }

    @Sendable func leave(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCaregiver()
        try await care.revokeLink(
            id: try context.parameters.recordID(),
            by: .caregiver(holder.accountID),
            auditActor: MemoryCare.actor(holder),
            origin: portal.origin(of: request, context: context)
        )
        return .noContent
    }

    private func link(_ context: PortalContext, allowing scope: CareScope) async throws -> CareLink {
        try await care.link(try context.parameters.recordID(), for: try context.requireCaregiver(), allowing: scope)
    }

    private func page(_ memories: [Memory], whole: Bool, page: Int, hasMore: Bool) -> Response {
        .json(
            APIPage(
                CareAPI.SharedMemories(memories: memories.compactMap { CareAPI.SharedMemory($0, whole: whole) }),
                .memoryCare(page: page, hasMore: hasMore)
            )
        )
    }

    /// Her reminders, appointments and to-dos: their time, place and status (the `reminders` scope).
    @Sendable func reminders(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context, allowing: .reminders)
        let number = try CareAPIController.page(request)
        let (memories, hasMore) = try await care.remindersAndPlans(of: link, page: number)
        return page(memories, whole: false, page: number, hasMore: hasMore)
    }

    /// Her memories in the categories she shares, whole (the `memories` scope); `q` searches them.
    @Sendable func memories(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context, allowing: .memories)
        let number = try CareAPIController.page(request)
        let (memories, hasMore) = try await care.sharedMemories(of: link, words: CareAPIController.words(request), page: number)
        return page(memories, whole: true, page: number, hasMore: hasMore)
    }

    @Sendable func memory(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCaregiver()
        let link = try await care.link(try context.parameters.recordID(), for: holder, allowing: nil)
        let (memory, whole) = try await care.sharedMemory(try context.parameters.secondRecordID(), of: link)
        guard let shared = CareAPI.SharedMemory(memory, whole: whole) else { throw APIError.notFound }
        return .json(shared)
    }

    /// The files of a memory he sees whole (its category is shared); noted in her access log.
    @Sendable func memoryFiles(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCaregiver()
        let link = try await care.link(try context.parameters.recordID(), for: holder, allowing: nil)
        let id = try context.parameters.secondRecordID()
        let files = try await care.sharedFiles(ofMemory: id, of: link)
        return .json(CareAPI.Files(files: files.map { CareAPI.File($0, url: CareURL.apiCaregiverMemoryFile(link: link.id, id, $0.id).path) }))
    }

    @Sendable func memoryFile(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requireCaregiver()
        let link = try await care.link(try context.parameters.recordID(), for: holder, allowing: nil)
        let fileID = try context.parameters.fileID()
        guard let file = try await care.sharedFiles(ofMemory: try context.parameters.secondRecordID(), of: link).first(where: { $0.id == fileID })
        else {
            throw APIError.notFound
        }
        return try await care.response(for: file, receiverID: link.receiverID, request: request, context: context)
    }

    private func plan(_ body: CareAPI.MemoryBody, type: MemoryType?) throws -> MemoryType {
        guard let typed = body.type.flatMap(MemoryType.init(rawValue:)) ?? type, typed.isPlan else {
            throw APIError.validation(["type": "Choose appointment, todo_list or simple_todo"])
        }
        if body.secured == true { throw APIError.validation(["secured": "Only the care receiver makes secured memories"]) }
        if body.people?.isEmpty == false { throw APIError.validation(["people": "Only the care receiver chooses people from her contacts"]) }
        return typed
    }

    /// Adds an appointment or to-do to her memories (the `plans` scope); `client_id` makes a retry safe.
    @Sendable func addPlan(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context, allowing: .plans)
        let body = try await request.json(CareAPI.MemoryBody.self)
        if let problem = MemoryRules.newClientIDProblem(body.clientId) { throw APIError.validation(["client_id": problem]) }
        let (memory, created) = try await care.create(
            receiverID: link.receiverID,
            by: .caregiver(link.caregiverID),
            type: try plan(body, type: nil),
            secured: false,
            clientID: body.clientId.map { "caregiver-\(link.caregiverID):\($0)" },
            content: body.content,
            unlocked: false
        )
        guard let shared = CareAPI.SharedMemory(memory, whole: false) else { throw APIError.notFound }
        return .json(shared, status: created ? .created : .ok)
    }

    /// Changes one of her appointments or to-dos (the `plans` scope), at the version he read.
    @Sendable func changePlan(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context, allowing: .plans)
        let body = try await request.json(CareAPI.MemoryBody.self)
        _ = try plan(body, type: .appointment)
        do {
            let memory = try await care.update(
                id: try context.parameters.secondRecordID(),
                receiverID: link.receiverID,
                by: .caregiver(link.caregiverID),
                version: try CareAPIController.version(body.version),
                secured: false,
                content: body.content,
                unlocked: false,
                onlyPlans: true
            )
            guard let shared = CareAPI.SharedMemory(memory, whole: false) else { throw APIError.notFound }
            return .json(shared)
        } catch CareConflict.memory(let current) {
            guard let shared = CareAPI.SharedMemory(current, whole: false) else { throw APIError.notFound }
            return .json(CareAPI.Conflict(shared), status: .conflict)
        }
    }

    @Sendable func location(request: Request, context: PortalContext) async throws -> Response {
        let link = try await link(context, allowing: .location)
        guard let location = try await care.location(of: link) else {
            throw APIError(status: .notFound, code: "no_location", message: "\(link.receiverName)'s app has not shared a location yet.")
        }
        return .json(
            CareAPI.Location(latitude: location.latitude, longitude: location.longitude, accuracyMetres: location.accuracyMetres, at: location.at)
        )
    }
}
