import Foundation
import Hummingbird
import PortalPlatform

/// Staff enrol participants (which makes their app login), open a participant's record (audited),
/// withdraw her, and delete her data when she asks.
struct StudyParticipantsController {
    let portal: Portal
    let studies = StudyRepository()
    let tokens = AppAccountKind.participant.bearerTokens

    func addRoutes(to routes: inout PortalRoutes) {
        routes.get(SiteURL.studyParticipants.pattern, access: .studyStaff, list)
        routes.get(SiteURL.newStudyParticipant.pattern, access: .studyStaff, showEnrol)
        routes.post(SiteURL.newStudyParticipant.pattern, access: .studyStaff, enrol)
        routes.get(SiteURL.pattern(SiteURL.studyParticipant), access: .studyStaff, show)
        routes.post(SiteURL.pattern(SiteURL.studyParticipantWithdraw), access: .studyStaff, withdraw)
        routes.post(SiteURL.pattern(SiteURL.studyParticipantClaimResend), access: .studyStaff, resendClaim)
        routes.post(SiteURL.pattern(SiteURL.studyParticipantClaimRevoke), access: .studyStaff, revokeClaim)
        routes.get(SiteURL.pattern(SiteURL.studyParticipantDelete), access: .studyStaff, confirmDelete)
        routes.post(SiteURL.pattern(SiteURL.studyParticipantDelete), access: .studyStaff, delete)
    }

    private var clock: ProgramClock { portal.programSettings.current.clock }

    @Sendable func list(request: Request, context: PortalContext) async throws -> Response {
        let pageRequest = try request.pageRequest()
        let page = try await portal.database.read { db in try await studies.participants(page: pageRequest, on: db) }
        let rows = StudyParticipantRows.html(page.items, clock: clock)
        return portal.pages.response(
            StudyParticipantsPage(
                layout: portal.layout("Participants", context: context, current: .studyParticipants),
                rows: rows.html,
                hasRows: !rows.isEmpty,
                pagination: portal.pages.html(
                    PaginationView(page, address: ListAddress(path: SiteURL.studyParticipants.path, parameters: []), noun: "participants")
                ),
                enrolPath: SiteURL.newStudyParticipant.path
            )
        )
    }

    @Sendable func showEnrol(request: Request, context: PortalContext) async throws -> Response {
        portal.pages.response(enrolPage(StudyEnrolForm(today: clock.date(of: portal.now)), errors: FormErrors(), dateProblem: nil, context: context))
    }

    @Sendable func enrol(request: Request, context: PortalContext) async throws -> Response {
        let form = try await request.form(StudyEnrolForm.self, context: context)
        let (enrolment, checked, dateProblem) = form.validated()
        var errors = checked
        guard let enrolment else {
            return portal.pages.response(enrolPage(form, errors: errors, dateProblem: dateProblem, context: context), status: .unprocessableContent)
        }
        let firstLogin = try await StudyFirstLogin.make(enrolment.login, portal: portal)
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let id: Int64
        do {
            id = try await portal.database.transaction { db in
                try await enrolment.enrol(firstLogin, actor: context.auditActor, origin: origin, now: now, portal: portal, on: db)
            }
        } catch is StudyCodeTaken {
            errors.add("study_code", "Study id \(form.studyCode) is already enrolled: choose another")
            return portal.pages.response(enrolPage(form, errors: errors, dateProblem: dateProblem, context: context), status: .unprocessableContent)
        }
        // Shown once, here: only its hash is kept.
        let layout = portal.layout("Participant enrolled", context: context, current: .studyParticipants)
        return portal.pages.response(
            StudyEnrolledPage(
                enrolment,
                id: id,
                firstLogin: firstLogin,
                showsClaimToken: !portal.deliversMail,
                now: now,
                clock: clock,
                layout: layout
            )
        )
    }

