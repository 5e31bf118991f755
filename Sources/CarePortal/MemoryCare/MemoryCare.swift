import Foundation
import PortalPlatform
import SQLKit

/// What the memory-care apps do, shared by the API and (later) the web pages: accounts and their
/// confirmation, her PIN and her own key, memories and contacts with versions and a change feed, and
/// links to caregivers with the access log. Problems are `APIError`s; a stale version is `CareConflict`.
struct MemoryCare: Sendable {
    let portal: Portal
    var repository: CareRepository { CareRepository() }

    static let confirmationLifetime: TimeInterval = 3 * 86_400
    static let unlockLifetime: TimeInterval = 5 * 60
    static let checkEmail = "Thank you. We have sent an email to this address: follow the link in it to start using your account."
    static let keyPurpose = SealingPurpose("care_keys.sealed_key")
    static let memoryPurpose = SealingPurpose("care_memories.sealed")
    static let pageSize = 50

    private func audit(
        _ action: AuditAction,
        actor: AuditActor,
        recordType: String,
        recordID: Int64?,
        outcome: AuditOutcome = .success,
        origin: AuditOrigin,
        detail: String? = nil,
        on db: any SQLDatabase
    ) async throws {
        try await portal.audit.record(
            AuditEvent(
                actor: actor,
                action: action,
                recordType: recordType,
                recordID: recordID.map { "\($0)" },
                outcome: outcome,
                origin: origin,
                detail: detail
            ),
            on: db
        )
    }

    static func actor(_ holder: AppAccountHolder) -> AuditActor {
        AuditActor(accountID: holder.accountID, role: holder.kind.role, name: nil)
    }

    // MARK: Registration and confirmation

    /// Open registration for either kind. The answer is the same whether or not the address has an
    /// account: a new one gets a confirmation link, an unconfirmed one a fresh link, an open one a note
    /// that someone tried to register with it.
    func register(kind: CareAccountKind, email typed: String, name typed2: String, password: String, origin: AuditOrigin) async throws {
        let throttle = SignInThrottle()
        let now = portal.now
        let keys: [SignInThrottle.Key] = origin.address.map { [.careRegistration($0)] } ?? []
        try await throttle.refuseAPIRequestWhilePaused(keys, now: now, in: portal.database)
        let email = typed.trimmed
        let name = typed2.trimmed
        let problems = problems(registering: email, name: name, password: password)
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let hash = try await portal.passwords.hash(password)
        let token = SecretToken(randomBytes: portal.dependencies.randomBytes)
        let link = "\(portal.settings.baseURL)\(CareURL.confirm.path)?token=\(token.value)"
        try await portal.database.transaction { db in
            try await throttle.admitAPIRequest(keys, now: now, on: db)
            let accountID: Int64
            if let id = try await repository.createAccount(kind: kind, email: email, name: name, passwordHash: hash, now: now, on: db) {
                accountID = id
                try await audit(
                    .careAccountRegistered,
                    actor: AuditActor(accountID: id, role: kind.rawValue, name: nil),
                    recordType: kind.rawValue,
                    recordID: id,
                    origin: origin,
                    on: db
                )
            } else if let existing = try await repository.account(kind: kind, email: email, on: db), existing.status == .unconfirmed {
                accountID = existing.id
                try await audit(
                    .careAccountRegistered,
                    actor: .anonymous,
                    recordType: kind.rawValue,
                    recordID: existing.id,
                    outcome: .failure,
                    origin: origin,
                    detail: "not yet confirmed: a new link sent",
                    on: db
                )
            } else {
                try await audit(
                    .careAccountRegistered,
                    actor: .anonymous,
                    recordType: kind.rawValue,
                    recordID: nil,
                    outcome: .failure,
                    origin: origin,
                    detail: "address already registered",
                    on: db
                )
                try await portal.outbox.enqueue(Mail.careAlreadyRegistered(to: email), on: db)
                return
            }
            try await repository.createConfirmation(
                tokenHash: token.hash,
                accountID: accountID,
                expiresAt: now.addingTimeInterval(Self.confirmationLifetime),
                on: db
            )
            try await portal.outbox.enqueue(Mail.careConfirmation(to: email, kind: kind, link: link, token: token), on: db)
        }
    }

    /// What is wrong with a registration's email address, name and password, by field.
    func problems(registering email: String, name: String, password: String) -> [String: String] {
        var problems: [String: String] = [:]
        if let problem = FieldRules.emailProblem(email) { problems["email"] = problem }
        if let problem = FieldRules.personNameProblem(name, name: "your name") { problems["name"] = problem }
        if let problem = portal.passwordPolicy.problem(with: password, username: email) { problems["password"] = problem }
        return problems
    }

