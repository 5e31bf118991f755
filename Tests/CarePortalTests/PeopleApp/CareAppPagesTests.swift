import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The care receiver's and the caregiver's pages in the people's web app: the same memories, PIN,
/// contacts and consent as the memory-care apps' API, through a browser.
@Suite struct CareAppPagesTests {
    /// A memory-care account made through the API, and a browser signed in to the web app as it.
    static func signedIn(_ portal: TestPortal, _ kind: CareAccountKind, email: String, name: String) async throws -> (Visitor, AppClient, Int64) {
        let (app, id) = try await CareFixtures.account(portal, kind, email: email, name: name)
        var browser = Visitor(portal: portal)
        let signedIn = try await browser.signInToApp(kind.appAccount, identifier: email, password: CareFixtures.password)
        #expect(signedIn.status == .seeOther && signedIn.location == kind.appAccount.pagesPath, "\(signedIn.status): \(signedIn.text)")
        try await browser.get(kind.appAccount.pagesPath)
        return (browser, app, id)
    }

    /// The record number a "saved" redirect leads to (`/app/care/memories/12?done=saved` → 12).
    static func id(in location: String?) throws -> Int64 {
        let path = try #require(location?.split(separator: "?").first)
        return try #require(Int64(path.split(separator: "/").last ?? ""))
    }

    static func appointment(title: String, version: Int64? = nil) -> [(String, String)] {
        var form = [
            ("type", "appointment"), ("title", title), ("category", "health"), ("happens_day", "3"), ("happens_month", "3"), ("happens_year", "2027"),
            ("happens_time", "10:30"), ("reminder_day", "3"), ("reminder_month", "3"), ("reminder_year", "2027"), ("reminder_time", "9:00"),
            ("recurrence", "none"), ("location", "Demo Health Centre")
        ]
        if let version { form.append(("version", "\(version)")) }
        return form
    }

    @Test(arguments: TestEngines.all)
    func sheAddsAnAppointmentInTwoStepsTicksItDoneWithUndoChangesAndDeletesIt(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, app, _) = try await Self.signedIn(portal, .careReceiver, email: "eleanor@example.org", name: "Eleanor")
            let home = try await browser.get(CareURL.appMemories.path)
            #expect(home.status == .ok && home.text.contains("Hello, Eleanor") && home.text.contains("You have no memories here yet"))

            // Step one asks what kind; sending it unchosen says so.
            #expect(try await browser.get(CareURL.appMemoryNew.path).text.contains("What kind of memory is it?"))
            let unchosen = try await browser.get("\(CareURL.appMemoryNew.path)?chosen=1")
            #expect(unchosen.status == .unprocessableContent && unchosen.errorSummary == ["Choose what kind of memory it is"])
            let form = try await browser.get("\(CareURL.appMemoryNew.path)?type=appointment")
            #expect(form.status == .ok && form.text.contains("New appointment") && form.text.contains(#"id="happens_day""#))

            // Every problem at once, beside its field, with what she typed kept.
            let empty = try await browser.post(
                CareURL.appMemoryNew.path,
                form: [("type", "appointment"), ("category", "health"), ("recurrence", "none")]
            )
            #expect(empty.status == .unprocessableContent)
            #expect(empty.errorSummary.count == 2 && empty.errorSummary.last == "Enter the day of the appointment", "\(empty.errorSummary)")
            var typo = Self.appointment(title: "Dentist")
            typo.removeAll { $0.0 == "happens_time" }
            typo.append(("happens_time", "25:00"))
            let badTime = try await browser.post(CareURL.appMemoryNew.path, form: typo)
            #expect(
                badTime.errorSummary == ["Enter a time like 10:30 or 14:05"] && badTime.text.contains(#"value="Dentist""#),
                "\(badTime.errorSummary)"
            )
            let none = try await app.get(CareURL.apiMemories.path).object["memories"] as? [Any]
            #expect(none?.isEmpty == true, "nothing is saved while anything is wrong")

            // MUT: saved, and the app reads it as she typed it.
            let saved = try await browser.post(CareURL.appMemoryNew.path, form: Self.appointment(title: "Dentist"))
            #expect(saved.status == .seeOther, "\(saved.text)")
            let id = try Self.id(in: saved.location)
            var stored = try await app.get(CareURL.apiMemory(id).path).object
            #expect(stored["happens_at"] as? String == "2027-03-03T10:30" && stored["reminder_at"] as? String == "2027-03-03T09:00")
            #expect(stored["status"] as? String == "open" && stored["location"] as? String == "Demo Health Centre")
            let page = try await browser.get(CareURL.appMemory(id).path)
            #expect(page.text.contains("Wed 3 Mar 2027 at 10:30") && page.text.contains("Mark as done"))