    private func enrolPage(_ form: StudyEnrolForm, errors: FormErrors, dateProblem: DateInputProblem?, context: PortalContext) -> StudyEnrolPage {
        var fields = [
            FormField(
                "study_code",
                label: "Study id",
                value: form.studyCode,
                hint: "Chosen by the study team, like NU-017. It is also her username in the app.",
                width: 10
            ),
            FormField("arm", label: "Arm or group (optional)", value: form.arm, width: 20),
            FormField(
                "email",
                label: "Contact email (optional unless her claim token is emailed)",
                value: form.email,
                type: "email",
                autocomplete: "off",
                width: 30
            )
        ]
        errors.apply(to: &fields)
        return StudyEnrolPage(
            layout: portal.layout("Enrol a participant", context: context, current: .studyParticipants),
            errors: errors.items,
            studyCode: fields[0],
            arm: fields[1],
            email: fields[2],
            logins: StudyLogin.allCases.map { FilterOption(value: $0.rawValue, title: $0.title, isSelected: $0.rawValue == form.login) },
            loginError: errors["login-password"],
            enrolledOn: DateInputField(
                "enrolled_on",
                legend: "Enrolment date",
                hint: "For example, 27 3 2027",
                value: form.enrolledOn,
                problem: dateProblem
            ),
            action: SiteURL.newStudyParticipant.path,
            backPath: SiteURL.studyParticipants.path
        )
    }

    @Sendable func show(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let before = StudyTimeline.key(request.uri.queryParameters.get("timeline_before"))
        // Read beside other requests: the reads no longer wait for, nor hold, SQLite's one writer.
        let found = try await portal.database.read { db in
            try await StudyParticipantRecord.load(id: id, timelineBefore: before, studies: studies, on: db)
        }
        guard let found else { throw HTTPError(.notFound) }
        // Opening her record is recorded, and committed, before anything of it is sent; views at the same
        // moment share one commit (`recordAccess`, as a patient's record does).
        try await portal.recordAccess(
            AuditEvent(
                actor: context.auditActor,
                action: .studyParticipantViewed,
                recordType: "study_participant",
                recordID: "\(id)",
                origin: origin
            )
        )
        return portal.pages.response(
            StudyParticipantPage(
                found,
                pagedBack: before != nil,
                clock: clock,
                now: now,
                layout: portal.layout(found.participant.studyCode, context: context, current: .studyParticipants),
                showsAuditLink: context.staff?.role == .administrator
            )
        )
    }