    func confirmationIsUsable(token: String) async throws -> Bool {
        guard !token.isEmpty else { return false }
        let now = portal.now
        return try await portal.database.read { db in try await repository.confirmationIsUsable(tokenHash: SecretToken.hash(token), now: now, on: db)
        }
    }

    /// Follows the emailed link: the account opens. False when the link is unknown, used or expired.
    func confirm(token: String, origin: AuditOrigin) async throws -> Bool {
        guard !token.isEmpty else { return false }
        let now = portal.now
        return try await portal.database.transaction { db in
            guard let (id, kind) = try await repository.confirm(tokenHash: SecretToken.hash(token), now: now, on: db) else { return false }
            try await audit(
                .careAccountConfirmed,
                actor: AuditActor(accountID: id, role: kind.rawValue, name: nil),
                recordType: kind.rawValue,
                recordID: id,
                origin: origin,
                on: db
            )
            return true
        }
    }

    // MARK: A forgotten password

    /// The emailed link's page and the apps' call with the same link: both kinds, one table of links.
    var passwordReset: AppPasswordReset {
        AppPasswordReset(portal: portal, links: CareRepository.resetLinks, appName: "the memory-care app", page: .care(.resetPassword)) {
            [repository, portal] id, passwordHash, origin, db in
            guard let kind = try await repository.kind(ofAccount: id, on: db) else { return }
            try await repository.setPassword(accountID: id, kind: kind, hash: passwordHash, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: AuditActor(accountID: id, role: kind.rawValue, name: nil),
                    action: .carePasswordReset,
                    recordType: kind.rawValue,
                    recordID: "\(id)",
                    origin: origin,
                    detail: "new password set"
                ),
                on: db
            )
        }
    }

    /// A single-use link, good for an hour, emailed to the address of an open account of this kind. Nothing
    /// tells whether the address has one.
    func requestReset(kind: CareAccountKind, email typed: String, origin: AuditOrigin) async throws {
        let email = typed.trimmed
        if let problem = FieldRules.emailProblem(email) { throw APIError.validation(["email": problem]) }
        let throttle = SignInThrottle()
        let now = portal.now
        let keys = [SignInThrottle.Key.carePasswordReset(CareRepository.emailKey(email))] + (origin.address.map { [.carePasswordReset($0)] } ?? [])
        try await throttle.refuseAPIRequestWhilePaused(keys, now: now, in: portal.database)
        let token = SecretToken(randomBytes: portal.dependencies.randomBytes)
        let reset = passwordReset
        try await portal.database.transaction { db in
            try await throttle.admitAPIRequest(keys, now: now, on: db)
            guard let account = try await repository.account(kind: kind, email: email, on: db), account.status == .active else { return }
            try await CareRepository.resetLinks.create(tokenHash: token.hash, accountID: account.id, now: now, on: db)
            try await audit(
                .carePasswordReset,
                actor: .anonymous,
                recordType: kind.rawValue,
                recordID: account.id,
                origin: origin,
                detail: "link emailed",
                on: db
            )
            try await portal.outbox.enqueue(Mail.carePasswordReset(to: account, link: reset.link(for: token), token: token), on: db)
        }
    }

    func account(_ holder: AppAccountHolder) async throws -> (CareAccount, CareSettings) {
        let kind: CareAccountKind = holder.kind == .careReceiver ? .careReceiver : .caregiver
        return try await portal.database.read { db in
            guard let account = try await repository.account(id: holder.accountID, kind: kind, on: db) else { throw APIError.unauthorized }
            return (account, try await repository.settings(on: db))
        }
    }

    // MARK: Her key and her PIN

    /// Her own sealer, made the first time she needs one; its key is kept sealed under the portal's key.
    func sealer(receiverID: Int64, on db: any SQLDatabase) async throws -> Sealer {
        try await Self.sealer(receiverID: receiverID, under: portal.sealer, on: db)
    }

    static func sealer(receiverID: Int64, under portalSealer: Sealer, on db: any SQLDatabase) async throws -> Sealer {
        let repository = CareRepository()
        if try await repository.sealedKey(accountID: receiverID, on: db) == nil {
            let fresh = SealingKey.generate()
            let text = String(decoding: fresh.fileContents, as: UTF8.self).trimmed
            try await repository.keepSealedKey(try portalSealer.seal(text, for: keyPurpose), accountID: receiverID, on: db)
        }
        let sealed = try await repository.sealedKey(accountID: receiverID, on: db)!
        guard let bytes = Data(base64Encoded: try portalSealer.open(sealed, for: keyPurpose)) else { throw Unsealable("a care key is not base64") }
        return Sealer(key: try SealingKey(bytes: bytes))
    }

    static let pinProblem = "Enter a PIN of 4 to 8 digits"

    /// Checks `password` against the account's own, the proof for a change of hers or his, throttled under `key`
    /// like a sign-in: a wrong one counts, is audited as `action`'s failure and answers a 422 with `refusal`. The
    /// try is handed back for `passwordProved`, in the transaction that makes the change.
    private func proveWithPassword(
        _ password: String,
        of holder: AppAccountHolder,
        throttledUnder key: SignInThrottle.Key,
        refusal: [String: String],
        audited action: AuditAction,
        recordType: String,
        origin: AuditOrigin
    ) async throws -> SignInThrottle.Attempt {
        let throttle = SignInThrottle()
        let attempt = try await throttle.reserveAPIAttempt([key], now: portal.now, in: portal.database)
        let stored = try await portal.database.read { db in try await repository.passwordHash(accountID: holder.accountID, on: db) }
        guard try await portal.passwords.verify(password, againstStored: stored) else {
            try await portal.database.transaction { db in
                try await throttle.fail(attempt, on: db)
                try await audit(
                    action,
                    actor: Self.actor(holder),
                    recordType: recordType,
                    recordID: holder.accountID,
                    outcome: .failure,
                    origin: origin,
                    detail: "wrong password",
                    on: db
                )
            }
            throw APIError.validation(refusal)
        }
        return attempt
    }

    /// The password was right: its try no longer counts, and the earlier wrong ones under `key` are forgotten.
    private func passwordProved(_ attempt: SignInThrottle.Attempt, key: SignInThrottle.Key, on db: any SQLDatabase) async throws {
        let throttle = SignInThrottle()
        try await throttle.release(attempt, on: db)
        try await throttle.clear(key, on: db)
    }

    /// A new password chosen while signed in, by either kind: the current one is the proof, throttled like a
    /// sign-in. Every other session of the account ends (her other phones sign in again); this one stays.
    func changePassword(_ holder: AppAccountHolder, current: String, new: String, origin: AuditOrigin) async throws {
        let kind: CareAccountKind = holder.kind == .careReceiver ? .careReceiver : .caregiver
        let account = try await portal.database.read { db in try await repository.account(id: holder.accountID, kind: kind, on: db) }
        guard let account else { throw APIError.unauthorized }
        var problems: [String: String] = [:]
        if current.isEmpty { problems["current_password"] = "Enter your current password" }
        if let problem = portal.passwordPolicy.problem(with: new, username: account.email) { problems["new_password"] = problem }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let key = SignInThrottle.Key.carePasswordChange(holder.accountID)
        let attempt = try await proveWithPassword(
            current,
            of: holder,
            throttledUnder: key,
            refusal: ["current_password": "Your current password is not right"],
            audited: .passwordChanged,
            recordType: kind.rawValue,
            origin: origin
        )
        let hash = try await portal.passwords.hash(new)
        try await portal.database.transaction { db in
            try await passwordProved(attempt, key: key, on: db)
            try await repository.setPassword(accountID: holder.accountID, kind: kind, hash: hash, keeping: holder.tokenHash, on: db)
            try await audit(
                .passwordChanged,
                actor: Self.actor(holder),
                recordType: kind.rawValue,
                recordID: holder.accountID,
                origin: origin,
                on: db
            )
        }
    }

    /// Creates or resets her PIN: her password is the proof, throttled like a sign-in.
    func setPIN(_ holder: AppAccountHolder, password: String, pin: String, origin: AuditOrigin) async throws {
        var problems: [String: String] = [:]
        if password.isEmpty { problems["password"] = "Enter your password" }
        if !(4...8).contains(pin.count) || !pin.allSatisfy({ $0.isASCII && $0.isNumber }) { problems["pin"] = Self.pinProblem }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let key = SignInThrottle.Key.carePINReset(holder.accountID)
        let attempt = try await proveWithPassword(
            password,
            of: holder,
            throttledUnder: key,
            refusal: ["password": "The password is not right"],
            audited: .carePINSet,
            recordType: holder.kind.role,
            origin: origin
        )
        let hash = try await portal.passwords.hash(pin)
        try await portal.database.transaction { db in
            try await passwordProved(attempt, key: key, on: db)
            try await SignInThrottle().clear(.carePIN(holder.accountID), on: db)
            try await repository.setPIN(hash: hash, accountID: holder.accountID, on: db)
            try await audit(.carePINSet, actor: Self.actor(holder), recordType: holder.kind.role, recordID: holder.accountID, origin: origin, on: db)
        }
    }

    /// Her PIN opens her secured memories on this token for five minutes. Wrong PINs count against her account.
    func unlock(_ holder: AppAccountHolder, pin: String, origin: AuditOrigin) async throws -> Date {
        guard !pin.isEmpty else { throw APIError.validation(["pin": "Enter your PIN"]) }
        let throttle = SignInThrottle()
        let now = portal.now
        let keys = [SignInThrottle.Key.carePIN(holder.accountID)]
        let attempt = try await throttle.reserveAPIAttempt(keys, now: now, in: portal.database)
        let stored = try await portal.database.read { db in try await repository.pinHash(accountID: holder.accountID, on: db) }
        guard let stored else {
            try await portal.database.transaction { db in try await throttle.release(attempt, on: db) }
            throw APIError.pinNotSet
        }
        guard try await portal.passwords.verify(pin, againstStored: stored) else {
            try await portal.database.transaction { db in
                try await throttle.fail(attempt, on: db)
                try await audit(
                    .careUnlocked,
                    actor: Self.actor(holder),
                    recordType: holder.kind.role,
                    recordID: holder.accountID,
                    outcome: .failure,
                    origin: origin,
                    detail: "wrong PIN",
                    on: db
                )
            }
            throw APIError.validation(["pin": "The PIN is not right"])
        }
        let until = now.addingTimeInterval(Self.unlockLifetime)
        try await portal.database.transaction { db in
            try await throttle.release(attempt, on: db)
            try await throttle.clear(keys[0], on: db)
            try await repository.unlock(tokenHash: holder.tokenHash, until: until, on: db)
            try await audit(
                .careUnlocked,
                actor: Self.actor(holder),
                recordType: holder.kind.role,
                recordID: holder.accountID,
                origin: origin,
                on: db
            )
        }
        return until
    }

    func lock(_ holder: AppAccountHolder) async throws {
        try await portal.database.write { db in try await repository.lock(tokenHash: holder.tokenHash, on: db) }
    }

    /// Until when her secured memories are open on this token (read with it); nil when they are not.
    func unlockedUntil(_ holder: AppAccountHolder) -> Date? {
        holder.openedUntil.flatMap { $0 > portal.now ? $0 : nil }
    }

    // MARK: Memories

    /// A stored memory as she may see it: a secured one opened only when `sealer` is given.
    func open(_ stored: CareRepository.StoredMemory, with sealer: Sealer?) throws -> Memory {
        guard let sealed = stored.sealed, let sealer else { return stored.memory }
        let json = try sealer.open(sealed, for: Self.memoryPurpose)
        let content = try JSONDecoder().decode(MemoryContent.self, from: Data(json.utf8))
        let m = stored.memory
        return Memory(
            id: m.id,
            receiverID: m.receiverID,
            clientID: m.clientID,
            type: m.type,
            secured: true,
            content: content,
            reminderAt: m.reminderAt,
            recurrence: m.recurrence,
            version: m.version,
            changeNumber: m.changeNumber,
            createdAt: m.createdAt,
            updatedAt: m.updatedAt,
            changedByCaregiver: m.changedByCaregiver,
            deletedAt: m.deletedAt
        )
    }

    /// The row to write for `content`: sealed under her key when the memory is secured.
    func row(
        type: MemoryType,
        secured: Bool,
        clientID: String?,
        content: MemoryContent,
        by actor: AppAccountRef,
        receiverID: Int64,
        on db: any SQLDatabase
    ) async throws -> CareRepository.MemoryRow {
        try await Self.row(
            type: type,
            secured: secured,
            clientID: clientID,
            content: content,
            by: actor,
            receiverID: receiverID,
            under: portal.sealer,
            now: portal.now,
            clock: portal.programSettings.current.clock,
            on: db
        )
    }

    /// The row for `content`, sealed when secured, with its next reminder after `now` on `clock`.
    static func row(
        type: MemoryType,
        secured: Bool,
        clientID: String?,
        content: MemoryContent,
        by actor: AppAccountRef,
        receiverID: Int64,
        under portalSealer: Sealer,
        now: Date,
        clock: ProgramClock,
        on db: any SQLDatabase
    ) async throws -> CareRepository.MemoryRow {
        var sealed: String?
        if secured {
            let json = String(decoding: try JSONEncoder().encode(content), as: UTF8.self)
            sealed = try await sealer(receiverID: receiverID, under: portalSealer, on: db).seal(json, for: memoryPurpose)
        }
        return CareRepository.MemoryRow(
            type: type,
            clientID: clientID,
            plain: secured ? nil : content,
            sealed: sealed,
            reminderAt: content.reminderAt,
            recurrence: CareRepository.storedRecurrence(content),
            changedBy: actor,
            nextReminderAt: nextReminder(content, after: now, clock: clock)
        )
    }

    static func nextReminder(_ content: MemoryContent, after now: Date, clock: ProgramClock) -> Date? {
        content.reminderAt.flatMap {
            ReminderSchedule.next(
                reminderAt: $0,
                recurrence: Recurrence(rawValue: content.recurrence) ?? .none,
                days: content.recurrenceDays,
                after: now,
                clock: clock
            )
        }
    }

    private func checked(_ content: MemoryContent, type: MemoryType, receiverID: Int64, on db: any SQLDatabase) async throws {
        let known = try await repository.contactIDs(receiverID: receiverID, among: content.people, on: db)
        let problems = MemoryRules.problems(with: content, type: type, knownContacts: known)
        guard problems.isEmpty else { throw APIError.validation(problems) }
    }

    /// Makes a memory. With a client id she already used, nothing is written and the memory made then is
    /// returned (`created` false), so an app may send it again after a lost answer. The caller has checked
    /// the client id as its sender typed it (`MemoryRules.clientIDProblem`).
    /// A secured memory needs her PIN to exist (to open it later); writing it does not need her PIN typed.
    func create(
        receiverID: Int64,
        by actor: AppAccountRef,
        type: MemoryType,
        secured wanted: Bool,
        clientID: String?,
        content: MemoryContent,
        unlocked: Bool
    ) async throws -> (memory: Memory, created: Bool) {
        let secured = wanted || type.isSecret
        let now = portal.now
        return try await portal.database.transaction { db in
            if let clientID, let existing = try await repository.memory(clientID: clientID, receiverID: receiverID, on: db) {
                return (try open(existing, with: unlocked ? try await sealer(receiverID: receiverID, on: db) : nil), false)
            }
            try await checked(content, type: type, receiverID: receiverID, on: db)
            if secured, try await repository.pinHash(accountID: receiverID, on: db) == nil { throw APIError.pinNotSet }
            let row = try await row(type: type, secured: secured, clientID: clientID, content: content, by: actor, receiverID: receiverID, on: db)
            let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
            guard let id = try await repository.insertMemory(row, receiverID: receiverID, changeNumber: number, now: now, on: db) else {
                throw APIError(status: .conflict, code: "client_id_taken", message: "Another memory has this client id.")
            }
            let stored = try await repository.memory(id: id, receiverID: receiverID, on: db)!
            return (try open(stored, with: secured ? try await sealer(receiverID: receiverID, on: db) : nil), true)
        }
    }

    /// The memory `id` of hers, opened when `unlocked`; 404 when it is not hers or was deleted.
    func memory(id: Int64, receiverID: Int64, unlocked: Bool) async throws -> Memory {
        try await portal.database.read { db in
            guard let stored = try await repository.memory(id: id, receiverID: receiverID, on: db), !stored.memory.isDeleted else {
                throw APIError.notFound
            }
            return try open(stored, with: unlocked && stored.memory.secured ? try await readSealer(receiverID: receiverID, on: db) : nil)
        }
    }

    /// Her sealer for reading: nil when she has never had a key (then nothing of hers is sealed).
    func readSealer(receiverID: Int64, on db: any SQLDatabase) async throws -> Sealer? {
        guard try await repository.sealedKey(accountID: receiverID, on: db) != nil else { return nil }
        return try await sealer(receiverID: receiverID, on: db)
    }

    /// Replaces a memory's content if it is still at `version`; `CareConflict` with the memory as it is otherwise.
    /// A secured memory changes only while her PIN has it open; its type never changes. With `onlyPlans`
    /// (a caregiver) only a plain appointment or to-do changes, and only in the fields a plan shows.
    func update(
        id: Int64,
        receiverID: Int64,
        by actor: AppAccountRef,
        version: Int64,
        secured wanted: Bool?,
        content: MemoryContent,
        unlocked: Bool,
        onlyPlans: Bool = false
    ) async throws -> Memory {
        let now = portal.now
        return try await portal.database.transaction { db in
            guard let stored = try await repository.memory(id: id, receiverID: receiverID, on: db) else { throw APIError.notFound }
            let current = stored.memory
            if onlyPlans, current.secured || !current.type.isPlan || current.isDeleted { throw APIError.notFound }
            if current.secured, !unlocked { throw APIError.locked }
            let sealer = unlocked ? try await readSealer(receiverID: receiverID, on: db) : nil
            guard current.version == version, !current.isDeleted else { throw CareConflict.memory(try open(stored, with: sealer)) }
            var content = content
            if onlyPlans, var kept = current.content {
                // A caregiver changes the plan's time, place, status and lines; her other words stay as they are.
                (kept.title, kept.happensAt, kept.reminderAt, kept.recurrence, kept.recurrenceDays) = (
                    content.title, content.happensAt, content.reminderAt, content.recurrence, content.recurrenceDays
                )
                (kept.status, kept.location, kept.emoji, kept.items) = (content.status, content.location, content.emoji, content.items)
                content = kept
            }
            if current.secured, let previous = try open(stored, with: sealer).content?.people, !previous.isEmpty {
                // A secured memory still names contacts deleted since it was sealed: sent back as read, they are dropped.
                let known = try await repository.contactIDs(receiverID: receiverID, among: content.people, on: db)
                content.people.removeAll { !known.contains($0) && previous.contains($0) }
            }
            try await checked(content, type: current.type, receiverID: receiverID, on: db)
            let secured = current.type.isSecret || (wanted ?? current.secured)
            if secured, !current.secured, try await repository.pinHash(accountID: receiverID, on: db) == nil { throw APIError.pinNotSet }
            if !secured, current.secured, !unlocked { throw APIError.locked }
            let row = try await row(
                type: current.type,
                secured: secured,
                clientID: current.clientID,
                content: content,
                by: actor,
                receiverID: receiverID,
                on: db
            )
            let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
            guard
                try await repository.updateMemory(id: id, receiverID: receiverID, version: version, with: row, changeNumber: number, now: now, on: db)
            else {
                throw CareConflict.memory(try open(try await repository.memory(id: id, receiverID: receiverID, on: db)!, with: sealer))
            }
            return try open(
                try await repository.memory(id: id, receiverID: receiverID, on: db)!,
                with: secured ? try await readSealer(receiverID: receiverID, on: db) : nil
            )
        }
    }

    /// Deletes a memory (at `version` when one is given): its words and files go, its id stays for sync.
    func delete(id: Int64, receiverID: Int64, by actor: AppAccountRef, version: Int64?, unlocked: Bool) async throws {
        let now = portal.now
        let files = try await portal.database.transaction { db in
            guard let stored = try await repository.memory(id: id, receiverID: receiverID, on: db), !stored.memory.isDeleted else {
                throw APIError.notFound
            }
            if stored.memory.secured, !unlocked { throw APIError.locked }
            let sealer = unlocked ? try await readSealer(receiverID: receiverID, on: db) : nil
            // A version other than the one kept is a conflict, checked before anything is counted from it.
            guard version == nil || version == stored.memory.version else { throw CareConflict.memory(try open(stored, with: sealer)) }
            let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
            guard
                try await repository.deleteMemory(
                    id: id,
                    receiverID: receiverID,
                    version: stored.memory.version,
                    by: actor,
                    changeNumber: number,
                    now: now,
                    on: db
                )
            else {
                throw CareConflict.memory(try open(try await repository.memory(id: id, receiverID: receiverID, on: db)!, with: sealer))
            }
            return try await CareFileRepository().stored(receiverID: receiverID, memoryID: id, on: db)
        }
        try await removeFiles(files, receiverID: receiverID)
    }

    /// One page of her memories (latest first, undated last), secured ones opened when `unlocked`.
    func memories(
        receiverID: Int64,
        filter: CareRepository.MemoryFilter,
        page: Int,
        unlocked: Bool
    ) async throws -> (memories: [Memory], hasMore: Bool) {
        try await portal.database.read { db in try await memories(receiverID: receiverID, filter: filter, page: page, unlocked: unlocked, on: db) }
    }

    /// The same, in a read the caller has open.
    func memories(
        receiverID: Int64,
        filter: CareRepository.MemoryFilter,
        page: Int,
        unlocked: Bool,
        on db: any SQLDatabase
    ) async throws -> (memories: [Memory], hasMore: Bool) {
        let rows = try await repository.memories(
            receiverID: receiverID,
            filter: filter,
            limit: Self.pageSize,
            offset: (page - 1) * Self.pageSize,
            on: db
        )
        let sealer = unlocked && rows.contains(where: { $0.memory.secured }) ? try await readSealer(receiverID: receiverID, on: db) : nil
        return (try rows.prefix(Self.pageSize).map { try open($0, with: sealer) }, rows.count > Self.pageSize)
    }

    /// What her memories' page shows, read at once: her account, a page of her memories (secured ones opened
    /// when `unlocked`) and, when `weekAhead`, her plain memories of the next 7 days on the program's clock,
    /// soonest first.
    func memoriesPage(
        _ holder: AppAccountHolder,
        filter: CareRepository.MemoryFilter,
        page: Int,
        unlocked: Bool,
        weekAhead: Bool
    ) async throws -> (account: CareAccount, memories: [Memory], hasMore: Bool, weekAhead: [Memory]) {
        let today = portal.programSettings.current.clock.date(of: portal.now)
        let week = weekAhead ? CareRepository.MemoryFilter(from: today.iso, to: today.adding(days: 7).iso) : nil
        return try await portal.database.read { db in
            guard let account = try await repository.account(id: holder.accountID, kind: .careReceiver, on: db) else { throw APIError.unauthorized }
            let (memories, hasMore) = try await memories(receiverID: holder.accountID, filter: filter, page: page, unlocked: unlocked, on: db)
            let soon = try await week.asyncMap { try await self.memories(receiverID: holder.accountID, filter: $0, page: 1, unlocked: false, on: db) }
            return (account, memories, hasMore, soon?.memories.reversed() ?? [])
        }
    }

    /// What changed since `cursor`: memories and contacts (deleted ones as tombstones), in the order they
    /// changed, at most `limit`; the new cursor is the last change returned.
    func changes(receiverID: Int64, since cursor: Int64, limit: Int, unlocked: Bool) async throws -> CareChanges {
        try await portal.database.read { db in
            let memories = try await repository.memoryChanges(receiverID: receiverID, since: cursor, limit: limit + 1, on: db)
            let contacts = try await repository.contactChanges(receiverID: receiverID, since: cursor, limit: limit + 1, on: db)
            let numbers = (memories.map(\.memory.changeNumber) + contacts.map(\.changeNumber)).sorted()
            let kept = numbers.prefix(limit)
            let last = kept.last ?? cursor
            let sealer = unlocked && memories.contains(where: { $0.sealed != nil }) ? try await readSealer(receiverID: receiverID, on: db) : nil
            return CareChanges(
                memories: try memories.filter { $0.memory.changeNumber <= last }.map { try open($0, with: sealer) },
                contacts: contacts.filter { $0.changeNumber <= last },
                cursor: last,
                hasMore: numbers.count > limit
            )
        }
    }

    // MARK: Contacts

    private func checked(_ contact: ContactContent) throws {
        let problems = MemoryRules.problems(with: contact)
        guard problems.isEmpty else { throw APIError.validation(problems) }
    }

    func createContact(receiverID: Int64, clientID: String?, content: ContactContent) async throws -> (contact: CareContact, created: Bool) {
        if let problem = MemoryRules.newClientIDProblem(clientID) { throw APIError.validation(["client_id": problem]) }
        let now = portal.now
        return try await portal.database.transaction { db in
            if let clientID, let existing = try await repository.contact(clientID: clientID, receiverID: receiverID, on: db) {
                return (existing, false)
            }
            try checked(content)
            let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
            guard
                let id = try await repository.insertContact(
                    content,
                    clientID: clientID,
                    receiverID: receiverID,
                    changeNumber: number,
                    now: now,
                    on: db
                )
            else {
                throw APIError(status: .conflict, code: "client_id_taken", message: "Another contact has this client id.")
            }
            return (try await repository.contact(id: id, receiverID: receiverID, on: db)!, true)
        }
    }

    func contact(id: Int64, receiverID: Int64) async throws -> (CareContact, [Memory]) {
        try await portal.database.read { db in
            guard let contact = try await repository.contact(id: id, receiverID: receiverID, on: db), contact.deletedAt == nil else {
                throw APIError.notFound
            }
            let memories = try await repository.memories(withContact: id, receiverID: receiverID, limit: 50, on: db)
            return (contact, try memories.map { try open($0, with: nil) })
        }
    }

    func updateContact(id: Int64, receiverID: Int64, version: Int64, content: ContactContent) async throws -> CareContact {
        let now = portal.now
        return try await portal.database.transaction { db in
            guard let current = try await repository.contact(id: id, receiverID: receiverID, on: db) else { throw APIError.notFound }
            guard current.version == version, current.deletedAt == nil else { throw CareConflict.contact(current) }
            try checked(content)
            let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
            guard
                try await repository.updateContact(
                    id: id,
                    receiverID: receiverID,
                    version: version,
                    with: content,
                    changeNumber: number,
                    now: now,
                    on: db
                )
            else {
                throw CareConflict.contact(try await repository.contact(id: id, receiverID: receiverID, on: db)!)
            }
            return try await repository.contact(id: id, receiverID: receiverID, on: db)!
        }
    }

    /// Deletes a contact and its photo; the plain memories that named it no longer do, and each is a change for sync.
    func deleteContact(id: Int64, receiverID: Int64, version: Int64?) async throws {
        let now = portal.now
        let photos = try await portal.database.transaction { db in
            guard let current = try await repository.contact(id: id, receiverID: receiverID, on: db), current.deletedAt == nil else {
                throw APIError.notFound
            }
            guard version == nil || version == current.version else { throw CareConflict.contact(current) }
            let naming = try await repository.memoryIDs(withContact: id, on: db)
            let number = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
            guard try await repository.deleteContact(id: id, receiverID: receiverID, version: current.version, changeNumber: number, now: now, on: db)
            else {
                throw CareConflict.contact(try await repository.contact(id: id, receiverID: receiverID, on: db)!)
            }
            for memoryID in naming {
                guard let stored = try await repository.memory(id: memoryID, receiverID: receiverID, on: db), var content = stored.memory.content
                else { continue }
                content.people.removeAll { $0 == id }
                let row = try await self.row(
                    type: stored.memory.type,
                    secured: false,
                    clientID: stored.memory.clientID,
                    content: content,
                    by: .careReceiver(receiverID),
                    receiverID: receiverID,
                    on: db
                )
                let next = try await repository.nextChangeNumber(receiverID: receiverID, on: db)
                _ = try await repository.updateMemory(
                    id: memoryID,
                    receiverID: receiverID,
                    version: stored.memory.version,
                    with: row,
                    changeNumber: next,
                    now: now,
                    on: db
                )
            }
            return try await CareFileRepository().stored(receiverID: receiverID, contactID: id, on: db)
        }
        try await removeFiles(photos, receiverID: receiverID)
    }

    func contacts(receiverID: Int64, words: [String], page: Int) async throws -> (contacts: [CareContact], hasMore: Bool) {
        try await portal.database.read { db in
            let rows = try await repository.contacts(
                receiverID: receiverID,
                words: words,
                limit: Self.pageSize,
                offset: (page - 1) * Self.pageSize,
                on: db
            )
            return (Array(rows.prefix(Self.pageSize)), rows.count > Self.pageSize)
        }
    }
}