            // Done, then undone from the banner.
            let done = try await browser.post(CareURL.appMemoryStatus(id).path, form: [("status", "done")])
            #expect(done.location == "\(CareURL.appMemory(id).path)?done=done")
            #expect(try await browser.get(done.location ?? "").text.contains("Undo"))
            #expect(try await app.get(CareURL.apiMemory(id).path).object["status"] as? String == "done")
            _ = try await browser.post(CareURL.appMemoryStatus(id).path, form: [("status", "open")])
            stored = try await app.get(CareURL.apiMemory(id).path).object
            #expect(stored["status"] as? String == "open")

            // A change with the version she opened, after the app changed it: her words stay, nothing is overwritten unseen.
            let opened = Int64(try #require(stored["version"] as? Int))
            _ = try await app.send(
                .put,
                CareURL.apiMemory(id).path,
                json: [
                    "type": "appointment", "version": opened, "title": "Dentist (moved)",
                    "category": "health", "happens_at": "2027-03-04T10:30"
                ]
            )
            let stale = try await browser.post(CareURL.appMemoryEdit(id).path, form: Self.appointment(title: "Dentist, Dr Shah", version: opened))
            #expect(stale.status == .conflict && stale.text.contains("changed somewhere else") && stale.text.contains(#"value="Dentist, Dr Shah""#))
            #expect(try await app.get(CareURL.apiMemory(id).path).object["title"] as? String == "Dentist (moved)")
            let again = try await browser.post(CareURL.appMemoryEdit(id).path, form: Self.appointment(title: "Dentist, Dr Shah", version: opened + 1))
            #expect(again.status == .seeOther)
            #expect(try await app.get(CareURL.apiMemory(id).path).object["title"] as? String == "Dentist, Dr Shah")

            // Deleting asks first.
            let confirm = try await browser.get(CareURL.appMemoryDelete(id).path)
            #expect(confirm.text.contains("Delete “Dentist, Dr Shah”?") && confirm.text.contains("Its reminders stop."))
            let deleted = try await browser.post(CareURL.appMemoryDelete(id).path)
            #expect(deleted.location == "\(CareURL.appMemories.path)?done=deleted")
            #expect(try await app.get(CareURL.apiMemory(id).path).status == .notFound)
            let gone = try await browser.get(CareURL.appMemory(id).path)
            #expect(gone.status == .notFound && gone.text.contains("/static/css/app.css"), "a page of the web app, not the API's JSON")
        }
    }

    @Test(arguments: TestEngines.all)
    func aToDoListsLinesAreTickedOneByOneAndSearchFindsHerWords(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, app, _) = try await Self.signedIn(portal, .careReceiver, email: "eleanor@example.org", name: "Eleanor")
            let saved = try await browser.post(
                CareURL.appMemoryNew.path,
                form: [
                    ("type", "todo_list"), ("title", "Shopping"), ("category", "errands"), ("lines", "Milk\r\nBread\r\n\r\nBirthday card"),
                    ("recurrence", "none")
                ]
            )
            let id = try Self.id(in: saved.location)
            _ = try await browser.post(CareURL.appMemoryStatus(id).path, form: [("item", "1")])
            let items = try #require(try await app.get(CareURL.apiMemory(id).path).object["items"] as? [[String: Any]])
            #expect(items.map { $0["text"] as? String } == ["Milk", "Bread", "Birthday card"])
            #expect(items.map { $0["done"] as? Bool } == [false, true, false])
            // Changing the list keeps the ticks of the lines that stay.
            let version = Int64(try #require(try await app.get(CareURL.apiMemory(id).path).object["version"] as? Int))
            _ = try await browser.post(
                CareURL.appMemoryEdit(id).path,
                form: [
                    ("type", "todo_list"), ("version", "\(version)"), ("title", "Shopping"), ("category", "errands"), ("lines", "Bread\nEggs"),
                    ("recurrence", "none")
                ]
            )
            let changed = try #require(try await app.get(CareURL.apiMemory(id).path).object["items"] as? [[String: Any]])
            #expect(changed.map { $0["done"] as? Bool } == [true, false])

            let found = try await browser.get("\(CareURL.appMemories.path)?q=shop")
            #expect(found.text.contains(">Shopping<"))
            let missed = try await browser.get("\(CareURL.appMemories.path)?q=garden")
            #expect(!missed.text.contains(">Shopping<") && missed.text.contains("No memories match"))
            let otherCategory = try await browser.get("\(CareURL.appMemories.path)?category=family")
            #expect(!otherCategory.text.contains(">Shopping<"))
        }
    }

    @Test(arguments: TestEngines.all)
    func herSecretsOpenOnlyWithHerPINAndCloseAgain(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, _, _) = try await Self.signedIn(portal, .careReceiver, email: "eleanor@example.org", name: "Eleanor")
            #expect(
                try await browser.get("\(CareURL.appMemoryNew.path)?type=simple_password").text.contains(
                    "first <a class=\"link\" href=\"\(CareURL.appPIN.path)\">make a PIN</a>"
                )
            )
            let wrong = try await browser.post(CareURL.appPIN.path, form: [("password", "not it"), ("pin", CareFixtures.pin)])
            #expect(wrong.status == .unprocessableContent && wrong.errorSummary == ["The password is not right"])
            #expect(
                try await browser.post(CareURL.appPIN.path, form: [("password", CareFixtures.password), ("pin", CareFixtures.pin)]).status
                    == .seeOther
            )

            let saved = try await browser.post(
                CareURL.appMemoryNew.path,
                form: [
                    ("type", "website_password"), ("title", "Library"), ("category", "hobbies"), ("website", "library.example"),
                    ("username", "eleanor"),
                    ("password", "Tulips-in-May"), ("recurrence", "none")
                ]
            )
            let id = try Self.id(in: saved.location)
            let locked = try await browser.get(CareURL.appMemory(id).path)
            #expect(locked.text.contains("Enter your PIN to open it") && !locked.text.contains("Tulips-in-May") && !locked.text.contains("Library"))

            let badPIN = try await browser.post(CareURL.appUnlock.path, form: [("pin", "0000"), ("next", CareURL.appMemory(id).path)])
            #expect(badPIN.status == .unprocessableContent && badPIN.errorSummary == ["The PIN is not right"])
            let opened = try await browser.post(CareURL.appUnlock.path, form: [("pin", CareFixtures.pin), ("next", CareURL.appMemory(id).path)])
            #expect(opened.location == CareURL.appMemory(id).path)
            #expect(try await browser.get(CareURL.appMemory(id).path).text.contains("Tulips-in-May"))
            // Only a page of her own part is a place to return to.
            let away = try await browser.post(CareURL.appUnlock.path, form: [("pin", CareFixtures.pin), ("next", "https://evil.example/")])
            #expect(away.location == CareURL.appMemories.path)

            // She opens it to change it, and her memories close while she types: nothing she typed is lost.
            #expect(try await browser.post(CareURL.appUnlock.path, form: [("pin", CareFixtures.pin)]).status == .seeOther)
            let editing = try await browser.get(CareURL.appMemoryEdit(id).path)
            let version = try #require(editing.text.firstMatch(of: /name="version" value="(\d+)"/)?.output.1)
            let changed: [(String, String)] = [
                ("type", "website_password"), ("version", String(version)), ("title", "Library card"), ("category", "hobbies"),
                ("website", "library.example"), ("username", "eleanor"), ("password", "Roses-in-June"), ("recurrence", "none")
            ]
            #expect(try await browser.post(CareURL.appLock.path).location == "\(CareURL.appMemories.path)?done=locked")
            let closed = try await browser.post(CareURL.appMemoryEdit(id).path, form: changed)
            #expect(closed.status == .unprocessableContent && closed.text.contains(#"value="Roses-in-June""#) && closed.text.contains(#"id="pin""#))
            #expect(closed.errorSummary.first?.hasPrefix("Your secured memories closed after 5 minutes") == true)
            let wrongPIN = try await browser.post(CareURL.appMemoryEdit(id).path, form: changed + [("pin", "0000")])
            #expect(wrongPIN.errorSummary == ["The PIN is not right"] && wrongPIN.text.contains(#"value="Library card""#))
            let saved2 = try await browser.post(CareURL.appMemoryEdit(id).path, form: changed + [("pin", CareFixtures.pin)])
            #expect(saved2.location == "\(CareURL.appMemory(id).path)?done=saved", "\(saved2.status) \(saved2.errorSummary)")
            #expect(try await browser.get(CareURL.appMemory(id).path).text.contains("Roses-in-June"))

            #expect(try await browser.post(CareURL.appLock.path).location == "\(CareURL.appMemories.path)?done=locked")
            #expect(!(try await browser.get(CareURL.appMemory(id).path).text.contains("Tulips-in-May")))
        }
    }

    @Test(arguments: TestEngines.all)
    func herContactsAreAddedWithTheirProblemsShownChangedAndDeletedAfterAsking(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, app, _) = try await Self.signedIn(portal, .careReceiver, email: "eleanor@example.org", name: "Eleanor")
            #expect(try await browser.get(CareURL.appContacts.path).text.contains("No contacts yet"))
            let bad = try await browser.post(
                CareURL.appContactNew.path,
                form: [("name", "Ruth"), ("phones", "07700 900123, call me"), ("email", "ruth-at-home")]
            )
            #expect(bad.status == .unprocessableContent && bad.errorSummary.count == 2 && bad.text.contains(#"value="Ruth""#), "\(bad.errorSummary)")
            let saved = try await browser.post(
                CareURL.appContactNew.path,
                form: [("name", "Ruth Price"), ("phones", "07700 900123, 01632 960456"), ("company", "")]
            )
            let id = try Self.id(in: saved.location)
            let contact = try #require(try await app.get(CareURL.apiContact(id).path).object["contact"] as? [String: Any])
            #expect(contact["phones"] as? [String] == ["07700 900123", "01632 960456"])
            #expect(try await browser.get(CareURL.appContact(id).path).text.contains("href=\"tel:07700 900123\""))
            #expect(try await browser.get("\(CareURL.appContacts.path)?q=ruth").text.contains(">Ruth Price<"))

            let confirm = try await browser.get(CareURL.appContactDelete(id).path)
            #expect(confirm.text.contains("Delete Ruth Price?"))
            #expect(try await browser.post(CareURL.appContactDelete(id).path).location == "\(CareURL.appContacts.path)?done=deleted")
            #expect(try await app.get(CareURL.apiContact(id).path).status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func sheSharesByCodeAndTheCaregiverSeesOnlyWhatSheSharesUntilSheStops(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (her, app, _) = try await Self.signedIn(portal, .careReceiver, email: "eleanor@example.org", name: "Eleanor")
            var (him, _, _) = try await Self.signedIn(portal, .caregiver, email: "ruth@example.org", name: "Ruth")
            let party = try CareFixtures.id(
                try await CareFixtures.memory(app, ["type": "simple_memory", "title": "Party at Ruth's", "category": "family"])
            )
            let note = try CareFixtures.id(
                try await CareFixtures.memory(app, ["type": "simple_memory", "title": "Private health note", "category": "health"])
            )
            try await CareFixtures.memory(app, ["type": "appointment", "title": "Dentist", "category": "health", "happens_at": "2027-03-03T10:30"])

            let nothing = try await her.post(CareURL.appInvite.path, form: [])
            #expect(nothing.status == .unprocessableContent && nothing.errorSummary.first?.hasPrefix("Choose at least one thing to share") == true)
            let noCategory = try await her.post(CareURL.appInvite.path, form: [("scopes[]", "memories")])
            #expect(
                noCategory.errorSummary == ["Choose which categories of memories to share"] && noCategory.text.contains(#"value="memories" checked"#)
            )
            let made = try await her.post(
                CareURL.appInvite.path,
                form: [("scopes[]", "reminders"), ("scopes[]", "memories"), ("categories[]", "family")]
            )
            #expect(made.status == .ok)
            let code = try #require(made.text.firstMatch(of: /id="care-code">([A-Z0-9-]+)</)?.output.1)

            #expect(
                try await him.post(CareURL.appCode.path, form: [("code", "AAAA-BBBB")]).errorSummary.first?.hasPrefix("This code is not right")
                    == true
            )
            let linked = try await him.post(CareURL.appCode.path, form: [("code", String(code).lowercased())])
            let link = try Self.id(in: linked.location)
            #expect(linked.location == "\(CareURL.appPerson(link).path)?done=linked")
            let person = try await him.get(CareURL.appPerson(link).path)
            #expect(
                person.text.contains("Party at Ruth&#39;s") || person.text.contains("Party at Ruth&#x27;s") || person.text.contains("Party at Ruth's")
            )
            #expect(person.text.contains(">Dentist<") && !person.text.contains("Private health note"))
            #expect(!person.text.contains("Add an appointment or to-do"), "no plans scope, no adding")
            #expect(try await him.get(CareURL.appPersonMemory(person: link, note).path).status == .notFound)
            #expect(try await him.get(CareURL.appPersonMemory(person: link, party).path).status == .ok)
            #expect(try await him.get(CareURL.appPersonPlanNew(link).path).status == .notFound)
            let log = try await her.get(CareURL.appAccessLog.path).text
            #expect(log.contains("Ruth saw your reminders and appointments") && log.contains("Ruth saw your shared memories"))
            #expect(log.contains("Ruth saw one of your memories") && !log.contains("where you are"), "location is not shared, so not seen")

            // She lets him add plans and no longer see memories: from his next page on.
            #expect(try await her.post(CareURL.appLink(link).path, form: [("scopes[]", "reminders"), ("scopes[]", "plans")]).status == .seeOther)
            let narrowed = try await him.get(CareURL.appPerson(link).path)
            #expect(!narrowed.text.contains("Party at Ruth") && narrowed.text.contains("Add an appointment or to-do"))
            #expect(try await him.get(CareURL.appPersonMemory(person: link, party).path).status == .notFound)
            let added = try await him.post(
                CareURL.appPersonPlanNew(link).path,
                form: [("type", "simple_todo"), ("title", "Water the tomatoes"), ("recurrence", "none")]
            )
            #expect(added.location == "\(CareURL.appPerson(link).path)?done=added", "\(added.status) \(added.errorSummary)")
            let mine = try await her.get(CareURL.appMemories.path)
            #expect(mine.text.contains(">Water the tomatoes<"))
            #expect(try await her.get(CareURL.appLink(link).path).text.contains("You changed it"))

            // She stops sharing after confirming: he sees nothing more.
            #expect(try await her.get(CareURL.appLinkEnd(link).path).text.contains("Stop sharing with Ruth?"))
            #expect(try await her.post(CareURL.appLinkEnd(link).path).location == "\(CareURL.appSharing.path)?done=ended")
            #expect(try await him.get(CareURL.appPerson(link).path).status == .notFound)
            #expect(try await her.get(CareURL.appSharing.path).text.contains("Sharing that has ended"))
        }
    }

    @Test(arguments: TestEngines.all)
    func aCaregiverRegistersWithEveryProblemShownAndLeavesAfterAsking(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var browser = Visitor(portal: portal)
            #expect(try await browser.get(CareURL.appRegister(.caregiver).path).text.contains("Create your caregiver account"))
            let mismatched = try await browser.post(
                CareURL.appRegister(.caregiver).path,
                form: [
                    ("name", "Sam"), ("email", "sam@example.org"), ("password", CareFixtures.password), ("password_confirmation", "other")
                ]
            )
            #expect(mismatched.status == .unprocessableContent && mismatched.errorSummary == ["Enter the same password twice"])
            #expect(
                try await portal.outboxMessages().filter { $0.recipient == "sam@example.org" }.isEmpty,
                "nothing is sent before every box is right"
            )
            let registered = try await browser.post(
                CareURL.appRegister(.caregiver).path,
                form: [
                    ("name", "Sam"), ("email", "sam@example.org"), ("password", CareFixtures.password),
                    ("password_confirmation", CareFixtures.password)
                ]
            )
            #expect(registered.status == .ok && registered.text.contains(MemoryCare.checkEmail))
            #expect(try await portal.outboxMessages().contains { $0.recipient == "sam@example.org" })

            let (_, app, _) = try await Self.signedIn(portal, .careReceiver, email: "eleanor@example.org", name: "Eleanor")
            var (him, caregiverApp, _) = try await Self.signedIn(portal, .caregiver, email: "ruth@example.org", name: "Ruth")
            let link = try await CareFixtures.link(app, caregiverApp, scopes: ["location"])
            let person = try await him.get(CareURL.appPerson(link).path)
            #expect(person.text.contains("app has not shared a location yet"))
            #expect(try await him.get(CareURL.appPersonLeave(link).path).text.contains("Stop helping Eleanor here?"))
            #expect(try await him.post(CareURL.appPersonLeave(link).path).location == "\(CareURL.appPeople.path)?done=left")
            #expect(try await him.get(CareURL.appPerson(link).path).status == .notFound)
            #expect(
                try await portal.outboxMessages().contains {
                    $0.recipient == "eleanor@example.org" && $0.subject.contains("Ruth")
                        || $0.recipient == "eleanor@example.org" && $0.bodyText.contains("Ruth")
                }
            )

            // With memory care switched off, its parts are neither offered nor open.
            var visitor = Visitor(portal: portal)
            #expect(try await visitor.get(SiteURL.app.path).text.contains(#"href="/app/care""#))
            var (admin, _) = try await portal.signedIn(.administrator)
            #expect(try await FeaturesTests.switchPrograms(&admin, on: [.perinatalCommunity]).status == .seeOther)
            #expect(!(try await visitor.get(SiteURL.app.path).text.contains("/app/care")))
            for path in [
                AppAccountKind.careReceiver.signInPagePath, CareURL.appRegister(.caregiver).path, CareURL.appMemories.path, CareURL.appPeople.path
            ] {
                #expect(try await visitor.get(path).status == .notFound, "\(path)")
            }
            #expect(try await him.get(CareURL.appPeople.path).status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func bothKindsSendFeedbackOrABugReportToMemoryCaresInbox(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (her, _, herID) = try await Self.signedIn(portal, .careReceiver, email: "eleanor@example.org", name: "Eleanor")
            var (him, _, hisID) = try await Self.signedIn(portal, .caregiver, email: "ruth@example.org", name: "Ruth")
            #expect(try await her.get(CareURL.appMemories.path).text.contains(CareURL.appFeedback(.careReceiver).path))
            let page = try await her.get(CareURL.appFeedback(.careReceiver).path)
            #expect(page.text.contains("What would you like to tell the program’s team?") && page.text.contains("Yes: this is a bug report"))
            let empty = try await her.post(CareURL.appFeedback(.careReceiver).path, form: [("message", "  "), ("kind", "bug_report")])
            #expect(
                empty.status == .unprocessableContent && empty.errorSummary == ["Write your feedback"]
                    && empty.text.contains(#"value="bug_report" checked"#)
            )
            let sent = try await her.post(
                CareURL.appFeedback(.careReceiver).path,
                form: [("message", "The reminder came an hour late"), ("kind", "bug_report")]
            )
            #expect(sent.location == "\(CareURL.appFeedback(.careReceiver).path)?sent=1")
            #expect(try await him.post(CareURL.appFeedback(.caregiver).path, form: [("message", "Thank you for this")]).status == .seeOther)
            #expect(
                try await him.get(CareURL.appFeedback(.careReceiver).path).location?.hasPrefix(AppAccountKind.careReceiver.signInPagePath) == true
            )

            let kept = try await portal.database.read { db in try await FeedbackInbox.memoryCare.repository.messages(on: db) }
            let byAuthor = Dictionary(uniqueKeysWithValues: kept.map { ($0.author, $0) })
            #expect(byAuthor[.careReceiver(herID)]?.kind == .bugReport && byAuthor[.careReceiver(herID)]?.body == "The reminder came an hour late")
            #expect(byAuthor[.caregiver(hisID)]?.kind == .feedback)
        }
    }

    @Test(arguments: TestEngines.all)
    func noPageOpensOrChangesAnotherPersonsMemoriesContactsOrLinks(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (her, herApp, _) = try await Self.signedIn(portal, .careReceiver, email: "eleanor@example.org", name: "Eleanor")
            var (other, _, _) = try await Self.signedIn(portal, .careReceiver, email: "arthur@example.org", name: "Arthur")
            let memory = try CareFixtures.id(
                try await CareFixtures.memory(herApp, ["type": "simple_todo", "title": "Post the letter", "category": "errands"])
            )
            let contact = try Self.id(in: try await her.post(CareURL.appContactNew.path, form: [("name", "Ruth Price")]).location)
            var (ruth, ruthApp, _) = try await Self.signedIn(portal, .caregiver, email: "ruth@example.org", name: "Ruth")
            var (sam, _, _) = try await Self.signedIn(portal, .caregiver, email: "sam@example.org", name: "Sam")
            let link = try await CareFixtures.link(herApp, ruthApp, scopes: ["reminders", "plans", "memories", "location"], categories: ["errands"])
            #expect(try await ruth.get(CareURL.appPerson(link).path).text.contains("Post the letter"))

            // Arthur, signed in, asks for her records by number: each is not found, and nothing of hers changes.
            for path in [
                CareURL.appMemory(memory).path, CareURL.appMemoryEdit(memory).path, CareURL.appMemoryDelete(memory).path,
                CareURL.appContact(contact).path, CareURL.appContactEdit(contact).path, CareURL.appLink(link).path, CareURL.appLinkEnd(link).path
            ] {
                #expect(try await other.get(path).status == .notFound, "\(path)")
            }
            #expect(try await other.post(CareURL.appMemoryStatus(memory).path, form: [("status", "done")]).status == .notFound)
            #expect(try await other.post(CareURL.appMemoryDelete(memory).path).status == .notFound)
            #expect(
                try await other.post(CareURL.appMemoryEdit(memory).path, form: [("type", "simple_todo"), ("title", "Mine now"), ("version", "1")])
                    .status == .notFound
            )
            #expect(try await other.post(CareURL.appContactDelete(contact).path).status == .notFound)
            #expect(try await other.post(CareURL.appLinkEnd(link).path).status == .notFound)
            let kept = try await herApp.get(CareURL.apiMemory(memory).path).object
            #expect(kept["title"] as? String == "Post the letter" && kept["status"] as? String == "none" && kept["deleted"] as? Bool != true)
            #expect(try await herApp.get(CareURL.apiContact(contact).path).status == .ok)

            // Sam, another caregiver, reaches nothing through Ruth's link.
            for path in [
                CareURL.appPerson(link).path, CareURL.appPersonMemory(person: link, memory).path, CareURL.appPersonPlanNew(link).path,
                CareURL.appPersonLeave(link).path
            ] {
                #expect(try await sam.get(path).status == .notFound, "\(path)")
            }
            #expect(
                try await sam.post(CareURL.appPersonPlanNew(link).path, form: [("type", "simple_todo"), ("title", "Sneaked in")]).status == .notFound
            )
            #expect(try await sam.post(CareURL.appPersonLeave(link).path).status == .notFound)
            #expect(try await ruth.get(CareURL.appPerson(link).path).status == .ok, "the link is Ruth's still")
            #expect(!(try await her.get(CareURL.appMemories.path).text.contains("Sneaked in")))
        }
    }

    @Test(arguments: TestEngines.all)
    func sheAddsPicturesToAMemoryAndAPhotoToAContactAndHisPageShowsWhatHeMaySee(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, app, _) = try await Self.signedIn(portal, .careReceiver, email: "eleanor@example.org", name: "Eleanor")
            let memory = try CareFixtures.id(try await CareFixtures.memory(app, ["type": "simple_memory", "title": "Wedding", "category": "family"]))
            let page = try await browser.get(CareURL.appMemory(memory).path)
            #expect(
                page.text.contains("Pictures and files") && page.text.contains("None yet.") && page.text.contains(#"enctype="multipart/form-data""#)
            )

            // A file that is not a picture or PDF: the page again, the message at the top and beside the box, nothing kept.
            let refused = try await browser.postMultipart(
                CareURL.appMemoryFiles(memory).path,
                fields: [],
                file: ("file", "notes.txt", "text/plain", Array("words".utf8))
            )
            #expect(refused.status == .unprocessableContent && refused.errorSummary == ["The file must be a PNG, JPEG, WebP or PDF file"])
            #expect(String(buffer: refused.body).contains(#"id="file-error""#))
            let added = try await browser.postMultipart(
                CareURL.appMemoryFiles(memory).path,
                fields: [],
                file: ("file", "wedding.png", "image/png", UploadsTests.png)
            )
            #expect(added.status == .seeOther && added.location == "\(CareURL.appMemory(memory).path)?done=attached")
            let shown = try await browser.get(try #require(added.location))
            let files = try await app.get(CareURL.apiMemoryFiles(memory).path).object["files"] as? [[String: Any]] ?? []
            let fileID = Int64(try #require(files.first?["id"] as? Int))
            #expect(shown.text.contains("Added.") && shown.text.contains(#"alt="Picture: wedding.png""#))
            #expect(shown.text.contains(CareURL.appMemoryFile(memory, fileID).path))
            let picture = try await browser.get(CareURL.appMemoryFile(memory, fileID).path)
            #expect(picture.status == .ok && Array(picture.body.readableBytesView) == UploadsTests.png)

            // A caregiver who sees family memories sees it on his page; the picture's read is in her access log.
            let (ruthApp, _) = try await CareFixtures.caregiver(portal)
            let link = try await CareFixtures.link(app, ruthApp, scopes: ["memories"], categories: ["family"])
            var ruth = Visitor(portal: portal)
            _ = try await ruth.signInToApp(AppAccountKind.caregiver, identifier: "ruth@example.org", password: CareFixtures.password)
            let his = try await ruth.get(CareURL.appPersonMemory(person: link, memory).path)
            #expect(
                his.status == .ok && his.text.contains(CareURL.appPersonMemoryFile(person: link, memory, fileID).path) && !his.text.contains("Remove")
            )
            #expect(try await ruth.get(CareURL.appPersonMemoryFile(person: link, memory, fileID).path).status == .ok)

            // Removing asks first.
            let ask = try await browser.get(CareURL.appMemoryFileRemove(memory, fileID).path)
            #expect(ask.text.contains("Remove “wedding.png”?"))
            let removed = try await browser.post(CareURL.appMemoryFileRemove(memory, fileID).path)
            #expect(removed.location == "\(CareURL.appMemory(memory).path)?done=removed")
            let left = try await app.get(CareURL.apiMemoryFiles(memory).path).object["files"] as? [Any]
            #expect(left?.isEmpty == true)

            // A contact's photo: added, shown, removed after asking.
            let contact = try CareFixtures.id(try await app.send(.post, CareURL.apiContacts.path, json: ["name": "Dr Lee"]).object)
            let contactPage = try await browser.get(CareURL.appContact(contact).path)
            #expect(contactPage.text.contains("Add a photo") && !contactPage.text.contains("Remove the photo"))
            let wrong = try await browser.postMultipart(
                CareURL.appContactPhoto(contact).path,
                fields: [],
                file: ("photo", "lee.pdf", "application/pdf", CareFilesTests.pdf)
            )
            #expect(wrong.status == .unprocessableContent && wrong.errorSummary == ["The photo must be a PNG, JPEG or WebP picture"])
            let set = try await browser.postMultipart(
                CareURL.appContactPhoto(contact).path,
                fields: [],
                file: ("photo", "lee.png", "image/png", UploadsTests.png)
            )
            #expect(set.location == "\(CareURL.appContact(contact).path)?done=photo")
            let withPhoto = try await browser.get(CareURL.appContact(contact).path)
            #expect(
                withPhoto.text.contains(#"alt="Photo of Dr Lee""#) && withPhoto.text.contains("Change the photo")
                    && withPhoto.text.contains("Remove the photo")
            )
            #expect(try await browser.get(CareURL.appContactPhoto(contact).path).status == .ok)
            #expect(try await browser.get(CareURL.appContactPhotoRemove(contact).path).text.contains("Remove the photo of Dr Lee?"))
            #expect(
                try await browser.post(CareURL.appContactPhotoRemove(contact).path).location
                    == "\(CareURL.appContact(contact).path)?done=photo-removed"
            )
            #expect(try await browser.get(CareURL.appContactPhoto(contact).path).status == .notFound)
        }
    }

    @Test(arguments: TestEngines.all)
    func hisStillOpenNotificationLeadsToTheMemoryThroughHisLinkWhileItLasts(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let (herApp, _) = try await CareFixtures.receiver(portal)
            var (ruth, ruthApp, ruthID) = try await Self.signedIn(portal, .caregiver, email: "ruth@example.org", name: "Ruth")
            let link = try await CareFixtures.link(herApp, ruthApp, scopes: ["reminders"])
            let memory = try CareFixtures.id(
                try await CareFixtures.memory(
                    herApp,
                    [
                        "type": "appointment", "title": "Dentist", "category": "health", "happens_at": "2026-12-20T10:00", "status": "open"
                    ]
                )
            )
            _ = try await portal.database.transaction { db in
                try await portal.portal.notifications.write(
                    NewNotification(
                        kind: .careStillOpen,
                        message: "Eleanor has not marked “Dentist” done yet",
                        subject: .careMemory(memory),
                        onceKey: "test:\(memory)"
                    ),
                    to: .caregiver(ruthID),
                    on: db
                )
            }
            let feed = try await ruth.get(CareURL.appNotifications(.caregiver).path)
            #expect(feed.text.contains(CareURL.appCaregiverMemory(memory).path), "the entry links to the memory")
            let followed = try await ruth.get(CareURL.appCaregiverMemory(memory).path)
            #expect(followed.status == .seeOther && followed.location == CareURL.appPersonMemory(person: link, memory).path)
            #expect(try await ruth.get(CareURL.appPersonMemory(person: link, memory).path).text.contains("Dentist"))
            // Once she ends the link, the entry leads nowhere.
            #expect(try await herApp.send(.delete, CareURL.apiLink(link).path).status == .noContent)
            #expect(try await ruth.get(CareURL.appCaregiverMemory(memory).path).status == .notFound)
        }
    }
}