    @Sendable func withdraw(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let today = clock.date(of: portal.now)
        let now = portal.now
        let code = try await portal.database.transaction { db in
            guard let participant = try await studies.participant(id: id, on: db) else { throw HTTPError(.notFound) }
            guard try await studies.withdraw(id: id, on: today, now: now, on: db) else { return participant.studyCode }
            // Her app is signed out on every device at once, and a claim token she has not used stops working.
            try await tokens.revokeAll(ownerID: id, on: db)
            _ = try await StudyRepository.claims.revoke(ownerID: id, now: now, on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .studyParticipantWithdrawn,
                    recordType: "study_participant",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return participant.studyCode
        }
        try await portal.flash(
            Flash(.success, "\(code) has been withdrawn and signed out of the app. Her data stays in the study."),
            context: context
        )
        return seeOther(.studyParticipant(id))
    }

    /// What the participant page says of her password.
    static func passwordState(_ participant: StudyParticipant, clock: ProgramClock, now: Date) -> String {
        guard let claim = participant.claim else {
            return participant.mustChangePassword ? "One-time password not yet changed" : "Her own"
        }
        let status = claim.status(at: now)
        switch status {
        case .claimed: return "Her own, chosen with the claim token emailed to her"
        case .waiting:
            return "\(status.title): claim token emailed \(clock.dateTime(claim.sentAt)), works until \(claim.expiresAt.map(clock.dateTime) ?? "")"
        case .expired, .revoked: return "\(status.title): she has no password yet"
        }
    }

    /// A claim token can be sent (again) while she is active, has an email and has not claimed her account.
    static func maySendClaim(_ participant: StudyParticipant, now: Date) -> Bool {
        participant.status == .active && participant.email != nil && participant.claim != nil && participant.claim?.claimedAt == nil
    }

    @Sendable func resendClaim(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let clock = self.clock
        let token = ClaimToken(randomBytes: portal.dependencies.randomBytes)
        let resent = try await portal.database.transaction { db in
            try await StudyClaimResend.send(
                token,
                participantID: id,
                actor: context.auditActor,
                origin: origin,
                now: now,
                portal: portal,
                on: db
            )
        }
        if let participant = resent.participant, !portal.deliversMail {
            let heading = "A new claim token for \(participant.studyCode)"
            let layout = portal.layout(heading, context: context, current: .studyParticipants)
            return portal.pages.response(ShownOncePage(claimToken: token, for: participant, heading: heading, now: now, clock: clock, layout: layout))
        }
        try await portal.flash(resent.message(clock: clock), context: context)
        return seeOther(.studyParticipant(id))
    }

    @Sendable func revokeClaim(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let now = portal.now
        let message = try await portal.database.transaction { db -> Flash in
            guard let participant = try await studies.participant(id: id, on: db) else { throw HTTPError(.notFound) }
            guard try await StudyRepository.claims.revoke(ownerID: id, now: now, on: db) else {
                return Flash(.warning, "There was no claim token to revoke.")
            }
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .studyClaimTokenRevoked,
                    recordType: "study_participant",
                    recordID: "\(id)",
                    origin: origin
                ),
                on: db
            )
            return Flash(.success, "\(participant.studyCode)’s claim token no longer works. Send a new one when she is ready.")
        }
        try await portal.flash(message, context: context)
        return seeOther(.studyParticipant(id))
    }

    @Sendable func confirmDelete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        guard let participant = try await portal.database.read({ db in try await studies.participant(id: id, on: db) }) else {
            throw HTTPError(.notFound)
        }
        return portal.pages.response(
            StudyDeletePage(
                layout: portal.layout("Delete \(participant.studyCode)’s data", context: context, current: .studyParticipants),
                studyCode: participant.studyCode,
                action: SiteURL.studyParticipantDelete(id).path,
                participantPath: SiteURL.studyParticipant(id).path
            )
        )
    }

    @Sendable func delete(request: Request, context: PortalContext) async throws -> Response {
        let id = try context.parameters.recordID()
        let origin = portal.origin(of: request, context: context)
        let code = try await portal.database.transaction { db in
            guard let participant = try await studies.participant(id: id, on: db) else { throw HTTPError(.notFound) }
            // Her login, tokens, to-dos, opens and feedback go with her; her events stay counted, no longer hers.
            try await studies.delete(id: id, on: db)
            try await FeedbackRepository.deleteAll(from: .participant(id), on: db)
            try await portal.audit.record(
                AuditEvent(
                    actor: context.auditActor,
                    action: .studyParticipantDeleted,
                    recordType: "study_participant",
                    recordID: "\(id)",
                    origin: origin,
                    detail: "deleted at the participant's request"
                ),
                on: db
            )
            return participant.studyCode
        }
        try await portal.flash(Flash(.success, "\(code)’s data has been deleted."), context: context)
        return seeOther(.studyParticipants)
    }
}