/// What changed since a cursor.
struct CareChanges: Sendable {
    let memories: [Memory]
    let contacts: [CareContact]
    let cursor: Int64
    let hasMore: Bool
}

/// A change sent with a version that is no longer the record's: the app merges with the record as it is.
enum CareConflict: Error {
    case memory(Memory)
    case contact(CareContact)
}

extension APIError {
    static let pinNotSet = APIError(
        status: .conflict,
        code: "pin_not_set",
        message: "Create your PIN first: it keeps your secured memories safe."
    )
    static let locked = APIError(
        status: .forbidden,
        code: "pin_required",
        message: "Enter your PIN to open your secured memories."
    )
}

extension Mail {
    static func careConfirmation(to email: String, kind: CareAccountKind, link: String, token: SecretToken) -> Mail {
        Mail(
            recipient: email,
            subject: "Confirm your email address",
            body: """
                Hello,

                Please confirm this email address to start using your \(kind.noun) account. Open this link (it works once, for three days):

                \(link)

                If you did not register, you can ignore this email: nothing happens unless the link is opened.
                """,
            secrets: [token.value]
        )
    }

    static func careAlreadyRegistered(to email: String) -> Mail {
        Mail(
            recipient: email,
            subject: "Someone tried to register with your email address",
            body: """
                Hello,

                Someone tried to register for the memory-care app with this email address, which already has an account.

                If it was you, sign in with your password; if you have forgotten it, choose "Forgot password" on the app's sign-in screen. If it was not you, you can ignore this email.
                """
        )
    }

    /// The reset link: a secret that works once, for an hour. It is never a password.
    static func carePasswordReset(to account: CareAccount, link: String, token: SecretToken) -> Mail {
        Mail(
            recipient: account.email,
            subject: "Choose a new password",
            body: """
                Hello \(MailText.name(account.name, otherwise: "there")),

                Someone asked to choose a new password for your \(account.kind.noun) account in the memory-care app. To choose one, open this link within an hour:

                \(link)

                The link works once. Your memories, contacts and PIN stay as they are. If you did not ask for this, you can ignore this email: your password has not changed.
                """,
            secrets: [token.value]
        )
    }

    static func careLinkEnded(to email: String, otherName: String, byStaff: Bool) -> Mail {
        Mail(
            recipient: email,
            subject: "A memory-care link has ended",
            body: """
                Hello,

                The link between you and \(MailText.name(otherName, otherwise: "the other person")) in the memory-care app has ended\(byStaff ? ", ended by the program's staff" : "").
                Nothing more is shared between you. A new link needs a new invitation code.
                """
        )
    }
}
