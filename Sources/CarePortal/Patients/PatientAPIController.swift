import Foundation
import Hummingbird
import PortalPlatform
import SQLKit

/// The patient app's JSON API under `/api/v1/patient/`: claiming the account with the emailed token,
/// signing in and out, her profile and regimen, the day's schedule and logging it, her statistics and
/// her reminder settings. Described in `api/openapi.json`.
struct PatientAPIController {
    let portal: Portal
    let patients = PatientRepository()
    let accounts = PatientAccountRepository()
    let regimens = RegimenRepository()

    func addRoutes(to routes: inout PortalRoutes) {
        routes.post(SiteURL.apiPatientClaimCheck.pattern, access: .everyone, checkClaim)
        routes.post(SiteURL.apiPatientClaim.pattern, access: .everyone, claim)
        routes.appSessions(.patient) { [patients, accounts] issued, db in
            guard let patient = try await patients.find(id: issued.accountID, on: db),
                let account = try await accounts.find(patientID: issued.accountID, on: db)
            else { throw APIError.unauthorized }
            return PatientAPI.Session(
                token: issued.token,
                expiresAt: issued.expiresAt,
                patient: .init(patient, username: account.username ?? "", physician: try await Self.physician(of: patient, on: db))
            )
        }
        routes.get(SiteURL.apiPatientMe.pattern, access: .patient, profile)
        routes.get(SiteURL.apiPatientRecordOpenings.pattern, access: .patient) { [portal] request, context in
            try await portal.recordOpeningsResponse(.patient, of: try context.requirePatient(), request: request)
        }
        routes.get(SiteURL.apiPatientRegimen.pattern, access: .patient, regimen)
        routes.get(SiteURL.pattern(SiteURL.apiPatientIllustration), access: .patient, illustration)
        routes.get(SiteURL.apiPatientSchedule.pattern, access: .patient, schedule)
        routes.put(SiteURL.pattern(SiteURL.apiPatientScheduleEntry), access: .patient, log)
        routes.get(SiteURL.apiPatientStatistics.pattern, access: .patient, statistics)
        routes.get(SiteURL.apiPatientReminders.pattern, access: .patient, reminders)
        routes.put(SiteURL.apiPatientReminders.pattern, access: .patient, changeReminders)
    }

    // MARK: Claiming the account

    @Sendable func checkClaim(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(PatientAPI.ClaimCheck.self)
        let origin = portal.origin(of: request, context: context)
        let patient = try await PatientClaim.patient(token: body.claimToken, origin: origin, portal: portal)
        let name = try await PatientClaim.recordChecked(patient, where: "the app", origin: origin, portal: portal)
        return .json(
            PatientAPI.ClaimDetails(
                firstName: patient.contact.firstName,
                middleName: patient.contact.middleName,
                lastName: patient.contact.lastName,
                medicalNumber: patient.contact.medicalNumber,
                physicianName: name
            )
        )
    }

    @Sendable func claim(request: Request, context: PortalContext) async throws -> Response {
        let body = try await request.json(PatientAPI.Claim.self)
        let username = body.username?.trimmed ?? ""
        let password = body.password ?? ""
        var problems = PatientClaim.problems(username: username, password: password, portal: portal)
        let origin = portal.origin(of: request, context: context)
        let patient = try await PatientClaim.patient(token: body.claimToken, origin: origin, portal: portal)
        problems.merge(body.mismatches(with: patient)) { $1 }
        guard problems.isEmpty else { throw APIError.validation(problems) }
        let physician = try await portal.database.read { db in try await Self.physician(of: patient, on: db) }
        do {
            let issued = try await PatientClaim.claim(
                patient,
                token: body.claimToken ?? "",
                username: username,
                password: password,
                origin: origin,
                portal: portal
            )
            return .json(
                PatientAPI.Session(
                    token: issued.token,
                    expiresAt: issued.expiresAt,
                    patient: .init(patient, username: username, physician: physician)
                ),
                status: .created
            )
        } catch is PatientClaim.UsernameTaken {
            throw PatientAPI.Claim.usernameTaken
        }
    }

    static func physician(of patient: Patient, on db: any SQLDatabase) async throws -> PatientAPI.Physician {
        let name = try await PatientRepository().physicianNames(ids: [patient.physicianID], on: db)[patient.physicianID] ?? ""
        let profile = try await StaffAccountRepository().physicianProfile(accountID: patient.physicianID, on: db)
        let phone = profile.flatMap { $0.practicePhone.isEmpty ? nil : PhoneNumber(stored: $0.practicePhone) }
        return PatientAPI.Physician(
            name: name,
            practiceAddress: profile?.practiceLocation ?? "",
            practicePhone: phone?.display,
            practicePhoneDial: phone?.dialable
        )
    }

    // MARK: Her record

    private func me(_ context: PortalContext) async throws -> (Patient, PatientAccount) {
        let holder = try context.requirePatient()
        let found = try await portal.database.read { db -> (Patient, PatientAccount)? in
            guard let patient = try await patients.find(id: holder.accountID, on: db),
                let account = try await accounts.find(patientID: holder.accountID, on: db)
            else { return nil }
            return (patient, account)
        }
        guard let found else { throw APIError.unauthorized }
        return found
    }

    @Sendable func profile(request: Request, context: PortalContext) async throws -> Response {
        let (patient, account) = try await me(context)
        return .json(
            PatientAPI.Profile(
                patient,
                username: account.username ?? "",
                physician: try await portal.database.read { db in try await Self.physician(of: patient, on: db) }
            )
        )
    }