/// Her to-do completion calendar: one table per month, newest month first, each day saying how many of
/// its to-dos she did. Written straight into one piece of HTML: a year of days is hundreds of cells, and
/// drawing each through the template engine cost most of the page's time. Every text goes through the
/// templates' own escaping.
enum StudyCalendar {
    static func html(days: ClosedRange<Int>?, today: CalendarDate, schedule: StudySchedule, marks: Set<StudyMark>) -> RenderedHTML? {
        guard let days else { return nil }
        var html = ""
        html.reserveCapacity(1_200 * (days.count / 28 + 2))
        var first = CalendarDate(dayNumber: days.upperBound).firstOfMonth
        let start = CalendarDate(dayNumber: days.lowerBound).firstOfMonth
        while first >= start {
            let title = HTMLEscaping.escape("\(CalendarDate.monthNames[first.month - 1]) \(first.year)")
            html += #"<div class="table-wrapper" role="region" aria-label="To-dos in \#(title)" tabindex="0">"#
            html += #"<table class="table study-calendar"><caption class="table__caption">\#(title)</caption>"#
            html += Self.header
            html += "<tbody><tr>"
            var column = 0
            func cell(day: Int?, text: String?, tone: String) {
                if column == 7 {
                    html += "</tr><tr>"
                    column = 0
                }
                html += #"<td class="table__cell study-calendar__day study-calendar__day--"#
                html += tone
                html += #"">"#
                if let day { html += #"<span class="study-calendar__number">\#(day)</span>"# }
                if let text { html += #"<span class="study-calendar__value">\#(HTMLEscaping.escape(text))</span>"# }
                html += "</td>"
                column += 1
            }
            for _ in 0..<first.weekdayFromMonday { cell(day: nil, text: nil, tone: "outside") }
            for dayNumber in first.dayNumber...first.lastOfMonth.dayNumber {
                let date = CalendarDate(dayNumber: dayNumber)
                guard days.contains(dayNumber) else {
                    cell(day: date.day, text: nil, tone: "outside")
                    continue
                }
                let asked = schedule.items(onDayNumber: dayNumber)
                let done = asked.filter { marks.contains(StudyMark(itemID: $0.id, dayNumber: dayNumber)) }.count
                let open = dayNumber == today.dayNumber
                let tone = open ? "open" : asked.isEmpty ? "outside" : done == asked.count ? "full" : done == 0 ? "none" : "partial"
                cell(day: date.day, text: open ? "Today: \(done) of \(asked.count)" : "\(done) of \(asked.count)", tone: tone)
            }
            while column < 7 { cell(day: nil, text: nil, tone: "outside") }
            html += "</tr></tbody></table></div>\n"
            first = first.adding(months: -1)
        }
        return RenderedHTML(writtenWithEscapedText: html)
    }

    private static let header =
        "<thead><tr>"
        + ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map {
            #"<th class="table__header" scope="col">\#($0)</th>"#
        }.joined() + "</tr></thead>"
}

/// How her timeline names each event, and how it is paged: a page of her newest events, and a link to
/// the ones before the last shown (keyset paging on the event's time and id, so an older page costs the
/// same as the first).
enum StudyTimeline {
    static let pageSize = 30

    /// The `timeline_before` value naming the events older than `event`: "time.id".
    static func key(after event: ParticipantEvent) -> String? {
        // Rounded, not cut: the instant came from whole milliseconds and must name the same one.
        event.id.map { "\(Int64((event.occurredAt.timeIntervalSince1970 * 1000).rounded())).\($0)" }
    }

    /// A `timeline_before` value read back; nil (her newest events) when it is missing or not one.
    static func key(_ text: String?) -> (occurredAt: Int64, id: Int64)? {
        guard let parts = text?.split(separator: ".", omittingEmptySubsequences: false), parts.count == 2,
            let time = Int64(parts[0]), let id = Int64(parts[1])
        else { return nil }
        return (time, id)
    }

    static func describe(_ event: ParticipantEvent, titles: [Int64: String]) -> String {
        switch event.kind {
        case .studyTodoDone: "Marked done: \(event.number.flatMap { titles[$0] } ?? "a to-do")"
        case .studyAppOpened: "Opened the app"
        case .studyFeedbackSent: "Sent feedback"
        default: event.kind.rawValue
        }
    }
}
