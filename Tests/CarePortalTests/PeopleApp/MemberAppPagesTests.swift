import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The member's pages in the people's web app: joining with a sign-up code, recovering her password, her
/// home, the information desk (ask, anonymously if she wishes, reply, report) and her notifications — the
/// same records the member API and the medical professionals see.
@Suite struct MemberAppPagesTests {
    static let password = "Sunrise#2027"

    /// A member registered through the API, and a browser signed in to the web app as her.
    static func signedInMember(_ portal: TestPortal, pseudonym: String = "Brave_Wren") async throws -> (Visitor, Int64, AppClient) {
        let (app, member) = try await AppClient.registered(portal, pseudonym: pseudonym)
        var browser = Visitor(portal: portal)
        let signedIn = try await browser.signInToApp(.member, identifier: pseudonym, password: Self.password)
        #expect(signedIn.location == SiteURL.appMemberHome.path)
        #expect(try await browser.get(SiteURL.appMemberHome.path).status == .ok)
        return (browser, Int64(try #require(member["id"] as? Int)), app)
    }

    @Test(arguments: TestEngines.all)
    func sheJoinsWithASignUpCodeSeeingEveryProblemAtOnceAndLandsOnHerHome(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let code = try await AppClient.makeCode(portal)
            var browser = Visitor(portal: portal)
            #expect(try await browser.get(SiteURL.appMemberRegister.path).text.contains("Join the community"))
            let empty = try await browser.post(SiteURL.appMemberRegister.path, form: [("pseudonym", "Quiet_Lark"), ("state", "tn")])
            #expect(empty.status == .unprocessableContent)
            let summary = empty.errorSummary
            #expect(
                summary.first == "Enter the sign-up code you were given" && summary.contains("Enter your due date")
                    && summary.contains("Choose a security question") && summary.contains("Enter the answer to your security question"),
                "\(summary)"
            )
            #expect(empty.text.contains(#"value="Quiet_Lark""#) && empty.text.contains(#"value="TN""#), "what she typed is kept")
            #expect(empty.text.contains(##"href="#due_date_day""##) && empty.text.contains(##"href="#security_question""##))

            let due = CalendarDate(portal.clock.now).adding(months: 4)
            let question = ProgramSettings.defaults(programName: "").securityQuestions[1]
            var form: [(String, String)] = [
                ("sign_up_code", "zzzzzz"), ("pseudonym", "Quiet_Lark"), ("password", Self.password), ("password_confirmation", Self.password),
                ("avatar", "moon"), ("due_date_day", "\(due.day)"), ("due_date_month", "\(due.month)"), ("due_date_year", "\(due.year)"),
                ("recovery_email", "lark@example.org"), ("security_question", question), ("security_answer", "Biscuit")
            ]
            let wrongCode = try await browser.post(SiteURL.appMemberRegister.path, form: form)
            #expect(
                wrongCode.status == .unprocessableContent && wrongCode.errorSummary == [MemberRegistration.wrongCode],
                "\(wrongCode.errorSummary)"
            )
            form[0] = ("sign_up_code", code.lowercased())
            let joined = try await browser.post(SiteURL.appMemberRegister.path, form: form)
            #expect(joined.location == "\(SiteURL.appMemberHome.path)?welcome=1", "\(joined.status) \(joined.errorSummary)")
            let home = try await browser.get(try #require(joined.location))
            #expect(home.text.contains("Welcome to the community") && home.text.contains("Hello, Quiet_Lark"))
            #expect(home.text.contains("\(due.dayNumber - CalendarDate(portal.clock.now).dayNumber) days to your due date"))
            let credentials = try #require(
                try await portal.database.read { db in try await MemberRepository().credentials(pseudonym: "quiet_lark", on: db) }
            )
            let member = try #require(try await portal.database.read { db in try await MemberRepository().find(id: credentials.id, on: db) })
            #expect(member.dueDate == due && member.avatarID == "moon" && member.securityQuestion == question && member.signUpCodeID != nil)
            // The code is used up: the same form again is refused.
            var other = Visitor(portal: portal)
            _ = try await other.get(SiteURL.appMemberRegister.path)
            form[1] = ("pseudonym", "Quiet_Lark2")
            #expect(try await other.post(SiteURL.appMemberRegister.path, form: form).errorSummary == [MemberRegistration.wrongCode])
        }
    }

    @Test(arguments: TestEngines.all)
    func aForgottenPasswordIsRecoveredWithTheEmailAndAnswerAndEndsHerOtherSignIns(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (phone, _, app) = try await Self.signedInMember(portal)
            var browser = Visitor(portal: portal)
            _ = try await browser.get(SiteURL.appMemberRecovery.path)
            let newPassword = "Moonrise#2028"
            let wrong = try await browser.post(
                SiteURL.appMemberRecovery.path,
                form: [
                    ("recovery_email", "brave_wren@example.org"), ("security_answer", "Not it"), ("new_password", newPassword),
                    ("new_password_confirmation", newPassword)
                ]
            )
            #expect(wrong.status == .unprocessableContent && wrong.errorSummary == [MemberRecovery.wrongRecovery])
            #expect(wrong.text.contains(#"value="brave_wren@example.org""#))
            let mismatch = try await browser.post(
                SiteURL.appMemberRecovery.path,
                form: [
                    ("recovery_email", "brave_wren@example.org"), ("security_answer", "biscuit"), ("new_password", newPassword),
                    ("new_password_confirmation", "other")
                ]
            )
            #expect(mismatch.errorSummary == ["Enter the same new password twice"])
            let recovered = try await browser.post(
                SiteURL.appMemberRecovery.path,
                form: [
                    ("recovery_email", "brave_wren@example.org"), ("security_answer", " BISCUIT "), ("new_password", newPassword),
                    ("new_password_confirmation", newPassword)
                ]
            )
            #expect(recovered.location == "\(AppAccountKind.member.signInPagePath)?recovered=1")
            #expect(try await browser.get(try #require(recovered.location)).text.contains("Your new password is saved."))
            // Her other sign-ins, the app's and the phone browser's, are over.
            #expect(try await app.get(SiteURL.apiMe.path).status == .unauthorized)
            #expect(try await phone.get(SiteURL.appMemberHome.path).location?.hasPrefix(AppAccountKind.member.signInPagePath) == true)
            #expect(try await browser.signInToApp(.member, identifier: "Brave_Wren", password: newPassword).location == SiteURL.appMemberHome.path)
        }
    }

    @Test(arguments: TestEngines.all)
    func sheAsksAnonymouslyRepliesAndReportsAndSeesOnlyWhatTheAppWouldShow(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, memberID, _) = try await Self.signedInMember(portal)
            let emptyDesk = try await browser.get(SiteURL.appDesk.path)
            #expect(emptyDesk.text.contains("No questions yet."), "\(emptyDesk.text)")
            let empty = try await browser.post(SiteURL.appDeskAsk.path, form: [("title", "Sleep"), ("body", "   ")])
            #expect(empty.status == .unprocessableContent && empty.errorSummary == ["Enter your question"] && empty.text.contains(#"value="Sleep""#))
            let asked = try await browser.post(
                SiteURL.appDeskAsk.path,
                form: [
                    ("title", "Is it normal to sleep so much?"), ("body", "Week 30 and I sleep *twelve* hours. <script>alert(1)</script>"),
                    ("anonymous", "on")
                ]
            )
            let location = try #require(asked.location)
            let threadID = try #require(Int64(location.split(separator: "/").last!.split(separator: "?").first!))
            #expect(location == "\(SiteURL.appDeskThread(threadID).path)?notice=asked")
            let thread = try await browser.get(location)
            #expect(thread.text.contains("<em>twelve</em>") && !thread.text.contains("<script>alert"), "the body is made safe")
            #expect(thread.text.contains("Anonymous") && thread.text.contains("(you)") && !thread.text.contains("Brave_Wren"))
            #expect(!thread.text.contains("Report this question"), "she does not report her own question")
            #expect(
                try await portal.database.read { db in try await DeskRepository(engine: portal.database.engine).findThread(id: threadID, on: db) }?
                    .author.memberID == memberID
            )

            // Another member finds it by search, replies and reports it; the search for nothing says so.
            var (other, _, _) = try await Self.signedInMember(portal, pseudonym: "Gentle_Heron")
            let found = try await other.get("\(SiteURL.appDesk.path)?q=sleep")
            #expect(found.text.contains("Is it normal to sleep so much?") && found.text.contains("Anonymous"))
            #expect(try await other.get("\(SiteURL.appDesk.path)?q=zebras").text.contains("No questions match"))
            let noReply = try await other.post(SiteURL.appDeskReplies(threadID).path, form: [("body", "")])
            #expect(noReply.status == .unprocessableContent && noReply.errorSummary == ["Enter your reply"])
            let replied = try await other.post(SiteURL.appDeskReplies(threadID).path, form: [("body", "Same for me at week 31.")])
            #expect(replied.location?.hasPrefix("\(SiteURL.appDeskThread(threadID).path)?notice=replied#reply-") == true)
            #expect(try await browser.get(SiteURL.appDeskThread(threadID).path).text.contains("Same for me at week 31."))
            let noReason = try await other.post(SiteURL.appDeskThreadFlag(threadID).path, form: [("reason", " ")])
            #expect(noReason.status == .unprocessableContent && noReason.errorSummary == ["Enter why this post should be looked at"])
            let reported = try await other.post(SiteURL.appDeskThreadFlag(threadID).path, form: [("reason", "Medical advice needed urgently")])
            #expect(reported.location == "\(SiteURL.appDeskThread(threadID).path)?notice=flagged")
            #expect(
                try await portal.database.read { db in
                    try await DeskRepository(engine: portal.database.engine).openFlagCount(.question(threadID), on: db)
                } == 1
            )
            #expect(try await other.get(SiteURL.appDeskThread(999_999).path).status == .notFound)
            #expect(try await other.get(SiteURL.appDeskReplyFlag(999_999).path).status == .notFound)

            // Her notification of the reply leads to the thread; she marks it read.
            let feed = try await browser.get(SiteURL.appMemberNotifications.path)
            #expect(feed.text.contains(SiteURL.appDeskThread(threadID).path) && feed.text.contains(">New<"))
            #expect(try await browser.get(SiteURL.appMemberHome.path).text.contains("1 new notification"))
            // A member chooses her reminders' lead and check-in time on the same page as her kinds.
            let choices = try await browser.get(SiteURL.appMemberNotificationChoices.path)
            #expect(choices.text.contains("check_in_time") && choices.text.contains("reminder_lead_minutes"))
            let badTime = try await browser.post(
                SiteURL.appMemberNotificationChoices.path,
                form: [("reminder_lead_minutes", "30"), ("check_in_time", "7pm")]
            )
            #expect(
                badTime.status == .unprocessableContent && badTime.errorSummary == ["Enter a time of day like 19:00"]
                    && badTime.text.contains(#"value="7pm""#)
            )
            let saved = try await browser.post(
                SiteURL.appMemberNotificationChoices.path,
                form: [("reminder_lead_minutes", "30"), ("check_in_time", "20:30")]
            )
            #expect(saved.location == "\(SiteURL.appMemberNotificationChoices.path)?saved=1")
            let stored = try await portal.database.read { db in try await portal.portal.notifications.choices(of: .member(memberID), on: db) }
            #expect(stored.reminderLeadMinutes == 30 && stored.checkInMinute == 20 * 60 + 30 && stored.overrides.values.allSatisfy { !$0 })
        }
    }

    @Test(arguments: TestEngines.all)
    func herProfileAndPasswordChangeAsTheAppsDoAndHelpIsForHerState(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, memberID, app) = try await Self.signedInMember(portal)
            let profile = try await browser.get(SiteURL.appMemberProfile.path)
            #expect(
                profile.text.contains("Brave_Wren") && profile.text.contains(#"value="brave_wren@example.org""#)
                    && profile.text.contains(#"value="TN""#)
            )
            let bad = try await browser.post(
                SiteURL.appMemberProfile.path,
                form: [
                    ("avatar", "moon"), ("bio", String(repeating: "a", count: MemberRules.bioMaximumLength + 1)), ("recovery_email", "not-an-email"),
                    ("state", "XX"), ("zip_code", "37203")
                ]
            )
            #expect(bad.status == .unprocessableContent && bad.errorSummary.count == 3, "\(bad.errorSummary)")
            #expect(bad.text.contains(#"value="not-an-email""#), "what she typed is kept")
            let saved = try await browser.post(
                SiteURL.appMemberProfile.path,
                form: [
                    ("avatar", "sun"), ("bio", "Here for the 3am company."), ("recovery_email", "wren@example.org"), ("state", ""), ("zip_code", "")
                ]
            )
            #expect(saved.location == "\(SiteURL.appMemberProfile.path)?saved=1")
            let me = try await app.get(SiteURL.apiMe.path).object
            #expect(
                me["recovery_email"] as? String == "wren@example.org" && me["bio"] as? String == "Here for the 3am company." && me["state"] == nil
            )
            #expect(try await portal.auditEntries(action: .memberProfileChanged).contains { $0.recordID == "\(memberID)" })

            // With no state, only nationwide help; crisis lines first, each number one to dial.
            let help = try await browser.get(SiteURL.appMemberHelp.path)
            #expect(help.status == .ok && help.text.contains("Add your state to your profile") && help.text.contains("tel:911"))

            let wrong = try await browser.post(
                SiteURL.appMemberPassword.path,
                form: [
                    ("current_password", "nope"), ("new_password", "Moonrise#2028"), ("new_password_confirmation", "Moonrise#2028")
                ]
            )
            #expect(wrong.status == .unprocessableContent && wrong.errorSummary == ["Your current password is not right"])
            let changed = try await browser.post(
                SiteURL.appMemberPassword.path,
                form: [
                    ("current_password", Self.password), ("new_password", "Moonrise#2028"), ("new_password_confirmation", "Moonrise#2028")
                ]
            )
            #expect(changed.location == "\(SiteURL.appMemberPassword.path)?saved=1")
            // This browser stays signed in; the app signs in again.
            #expect(try await browser.get(SiteURL.appMemberHome.path).status == .ok)
            #expect(try await app.get(SiteURL.apiMe.path).status == .unauthorized)
        }
    }

    @Test(arguments: TestEngines.all)
    func herCalendarIsAWeekAtATimeAndEntriesAreAddedChangedAndDeletedAsTheAppDoes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, memberID, app) = try await Self.signedInMember(portal)
            #expect(try await browser.get(SiteURL.appCalendar.path).text.contains("Nothing in your calendar these seven days."))
            let clock = portal.portal.programSettings.current.clock
            let tomorrow = clock.date(of: portal.clock.now).adding(days: 1)
            let empty = try await browser.post(
                SiteURL.appCalendarNew.path,
                form: [("times", "8am"), ("date_day", "31"), ("date_month", "2"), ("date_year", "2027")]
            )
            #expect(empty.status == .unprocessableContent)
            #expect(
                empty.errorSummary == [
                    "Choose what this entry is", "Give a title of 1 to \(CalendarRules.titleMaximumLength) characters", "Date must be a real date",
                    "Give at least one time of day as HH:MM, like 08:00", "Choose how often it happens"
                ],
                "\(empty.errorSummary)"
            )
            #expect(empty.text.contains(#"value="8am""#) && empty.text.contains(##"href="#date_day""##))
            let onceTwice = try await browser.post(
                SiteURL.appCalendarNew.path,
                form: [
                    ("kind", "appointment"), ("title", "Midwife"), ("date_day", "\(tomorrow.day)"), ("date_month", "\(tomorrow.month)"),
                    ("date_year", "\(tomorrow.year)"), ("times", "09:00, 15:00"), ("repeats", "never")
                ]
            )
            #expect(onceTwice.errorSummary == ["Give one time; only a daily event can have several"])
            let added = try await browser.post(
                SiteURL.appCalendarNew.path,
                form: [
                    ("kind", "medication"), ("title", "Morning dose"), ("date_day", "\(tomorrow.day)"), ("date_month", "\(tomorrow.month)"),
                    ("date_year", "\(tomorrow.year)"), ("times", "08:00 20:00"), ("repeats", "daily")
                ]
            )
            #expect(added.location == "\(SiteURL.appCalendar.path)?from=\(tomorrow.iso)&notice=added")
            let week = try await browser.get(try #require(added.location))
            #expect(week.text.contains("08:00 Morning dose") && week.text.contains("20:00 Morning dose"))
            // The app's API has the same entry, at the same times.
            let listed = try #require(try await app.get(SiteURL.apiCalendarEvents.path).object["events"] as? [[String: Any]])
            #expect(listed.count == 1 && listed[0]["times"] as? [String] == ["08:00", "20:00"] && listed[0]["repeats"] as? String == "daily")
            let id = Int64(try #require(listed[0]["id"] as? Int))
            #expect(try await browser.get(SiteURL.appCalendarEvent(id).path).text.contains(#"value="08:00, 20:00""#))
            let changed = try await browser.post(
                SiteURL.appCalendarEvent(id).path,
                form: [
                    ("kind", "medication"), ("title", "Evening dose"), ("date_day", "\(tomorrow.day)"), ("date_month", "\(tomorrow.month)"),
                    ("date_year", "\(tomorrow.year)"), ("times", "21:00"), ("repeats", "weekly")
                ]
            )
            #expect(changed.location == "\(SiteURL.appCalendar.path)?from=\(tomorrow.iso)&notice=changed")
            #expect(try await app.get(SiteURL.apiCalendarEvent(id).path).object["title"] as? String == "Evening dose")
            // Another member's entry is not there for her.
            var (other, _, _) = try await Self.signedInMember(portal, pseudonym: "Gentle_Heron")
            #expect(try await other.get(SiteURL.appCalendarEvent(id).path).status == .notFound)
            #expect(try await other.post(SiteURL.appCalendarEventDelete(id).path).status == .notFound)
            // Deleting asks first.
            #expect(try await browser.get(SiteURL.appCalendarEventDelete(id).path).text.contains("Delete “Evening dose”?"))
            #expect(try await browser.post(SiteURL.appCalendarEventDelete(id).path).location == "\(SiteURL.appCalendar.path)?notice=deleted")
            #expect(try await portal.database.read { db in try await CalendarRepository().count(memberID: memberID, on: db) } == 0)
        }
    }

    @Test(arguments: TestEngines.all)
    func sheAnswersAnOpenSurveyOnceOnOnePageWithEveryProblemBesideItsQuestion(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, memberID, app) = try await Self.signedInMember(portal)
            #expect(try await browser.get(SiteURL.appSurveys.path).text.contains("No surveys are waiting for you."))
            let today = portal.portal.programSettings.current.clock.date(of: portal.clock.now)
            let survey = try await SurveyFixture.make(portal, opensOn: today, closesOn: today.adding(days: 7))
            let list = try await browser.get(SiteURL.appSurveys.path)
            #expect(list.text.contains("How are the meetings going?") && list.text.contains("4 questions"))
            let page = try await browser.get(SiteURL.appSurvey(survey.id).path)
            let clientID = try #require(Self.hidden("client_id", in: page.text))
            let q = survey.questionIDs
            // Only the scale answered: the two required choices are told beside their questions; what she chose is kept.
            let partial = try await browser.post(SiteURL.appSurvey(survey.id).path, form: [("client_id", clientID), ("q-\(q[2])", "4")])
            #expect(
                partial.status == .unprocessableContent && partial.errorSummary == ["Choose an answer", "Choose at least one answer"],
                "\(partial.errorSummary)"
            )
            #expect(partial.text.contains(##"href="#q-\##(q[0])""##) && partial.text.contains(#"value="4" checked"#))
            #expect(Self.hidden("client_id", in: partial.text) == clientID, "the same answers keep the same client id")
            let form: [(String, String)] = [
                ("client_id", clientID), ("q-\(q[0])", "2"), ("q-\(q[1])-1", "on"), ("q-\(q[1])-3", "on"), ("q-\(q[2])", "4"),
                ("q-\(q[3])", "Later in the day, please.")
            ]
            let sent = try await browser.post(SiteURL.appSurvey(survey.id).path, form: form)
            #expect(sent.location == SiteURL.appSurvey(survey.id).path)
            #expect(try await browser.get(SiteURL.appSurvey(survey.id).path).text.contains("Thank you!"))
            // Sent twice (a double tap): recorded once.
            #expect(try await browser.post(SiteURL.appSurvey(survey.id).path, form: form).location == SiteURL.appSurvey(survey.id).path)
            let responses = try await portal.database.read { db in
                try await SurveyRepository().response(surveyID: survey.id, memberID: memberID, on: db)
            }
            #expect(responses?.clientID == clientID)
            // The app's API knows she answered: the survey is off her list.
            let open = try #require(try await app.get(SiteURL.apiSurveys.path).object["surveys"] as? [[String: Any]])
            #expect(open.isEmpty)
            #expect(!(try await browser.get(SiteURL.appSurveys.path).text.contains("How are the meetings going?")))
            #expect(try await browser.get(SiteURL.appSurvey(999_999).path).status == .notFound)
        }
    }

    static func hidden(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: #"name="\#(name)" value=""#) else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    @Test(arguments: TestEngines.all)
    func herMoodIsSharedOnceWithHerGroupAndAHardDayIsAnsweredWithWhereToFindHelp(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, _, app) = try await Self.signedInMember(portal)
            let form = try await browser.get(SiteURL.appMood.path)
            let clientID = try #require(Self.hidden("client_id", in: form.text))
            let none = try await browser.post(SiteURL.appMood.path, form: [("client_id", clientID)])
            #expect(none.status == .unprocessableContent && none.errorSummary == ["Choose how you are feeling"])
            let sad = try await browser.post(SiteURL.appMood.path, form: [("client_id", clientID), ("mood", "sad")])
            #expect(sad.status == .ok && sad.text.contains("feeling sad") && sad.text.contains("call or text 988"))
            #expect(sad.text.contains("tel:"), "a hard day is answered with numbers to call")
            // Sent twice (a double tap or a reload): shared once.
            _ = try await browser.post(SiteURL.appMood.path, form: [("client_id", clientID), ("mood", "sad")])
            let room = try await app.get(SiteURL.apiChat.path).text
            #expect(room.components(separatedBy: #""body_text":"is feeling sad""#).count - 1 == 1, "\(room)")
            let happy = try await browser.post(SiteURL.appMood.path, form: [("client_id", "another-\(clientID)"), ("mood", "happy")])
            #expect(happy.text.contains("feeling happy") && !happy.text.contains("call or text 988") && !happy.text.contains("tel:"))
            let after = try await app.get(SiteURL.apiChat.path).text
            #expect(after.components(separatedBy: #""body_text":"is feeling happy""#).count - 1 == 1)
            #expect(after.components(separatedBy: #""body_text":"is feeling sad""#).count - 1 == 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func sheTalksWithHerGroupOnceHoweverOftenSentReportsAMessageAndSeesOnlyWhatTheAppWould(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            var (browser, memberID, app) = try await Self.signedInMember(portal)
            #expect(try await browser.get(SiteURL.appChat.path).text.contains("Say hello to your group"))
            let (lark, _) = try await AppClient.registered(portal, pseudonym: "Lark")
            let later = CalendarDate(portal.clock.now).adding(months: 7).iso
            let (heron, _) = try await AppClient.registered(portal, pseudonym: "Heron", ["due_date": later])
            let larks = Int64(try #require(try await ChatTests.post(lark, "Kicks all night").object["id"] as? Int))
            let herons = Int64(try #require(try await ChatTests.post(heron, "Another group's words").object["id"] as? Int))

            let room = try await browser.get(SiteURL.appChat.path)
            #expect(room.text.contains("Kicks all night") && !room.text.contains("Another group's words"), "her own group's room only")
            #expect(room.text.contains(#"data-chat-live="\#(SiteURL.apiChatLive.path)""#) && room.text.contains(#"data-chat-newest="\#(larks)""#))
            let clientID = try #require(Self.hidden("client_id", in: room.text))
            let empty = try await browser.post(SiteURL.appChat.path, form: [("client_id", clientID), ("body", "  ")])
            #expect(empty.status == .unprocessableContent && empty.errorSummary == ["Write a message"])
            let long = String(repeating: "a", count: Chat.maximumLength + 1)
            let tooLong = try await browser.post(SiteURL.appChat.path, form: [("client_id", clientID), ("body", long)])
            #expect(tooLong.status == .unprocessableContent && tooLong.text.contains(long), "what she wrote is kept")
            #expect(Self.hidden("client_id", in: tooLong.text) == clientID, "sent again, it is still the same message")

            // Sent twice (a double tap, or the form sent again): posted once, escaped.
            for _ in 0..<2 {
                let sent = try await browser.post(SiteURL.appChat.path, form: [("client_id", clientID), ("body", "Hello <b>all</b>")])
                #expect(sent.status == .seeOther && sent.location == "\(SiteURL.appChat.path)#write")
            }
            let api = try await app.get(SiteURL.apiChat.path).text
            #expect(api.components(separatedBy: #""body_text":"Hello <b>all</b>""#).count - 1 == 1, "\(api)")
            let after = try await browser.get(SiteURL.appChat.path).text
            #expect(after.contains("Hello &lt;b&gt;all&lt;/b&gt;") && after.contains("(you)"))
            // The page's script fetches what came after the newest it shows, drawn as the page draws it.
            let newer = try await browser.get("\(SiteURL.appChatMessages.path)?after=\(larks)")
            #expect(newer.status == .ok && newer.text.contains("Hello &lt;b&gt;all") && !newer.text.contains("Kicks all night"))
            #expect(try await browser.get("\(SiteURL.appChatMessages.path)?after=x").status == .badRequest)

            // Reporting another member's message in her room; never her own, never another room's.
            #expect(try await browser.get(SiteURL.appChatMessageReport(herons).path).status == .notFound)
            let mine = Self.messageIDs(in: after).last ?? 0
            #expect(mine != larks)
            #expect(try await browser.get(SiteURL.appChatMessageReport(mine).path).status == .notFound)
            #expect(try await browser.get(SiteURL.appChatMessageReport(larks).path).text.contains("Kicks all night"))
            let noReason = try await browser.post(SiteURL.appChatMessageReport(larks).path, form: [("reason", "")])
            #expect(noReason.status == .unprocessableContent && noReason.errorSummary.first?.contains("what is wrong") == true)
            let reported = try await browser.post(SiteURL.appChatMessageReport(larks).path, form: [("reason", "Selling something")])
            #expect(reported.location == "\(SiteURL.appChat.path)?notice=reported")
            var admin = try await portal.signedIn(.administrator).0
            #expect(try await admin.get(SiteURL.chatReports.path).text.contains("Selling something"))

            // A removed message is shown as removed, as the app shows it; a muted member reads but cannot write.
            #expect(try await admin.post(SiteURL.chatMessageRemove(larks).path, form: [("reason", "Selling")]).status == .seeOther)
            #expect(
                try await admin.post(SiteURL.chatMemberMute(memberID).path, form: [("length", "hour"), ("reason", "Too many")]).status == .seeOther
            )
            let muted = try await browser.get(SiteURL.appChat.path).text
            #expect(!muted.contains("Kicks all night") && muted.contains("Removed by a moderator"))
            #expect(!muted.contains(SiteURL.appChatMessageReport(larks).path), "a removed message cannot be reported")
            #expect(muted.contains("A moderator has paused your posting") && !muted.contains(#"name="body""#))
            let refused = try await browser.post(SiteURL.appChat.path, form: [("client_id", "another"), ("body", "Let me in")])
            #expect(
                refused.status == .unprocessableContent && refused.text.contains("Let me in")
                    && refused.errorSummary.first?.contains("paused your posting") == true
            )

            // The room's window holds for the page too: a day later nothing of this is shown.
            portal.clock.advance(by: 25 * 3_600)
            let nextDay = try await browser.get(SiteURL.appChat.path).text
            #expect(!nextDay.contains("Hello &lt;b&gt;") && nextDay.contains("Say hello to your group") && nextDay.contains(#"name="body""#))
        }
    }

    /// The chat messages a page shows, by their ids, in the page's order.
    static func messageIDs(in html: String) -> [Int64] {
        html.components(separatedBy: #"data-message-id=""#).dropFirst().compactMap { Int64($0.prefix { $0.isNumber }) }
    }

    @Test(arguments: TestEngines.all)
    func sheReadsAModuleAnswersItsQuizSeesWhyAndWatchesAVideoAsTheAppDoes(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            let content = LearningContentRepository()
            let (moduleID, questions, hiddenID) = try await portal.database.transaction { db -> (Int64, [QuizQuestion], Int64) in
                let (id, _) = try await content.save(LearningContentTests.module("Eating well", .all), now: portal.clock.now, on: db)
                for (prompt, choices) in [
                    ("Folic acid until?", [("Week 12", true), ("Week 40", false)]), ("Protein?", [("Beans", true), ("Eggs", true), ("Cola", false)])
                ] {
                    _ = try await content.save(
                        QuizQuestion(
                            id: 0,
                            moduleID: id,
                            prompt: prompt,
                            explanation: "Because \(prompt)",
                            choices: choices.map { .init(id: 0, text: $0.0, isCorrect: $0.1) }
                        ),
                        now: portal.clock.now,
                        on: db
                    )
                }
                let (hidden, _) = try await content.save(LearningContentTests.module("Draft", .all, .draft), now: portal.clock.now, on: db)
                return (id, try await content.questions(moduleIDs: [id], on: db), hidden)
            }
            var (browser, memberID, app) = try await Self.signedInMember(portal)
            let center = try await browser.get(SiteURL.appLearning.path)
            #expect(center.text.contains("Eating well") && !center.text.contains("Draft"))
            #expect(try await browser.get(SiteURL.appLearningModule(hiddenID).path).status == .notFound)
            let module = try await browser.get(SiteURL.appLearningModule(moduleID).path)
            #expect(module.text.contains("<p>Text.</p>") && module.text.contains("Choose all the answers that are right."))
            #expect(!module.text.contains("Because "), "the answers are not given away")
            let (q1, q2) = (questions[0], questions[1])
            let partial = try await browser.post(SiteURL.appLearningModule(moduleID).path, form: [("q-\(q1.id)", "\(q1.choices[0].id)")])
            #expect(partial.status == .unprocessableContent && partial.errorSummary == ["Choose an answer"])
            #expect(partial.text.contains(##"href="#q-\##(q2.id)""##) && partial.text.contains(#"value="\#(q1.choices[0].id)" checked"#))
            let before = try await app.get(SiteURL.apiPoints.path).object["balance"] as? Int ?? -1
            let scored = try await browser.post(
                SiteURL.appLearningModule(moduleID).path,
                form: [
                    ("q-\(q1.id)", "\(q1.choices[0].id)"), ("q-\(q2.id)-\(q2.choices[0].id)", "on")
                ]
            )
            #expect(scored.status == .ok && scored.text.contains("You got 1 of 2 right.") && scored.text.contains("Because Protein?"))
            #expect(scored.text.contains("The right answers: Beans; Eggs"))
            let after = try await app.get(SiteURL.apiPoints.path).object["balance"] as? Int ?? -1
            #expect(after > before, "completing a module earns its points")
            // She opened it once: the pages that show it again beside her problems and her score are no new opening.
            let openings = try await portal.database.read { db in
                try await MemberEvents().events(memberID: memberID, kind: .learningModuleOpened, on: db)
            }
            #expect(openings.count == 1)
            // The app's API sees her completion.
            let listed = try await app.get(SiteURL.apiLearning.path).text
            #expect(listed.contains(#""best_score":{"correct":1,"questions":2},"completed":true"#))
            #expect(try await browser.get(SiteURL.appLearning.path).text.contains("Done: 1 of 2 right"))

            // A video: watched once earns its points, and the app sees it watched.
            let videoID = try await portal.database.transaction { db in
                try await content.save(
                    LearningVideo(
                        id: 0,
                        title: "Safe sleep",
                        description: "On the back.",
                        category: "Pregnancy",
                        lengthSeconds: 270,
                        source: .link("https://example.org/safe-sleep"),
                        stage: .all,
                        status: .published
                    ),
                    now: portal.clock.now,
                    on: db
                )
            }
            let video = try await browser.get(SiteURL.appLearningVideo(videoID).path)
            #expect(video.text.contains("https://example.org/safe-sleep") && video.text.contains("I watched it"))
            #expect(try await browser.get(SiteURL.appLearningVideoFile(videoID).path).status == .notFound, "a linked video has no file here")
            let watched = try await browser.post(SiteURL.appLearningVideoWatched(videoID).path)
            #expect(watched.location?.hasPrefix("\(SiteURL.appLearningVideo(videoID).path)?points=") == true)
            let thanked = try await browser.get(try #require(watched.location))
            #expect(thanked.text.contains("Thank you.") && thanked.text.contains(">Watched<"))
            #expect(try await app.get(SiteURL.apiLearning.path).text.contains(#""watched":true"#))
        }
    }
}
