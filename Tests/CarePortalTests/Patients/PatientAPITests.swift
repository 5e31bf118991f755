import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The patient app's API: claiming the account, signing in, the regimen, the day's schedule and logging
/// it, statistics and reminders.
@Suite struct PatientAPITests {
    /// A physician with a profile, the catalogue, and one patient waiting to claim her account.
    static func setUp(_ portal: TestPortal) async throws -> (PatientFixtures.Catalogue, StaffAccount, Patient, ClaimToken) {
        let catalogue = try await PatientFixtures.catalogue(portal)
        let physician = try await portal.createStaff(.physician, username: "dr.berg")
        try await portal.database.transaction { db in
            try await StaffAccountRepository().createPhysicianProfile(
                PhysicianProfile(
                    firstName: "Ingrid",
                    middleName: "",
                    lastName: "Berg",
                    practiceLocation: "Bergen Movement Clinic, Strandgaten 1",
                    practicePhone: "6155550134",
                    medicalIDNumber: "N-1"
                ),
                accountID: physician.id,
                on: db
            )
        }
        let (patient, token) = try await PatientFixtures.patient(portal, physicianID: physician.id, catalogue: catalogue)
        return (catalogue, physician, patient, token)
    }

    @Test(arguments: TestEngines.all)
    func theClaimShowsHerDetailsToConfirmAndMakesTheAccount(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, _, patient, token) = try await Self.setUp(portal)
            let app = AppClient(portal: portal)
            let check = try await app.send(.post, "/api/v1/patient/claim/check", json: ["claim_token": " \(token.grouped.lowercased()) "])
            #expect(check.status == .ok)
            #expect(check.object["first_name"] as? String == "José")
            #expect(check.object["last_name"] as? String == "Núñez-Ødegård")
            #expect(check.object["medical_number"] as? String == "9876 543 210")
            #expect(check.object["physician_name"] as? String == "Dr Ingrid Berg")
            #expect(
                try await portal.auditEntries(action: .patientViewed).contains {
                    $0.recordID == "\(patient.id)" && $0.detail == "claim token checked in the app"
                }
            )

            // What she confirms must match the record.
            let mismatch = try await app.send(
                .post,
                "/api/v1/patient/claim",
                json: PatientFixtures.claim(
                    patient,
                    token: token,
                    [
                        "last_name": "Nunez", "medical_number": "9876543211", "password": "short"
                    ]
                )
            )
            #expect(mismatch.status == .unprocessableContent)
            #expect(Set(mismatch.fieldErrors.keys) == ["last_name", "medical_number", "password"])
            // Case, accents' composition and spaces in the number do not matter.
            let claimed = try await app.send(
                .post,
                "/api/v1/patient/claim",
                json: PatientFixtures.claim(
                    patient,
                    token: token,
                    username: "jose.n",
                    [
                        "first_name": "JOSÉ", "last_name": "núñez-ødegård", "medical_number": "9876-543-210"
                    ]
                )
            )
            #expect(claimed.status == .created, "\(claimed.text)")
            let session = try #require(claimed.object["token"] as? String)
            let profile = try #require(claimed.object["patient"] as? [String: Any])
            #expect(profile["username"] as? String == "jose.n")
            let me = try await AppClient(portal: portal, token: session).get("/api/v1/patient/me")
            #expect(me.status == .ok)
            let physician = try #require(me.object["physician"] as? [String: Any])
            #expect(physician["name"] as? String == "Dr Ingrid Berg")
            #expect(physician["practice_address"] as? String == "Bergen Movement Clinic, Strandgaten 1")
            #expect(physician["practice_phone"] as? String == "615-555-0134" && physician["practice_phone_dial"] as? String == "+16155550134")
            #expect(me.object["address"] as? String == "12 Harbour Road\nBergen")
            #expect(
                try await portal.auditEntries(action: .patientAccountClaimed).contains { $0.recordID == "\(patient.id)" && $0.outcome == "success" }
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func aClaimTokenWorksOnceAndForFourteenDays(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (catalogue, physician, patient, token) = try await Self.setUp(portal)
            let app = AppClient(portal: portal)
            _ = try await PatientFixtures.claimed(portal, patient: patient, token: token, username: "first.claim")
            let again = try await app.send(
                .post,
                "/api/v1/patient/claim",
                json: PatientFixtures.claim(patient, token: token, username: "second.claim")
            )
            #expect(again.status == .unprocessableContent)
            #expect(again.fieldErrors["claim_token"] == PatientClaim.wrongToken)
            #expect(
                try await app.send(.post, "/api/v1/patient/sessions", json: ["username": "first.claim", "password": "Levodopa time 2026"]).status
                    == .created
            )

            let (later, laterToken) = try await PatientFixtures.patient(
                portal,
                physicianID: physician.id,
                catalogue: catalogue,
                contact: PatientFixtures.contact(last: "Later", number: "2")
            )
            portal.clock.advance(by: 14 * 86_400 - 1)
            #expect(try await app.send(.post, "/api/v1/patient/claim/check", json: ["claim_token": laterToken.value]).status == .ok)
            portal.clock.advance(by: 1)
            #expect(try await app.send(.post, "/api/v1/patient/claim/check", json: ["claim_token": laterToken.value]).status == .unprocessableContent)
            let expired = try await app.send(.post, "/api/v1/patient/claim", json: PatientFixtures.claim(later, token: laterToken))
            #expect(expired.fieldErrors["claim_token"] == PatientClaim.wrongToken)
        }
    }

    @Test(arguments: TestEngines.all)
    func guessingClaimTokensIsThrottledPerAddress(engine: Database.Engine) async throws {
        try await TestPortal.run(engine, configure: { $0.trustForwardedFor = true }) { portal in
            let (_, _, _, token) = try await Self.setUp(portal)
            let app = AppClient(portal: portal)
            let headers: HTTPFields = [.xForwardedFor: "203.0.113.9"]
            for _ in 0..<SignInThrottle.registrationAddressLimit {
                let guess = ClaimToken(randomBytes: Dependencies.systemRandomBytes).value
                #expect(
                    try await app.send(.post, "/api/v1/patient/claim/check", json: ["claim_token": guess], headers: headers).status
                        == .unprocessableContent
                )
            }
            // Even the right token waits now, from that address.
            let paused = try await app.send(.post, "/api/v1/patient/claim/check", json: ["claim_token": token.value], headers: headers)
            #expect(paused.status == .tooManyRequests && paused.errorCode == "too_many_attempts")
            #expect(paused.headers[.retryAfter].flatMap(Int.init).map { $0 > 0 && $0 <= 15 * 60 } == true)
            // Another address is not held up.
            #expect(
                try await app.send(
                    .post,
                    "/api/v1/patient/claim/check",
                    json: ["claim_token": token.value],
                    headers: [.xForwardedFor: "198.51.100.7"]
                ).status == .ok
            )
            #expect(
                try await portal.auditEntries(action: .patientAccountClaimed).filter { $0.outcome == "failure" }.count
                    == SignInThrottle.registrationAddressLimit
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func signInAndOutWithBearerTokens(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, _, patient, token) = try await Self.setUp(portal)
            _ = try await PatientFixtures.claimed(portal, patient: patient, token: token, username: "jose.n")
            let app = AppClient(portal: portal)
            let wrong = try await app.send(.post, "/api/v1/patient/sessions", json: ["username": "jose.n", "password": "not it at all"])
            #expect(wrong.status == .unauthorized && wrong.errorCode == "invalid_credentials")
            let unknown = try await app.send(.post, "/api/v1/patient/sessions", json: ["username": "nobody", "password": "not it at all"])
            #expect(unknown.status == .unauthorized && unknown.error["message"] as? String == wrong.error["message"] as? String)
            let signedIn = try await app.send(.post, "/api/v1/patient/sessions", json: ["username": "JOSE.N", "password": "Levodopa time 2026"])
            #expect(signedIn.status == .created)
            let session = AppClient(portal: portal, token: try #require(signedIn.object["token"] as? String))
            #expect(try await session.get("/api/v1/patient/me").status == .ok)
            #expect(try await session.send(.delete, "/api/v1/patient/sessions/current").status == .noContent)
            #expect(try await session.get("/api/v1/patient/me").status == .unauthorized)
            // A member's sign-in never opens a patient account, nor the other way round.
            #expect(
                try await app.send(.post, "/api/v1/sessions", json: ["pseudonym": "jose.n", "password": "Levodopa time 2026"]).status == .unauthorized
            )
        }
    }

    @Test(arguments: TestEngines.all)
    func theRegimenComesWithDescriptionsAndIllustrations(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (catalogue, _, patient, token) = try await Self.setUp(portal)
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
            let store = portal.portal.uploads(IllustrationStore.folder)
            let walking = try await store.save(png, type: .png), armRaises = try await store.save(png, type: .png)
            try await portal.database.transaction { db in
                try await CatalogueRepository().setIllustration(exerciseID: catalogue.walking, walking, now: portal.clock.now, on: db)
                try await CatalogueRepository().setIllustration(exerciseID: catalogue.armRaises, armRaises, now: portal.clock.now, on: db)
            }
            let app = try await PatientFixtures.claimed(portal, patient: patient, token: token)
            let regimen = try await app.get("/api/v1/patient/regimen")
            let medications = try #require(regimen.object["medications"] as? [[String: Any]])
            let exercises = try #require(regimen.object["exercises"] as? [[String: Any]])
            #expect(medications.count == 1 && exercises.count == 1)
            #expect(medications[0]["name"] as? String == "Levodopa/carbidopa")
            #expect(medications[0]["description"] as? String == "Replaces dopamine. Take 30 minutes before meals.")
            #expect(medications[0]["dose"] as? String == "25/100 mg tablet")
            #expect(medications[0]["note"] as? String == "With water")
            #expect(exercises[0]["amount"] as? String == "30 minutes")
            let url = try #require(exercises[0]["illustration_url"] as? String)
            #expect(url == "/api/v1/patient/exercises/\(catalogue.walking)/illustration")
            let image = try await app.get(url)
            #expect(image.status == .ok && image.headers[.contentType] == "image/png")
            #expect(Array(image.response.body.readableBytesView) == png)
            // An exercise she was never prescribed is not hers to fetch.
            #expect(try await app.get("/api/v1/patient/exercises/\(catalogue.armRaises)/illustration").status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func loggingADoseTwiceCountsItOnce(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, _, patient, token) = try await Self.setUp(portal)
            let app = try await PatientFixtures.claimed(portal, patient: patient, token: token)
            let today = CalendarDate(portal.clock.now)
            let schedule = try await app.get("/api/v1/patient/schedule")
            #expect(schedule.object["date"] as? String == today.iso)
            #expect(schedule.object["can_log"] as? Bool == true)
            #expect(schedule.object["next_date"] == nil, "the app looks no further than today")
            let entries = try #require(schedule.object["entries"] as? [[String: Any]])
            #expect(entries.map { $0["name"] as? String } == ["Levodopa/carbidopa", "Levodopa/carbidopa", "Levodopa/carbidopa", "Walking"])
            #expect(entries.map { $0["slot"] as? Int } == [1, 2, 3, 1])
            #expect(entries.allSatisfy { $0["status"] as? String == "to_do" })
            let first = try #require(entries[0]["entry_id"] as? String)
            let path = "/api/v1/patient/schedule/\(today.iso)/entries/\(first)"

            let logged = try await app.send(.put, path, json: ["status": "done"])
            #expect(logged.status == .ok && logged.object["status"] as? String == "done")
            // The app retries after a dropped connection: nothing counts twice.
            #expect(try await app.send(.put, path, json: ["status": "done"]).status == .ok)
            #expect(try await app.send(.put, path, json: ["status": "done"]).status == .ok)
            let stored = try await portal.database.read { db in
                try await RegimenRepository().logs(patientID: patient.id, from: today, through: today, on: db)
            }
            #expect(stored.count == 1)
            #expect(try await portal.auditEntries(action: .adherenceLogged).count == 1)
            var statistics = try await app.get("/api/v1/patient/statistics?from=\(today.iso)&to=\(today.iso)")
            var overall = try #require(statistics.object["overall"] as? [String: Any])
            #expect(overall["scheduled"] as? Int == 4 && overall["done"] as? Int == 1 && overall["adherence_percent"] as? Int == 25)

            // A changed answer replaces the earlier one.
            #expect(try await app.send(.put, path, json: ["status": "missed"]).object["status"] as? String == "missed")
            statistics = try await app.get("/api/v1/patient/statistics?from=\(today.iso)&to=\(today.iso)")
            overall = try #require(statistics.object["overall"] as? [String: Any])
            #expect(overall["done"] as? Int == 0 && overall["missed"] as? Int == 1 && overall["not_logged"] as? Int == 3)
            let updated = try #require(try await app.get("/api/v1/patient/schedule").object["entries"] as? [[String: Any]])
            #expect(updated[0]["status"] as? String == "missed")
        }
    }

    @Test(arguments: TestEngines.all)
    func pastDaysCanBeLoggedButNotDaysToComeOrOtherPatientsDoses(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (catalogue, physician, patient, token) = try await Self.setUp(portal)
            let today = CalendarDate(portal.clock.now)
            let (other, otherToken) = try await PatientFixtures.patient(
                portal,
                physicianID: physician.id,
                catalogue: catalogue,
                contact: PatientFixtures.contact(last: "Other", number: "5"),
                startsOn: today.adding(days: -3)
            )
            // Her regimen started three days ago.
            try await portal.database.transaction { db in
                try await db.update("prescriptions").set("starts_on", to: today.adding(days: -3).dayNumber).where("patient_id", .equal, patient.id)
                    .run()
            }
            let app = try await PatientFixtures.claimed(portal, patient: patient, token: token)
            let yesterday = today.adding(days: -1)
            let past = try await app.get("/api/v1/patient/schedule?date=\(yesterday.iso)")
            #expect(past.object["next_date"] as? String == today.iso)
            #expect(past.object["previous_date"] as? String == yesterday.adding(days: -1).iso)
            let entry = try #require((past.object["entries"] as? [[String: Any]])?.last?["entry_id"] as? String)
            #expect(try await app.send(.put, "/api/v1/patient/schedule/\(yesterday.iso)/entries/\(entry)", json: ["status": "done"]).status == .ok)
            let tomorrow = today.adding(days: 1)
            let future = try await app.send(.put, "/api/v1/patient/schedule/\(tomorrow.iso)/entries/\(entry)", json: ["status": "done"])
            #expect(future.status == .unprocessableContent && future.fieldErrors["date"] != nil)
            #expect(try await app.get("/api/v1/patient/schedule?date=\(tomorrow.iso)").object["can_log"] as? Bool == false)
            // Before her regimen started nothing was due; a slot beyond the day's doses does not exist.
            let before = today.adding(days: -4)
            #expect(try await app.send(.put, "/api/v1/patient/schedule/\(before.iso)/entries/\(entry)", json: ["status": "done"]).status == .notFound)
            let prescriptionID = entry.split(separator: "-")[0]
            #expect(
                try await app.send(.put, "/api/v1/patient/schedule/\(today.iso)/entries/\(prescriptionID)-2", json: ["status": "done"]).status
                    == .notFound
            )
            #expect(
                try await app.send(.put, "/api/v1/patient/schedule/\(today.iso)/entries/\(entry)", json: ["status": "maybe"]).status
                    == .unprocessableContent
            )
            // Another patient's dose is not hers to log.
            let otherApp = try await PatientFixtures.claimed(portal, patient: other, token: otherToken)
            let otherEntry = try #require(
                (try await otherApp.get("/api/v1/patient/schedule").object["entries"] as? [[String: Any]])?.first?["entry_id"] as? String
            )
            #expect(
                try await app.send(.put, "/api/v1/patient/schedule/\(today.iso)/entries/\(otherEntry)", json: ["status": "done"]).status == .notFound
            )
            let otherLogs = try await portal.database.read { db in
                try await RegimenRepository().logs(patientID: other.id, from: before, through: today, on: db)
            }
            #expect(otherLogs.isEmpty)
        }
    }

    @Test(arguments: TestEngines.all)
    func statisticsAreHerOwnByDayAndByMedicationOrExercise(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, _, patient, token) = try await Self.setUp(portal)
            let app = try await PatientFixtures.claimed(portal, patient: patient, token: token)
            let today = CalendarDate(portal.clock.now)
            for entry in try #require(try await app.get("/api/v1/patient/schedule").object["entries"] as? [[String: Any]]).prefix(2) {
                _ = try await app.send(
                    .put,
                    "/api/v1/patient/schedule/\(today.iso)/entries/\(entry["entry_id"] as! String)",
                    json: ["status": "done"]
                )
            }
            let statistics = try await app.get("/api/v1/patient/statistics")
            #expect(statistics.object["to"] as? String == today.iso)
            #expect(statistics.object["from"] as? String == today.adding(days: -29).iso)
            let items = try #require(statistics.object["items"] as? [[String: Any]])
            #expect(items.map { $0["name"] as? String } == ["Levodopa/carbidopa", "Walking"])
            let levodopa = try #require(items[0]["counts"] as? [String: Any])
            #expect(levodopa["scheduled"] as? Int == 3 && levodopa["done"] as? Int == 2 && levodopa["adherence_percent"] as? Int == 67)
            let days = try #require(statistics.object["days"] as? [[String: Any]])
            #expect(days.count == 30)
            #expect((days.first?["counts"] as? [String: Any])?["adherence_percent"] == nil, "nothing was due before her regimen started")
            #expect(try await app.get("/api/v1/patient/statistics?from=2026-13-01").status == .unprocessableContent)
        }
    }

    /// One activity, or a group of them, over time in one call (seed 3.7.2–3.7.4): `days` is then the chosen
    /// items' day-by-day series; an item not in her regimen, or written wrongly, is refused.
    @Test(arguments: TestEngines.all)
    func statisticsOfAChosenActivityOrGroupAreItsDayByDaySeries(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, _, patient, token) = try await Self.setUp(portal)
            let app = try await PatientFixtures.claimed(portal, patient: patient, token: token)
            let today = CalendarDate(portal.clock.now)
            let entries = try #require(try await app.get("/api/v1/patient/schedule").object["entries"] as? [[String: Any]])
            // Every dose and session today is logged done except the walk, which is missed.
            for entry in entries {
                let status = entry["kind"] as? String == "exercise" ? "missed" : "done"
                _ = try await app.send(
                    .put,
                    "/api/v1/patient/schedule/\(today.iso)/entries/\(entry["entry_id"] as! String)",
                    json: ["status": status]
                )
            }
            let all = try #require(try await app.get("/api/v1/patient/statistics").object["items"] as? [[String: Any]])
            let walking = try #require(all.first { $0["name"] as? String == "Walking" }?["item"] as? String)
            #expect(walking.hasPrefix("exercise:"))

            func todayCounts(_ query: String) async throws -> [String: Any] {
                let response = try await app.get("/api/v1/patient/statistics?from=\(today.adding(days: -6).iso)&to=\(today.iso)&\(query)")
                #expect(response.status == .ok, "\(query): \(response.text)")
                let days = response.object["days"] as? [[String: Any]] ?? []
                #expect(days.count == 7, "a day-by-day series over the range")
                return days.last?["counts"] as? [String: Any] ?? [:]
            }
            let walk = try await todayCounts("item=\(walking)")
            #expect(walk["done"] as? Int == 0 && walk["missed"] as? Int == 1, "\(walk)")
            let medicines = try await todayCounts("kind=medication")
            #expect(medicines["missed"] as? Int == 0 && (medicines["done"] as? Int ?? 0) > 0, "\(medicines)")
            let levodopa = try #require(all.first { $0["name"] as? String == "Levodopa/carbidopa" }?["item"] as? String)
            let both = try await todayCounts("item=\(walking)&item=\(levodopa)")
            #expect(both["missed"] as? Int == 1 && both["done"] as? Int == medicines["done"] as? Int, "\(both)")

            for wrong in ["item=exercise:999999", "item=walking", "item=exercise:", "kind=dance"] {
                let refused = try await app.get("/api/v1/patient/statistics?\(wrong)")
                #expect(refused.status == .unprocessableContent, "\(wrong) answered \(refused.status.code)")
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func reminderEmailsAreSentByTheBackgroundJobAsOftenAsSheChose(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (_, _, patient, token) = try await Self.setUp(portal)
            let app = try await PatientFixtures.claimed(portal, patient: patient, token: token)
            let reminders = PatientReminders(portal: portal.portal)
            let defaults = try await app.get("/api/v1/patient/reminders")
            #expect(defaults.object["email"] as? Bool == false)
            #expect(
                (defaults.object["choices"] as? [[String: Any]])?.map { $0["value"] as? String } == [
                    "every_2_hours", "every_4_hours", "every_8_hours", "daily"
                ]
            )
            #expect(try await app.send(.put, "/api/v1/patient/reminders", json: ["frequency": "hourly"]).status == .unprocessableContent)
            let changed = try await app.send(.put, "/api/v1/patient/reminders", json: ["frequency": "every_2_hours", "email": true])
            #expect(changed.status == .ok && changed.object["frequency"] as? String == "every_2_hours")
            func reminderMail() async throws -> [OutboxMessage] {
                try await portal.database.read { db in try await portal.portal.outbox.list(status: nil, page: PageRequest(number: 1), on: db).items }
                    .filter { $0.subject.hasPrefix("A reminder") }
            }
            #expect(try await reminders.sendDue() == 0, "nothing is due before two hours have passed")
            portal.clock.advance(by: 2 * 3600)
            #expect(try await reminders.sendDue() == 1)
            #expect(try await reminders.sendDue() == 0, "one reminder per interval")
            let mail = try await reminderMail()
            #expect(mail.count == 1 && mail[0].recipient == patient.contact.email)
            #expect(mail[0].bodyText.contains("You have 4 medications and exercises still to do today."))
            #expect(!mail[0].bodyText.contains("Levodopa"), "the email names no medication")

            // With everything logged there is nothing to remind her of.
            let today = CalendarDate(portal.clock.now)
            for entry in try #require(try await app.get("/api/v1/patient/schedule").object["entries"] as? [[String: Any]]) {
                _ = try await app.send(
                    .put,
                    "/api/v1/patient/schedule/\(today.iso)/entries/\(entry["entry_id"] as! String)",
                    json: ["status": "done"]
                )
            }
            portal.clock.advance(by: 2 * 3600)
            #expect(try await reminders.sendDue() == 0)
            // Email off: no more reminders, however long.
            _ = try await app.send(.put, "/api/v1/patient/reminders", json: ["email": false])
            portal.clock.advance(by: 2 * 86_400)
            #expect(try await reminders.sendDue() == 0)
            #expect(try await reminderMail().count == 1)
        }
    }
}