    @Sendable func regimen(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requirePatient()
        let current = try await portal.database.read { db in try await regimens.prescriptions(patientID: holder.accountID, on: db) }
            .filter { $0.endsOn == nil }
        return .json(
            PatientAPI.Regimen(
                medications: current.filter { $0.kind == .medication }.map(PatientAPI.Medication.init),
                exercises: current.filter { $0.kind == .exercise }.map(PatientAPI.Exercise.init)
            )
        )
    }

    /// An exercise's illustration, for the exercises she was prescribed.
    @Sendable func illustration(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requirePatient()
        let id = try context.parameters.apiRecordID()
        let exercise = try await portal.database.read { db -> CatalogueExercise? in
            let prescribed = try await regimens.prescriptions(patientID: holder.accountID, on: db).contains {
                $0.kind == .exercise && $0.itemID == id
            }
            return prescribed ? try await CatalogueRepository().exercise(id: id, on: db) : nil
        }
        let store = portal.uploads(IllustrationStore.folder)
        guard let stored = exercise?.illustration,
            let response = try await store.response(for: stored, request: request, context: context, downloadName: "exercise-\(id)")
        else { throw APIError.notFound }
        return response
    }

    // MARK: Schedule and logging

    private var today: CalendarDate { CalendarDate(portal.now) }

    @Sendable func schedule(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requirePatient()
        let today = self.today
        let day: CalendarDate
        if let text = request.query("date") {
            guard let parsed = CalendarDate(iso: text) else {
                throw APIError.validation(["date": "Give the date as year-month-day, like \(today.iso)"])
            }
            day = parsed
        } else {
            day = today
        }
        let schedule = try await portal.database.read { db in try await PatientDay.load(patientID: holder.accountID, day: day, today: today, on: db) }
        return .json(
            PatientAPI.Schedule(
                date: day.iso,
                previousDate: schedule.previous.iso,
                nextDate: schedule.next?.iso,
                canLog: schedule.canLog,
                entries: schedule.entries.map(PatientAPI.Entry.init)
            )
        )
    }

    /// Logs one dose or session as done or missed (`PatientDay.log`).
    @Sendable func log(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requirePatient()
        guard let day = context.parameters.get("date").flatMap(CalendarDate.init(iso:)),
            let entryID = context.parameters.get("entry"), ScheduleEntry.parse(entryID: entryID) != nil
        else { throw APIError.notFound }
        let body = try await request.json(PatientAPI.LogEntry.self)
        guard let status = body.status.flatMap(AdherenceLog.Status.init(rawValue:)) else {
            throw APIError.validation(["status": "Say done or missed"])
        }
        do {
            let entry = try await PatientDay.log(
                patientID: holder.accountID,
                day: day,
                entryID: entryID,
                status: status,
                actor: context.auditActor,
                origin: portal.origin(of: request, context: context),
                portal: portal
            )
            return .json(PatientAPI.Entry(entry))
        } catch PatientDay.LogRefusal.dayToCome {
            throw APIError.validation(["date": "You can log today or an earlier day, not a day still to come"])
        } catch PatientDay.LogRefusal.noSuchEntry {
            throw APIError.notFound
        }
    }

    // MARK: Statistics

    /// Her adherence over `from`…`to`, by day and by item; with `item=KIND:ID` (as many as she chooses) or
    /// `kind=medication|exercise`, only those items count, so `days` is the chosen activity's day-by-day series.
    @Sendable func statistics(request: Request, context: PortalContext) async throws -> Response {
        let holder = try context.requirePatient()
        let range = PatientsController.Range(request: request, today: today)
        if let error = range.error { throw APIError.validation(["from": error]) }
        let (prescriptions, logs) = try await portal.database.read { db in
            (
                try await regimens.prescriptions(patientID: holder.accountID, on: db),
                try await regimens.logs(patientID: holder.accountID, from: range.from, through: range.through, on: db)
            )
        }
        let chosen = try StatisticsSelection(
            items: request.uri.queryParameters.getAll("item"),
            kind: request.uri.queryParameters.get("kind")
        ).prescriptions(of: prescriptions)
        return .json(PatientAPI.Statistics(AdherenceSummary(prescriptions: chosen, logs: logs, from: range.from, through: range.through)))
    }

    // MARK: Reminders

    @Sendable func reminders(request: Request, context: PortalContext) async throws -> Response {
        let (_, account) = try await me(context)
        return .json(PatientAPI.Reminders(account.reminders))
    }

    @Sendable func changeReminders(request: Request, context: PortalContext) async throws -> Response {
        let (_, account) = try await me(context)
        let body = try await request.json(PatientAPI.ReminderChange.self)
        var settings = account.reminders
        if let frequency = body.frequency {
            guard let chosen = ReminderSettings.Frequency(rawValue: frequency) else {
                throw APIError.validation([
                    "frequency": "Choose one of \(ReminderSettings.Frequency.allCases.map(\.rawValue).joined(separator: ", "))"
                ])
            }
            settings.frequency = chosen
        }
        if let email = body.email { settings.email = email }
        try await PatientDay.changeReminders(
            settings,
            patientID: account.patientID,
            actor: context.auditActor,
            origin: portal.origin(of: request, context: context),
            portal: portal
        )
        return .json(PatientAPI.Reminders(settings))
    }
}
