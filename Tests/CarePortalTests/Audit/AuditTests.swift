import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct AuditTests {
    @Test(arguments: TestEngines.all)
    func eachAuditedEventWritesWhoWhatWhenWhereAndOutcome(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.physician, username: "dr.ana")
            var browser = Visitor(portal: portal)
            try await browser.get("/sign-in")
            try await browser.post("/sign-in", form: [("username", "dr.ana"), ("password", "wrong password")])
            try await browser.post("/sign-in", form: [("username", "dr.ana"), ("password", "correct horse battery staple")])
            try await browser.get("/")
            try await browser.get("/staff")
            try await browser.post("/sign-out")
            let entries = try await portal.auditEntries()
            let failure = try #require(entries.first { $0.action == "sign_in" && $0.outcome == "failure" })
            #expect(failure.actorName == "dr.ana")
            #expect(failure.detail == "wrong password")
            let success = try #require(entries.first { $0.action == "sign_in" && $0.outcome == "success" })
            #expect(success.actorRole == "physician")
            #expect(success.recordType == "staff_account")
            #expect(success.occurredAt == portal.clock.now)
            let denial = try #require(entries.first { $0.action == "access_denied" })
            #expect(denial.recordID == "GET /staff")
            #expect(denial.outcome == "denied")
            #expect(entries.contains { $0.action == "sign_out" && $0.outcome == "success" })
        }
    }

    @Test(arguments: TestEngines.all)
    func noSecretEverReachesTheAuditLogOrTheLogs(engine: Database.Engine) async throws {
        let logs = CapturedLogs()
        try await TestPortal.run(engine, logHandler: logs.handler) { portal in
            var admin = Visitor(portal: portal)
            try await admin.get("/setup")
            let firstPassword = "first secret passphrase"
            try await admin.post(
                "/setup",
                form: [
                    ("username", "chief"), ("email", "chief@example.org"), ("password", firstPassword), ("password_confirmation", firstPassword)
                ]
            )
            try await admin.get("/account/password")
            let secondPassword = "second secret passphrase"
            try await admin.post(
                "/account/password",
                form: [
                    ("current_password", firstPassword), ("new_password", secondPassword), ("new_password_confirmation", secondPassword)
                ]
            )
            try await admin.get("/")
            var stranger = Visitor(portal: portal)
            try await stranger.get("/sign-in")
            let guess = "a wrong guess of a password"
            try await stranger.post("/sign-in", form: [("username", "chief"), ("password", guess)])
            try await stranger.post("/sign-in", form: [("username", "chief"), ("password", secondPassword)])
            let secrets = [firstPassword, secondPassword, guess, admin.cookie!, admin.csrfToken!, stranger.cookie!, stranger.csrfToken!]

            let rows = try await portal.database.read { db in try await db.raw("SELECT * FROM audit_log").all() }
            #expect(rows.count >= 4)
            for row in rows {
                for column in row.allColumns {
                    guard let value = try? row.decode(column: column, as: String?.self) else { continue }
                    for secret in secrets { #expect(!value.contains(secret), "audit column \(column) holds a secret") }
                }
            }
            let lines = logs.all
            #expect(lines.contains { $0.contains("Request") }, "the request log was captured")
            for line in lines {
                for secret in secrets { #expect(!line.contains(secret), "a log line holds a secret") }
            }
        }
    }

    @Test(arguments: TestEngines.all)
    func theDatabaseRefusesToChangeOrRemoveAuditRows(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            _ = try await portal.signedIn(.administrator)
            #expect(try await portal.auditEntries().count >= 1)
            await #expect(throws: (any Error).self) {
                try await portal.database.write { db in try await db.raw("UPDATE audit_log SET outcome = 'success'").run() }
            }
            await #expect(throws: (any Error).self) {
                try await portal.database.write { db in try await db.raw("DELETE FROM audit_log").run() }
            }
            #expect(try await portal.auditEntries().count >= 1)
        }
    }

    @Test(arguments: TestEngines.all)
    func administratorsFilterTheLogAndExportItAsCSV(engine: Database.Engine) async throws {
        try await TestPortal.run(engine) { portal in
            try await portal.createStaff(.physician, username: "=cmd.user")
            var browser = Visitor(portal: portal)
            try await browser.get("/sign-in")
            try await browser.post("/sign-in", form: [("username", "=cmd.user"), ("password", "wrong password")])
            portal.clock.advance(by: 2 * 86_400)
            var (admin, adminAccount) = try await portal.signedIn(.administrator, username: "auditor")

            let filtered = try await admin.get("/audit?action=sign_in&person=auditor")
            #expect(filtered.text.contains("auditor #\(adminAccount.id)"))
            #expect(filtered.text.contains(#"<option value="sign_in" selected>"#), "the chosen action stays chosen")
            #expect(!filtered.text.contains("=cmd.user"))
            #expect(try await admin.get("/audit?action=sign_in&person=AUDITOR").text.contains("auditor #\(adminAccount.id)"), "in any case")
            #expect(!(try await admin.get("/audit?action=sign_in&person=audit").text.contains("auditor #")), "the whole name, not part of it")
            let byDate = try await admin.get("/audit?to=\(DisplayTime.isoDate(portal.clock.now.addingTimeInterval(-86_400)))")
            #expect(byDate.text.contains("=cmd.user"))
            #expect(!byDate.text.contains("auditor #"))
            let badDate = try await admin.get("/audit?from=yesterday")
            #expect(badDate.status == .unprocessableContent)
            #expect(badDate.text.contains("Enter the start date as year-month-day"))

            let export = try await admin.get("/audit/export.csv?action=sign_in")
            #expect(export.headers[.contentType] == "text/csv; charset=utf-8")
            let lines = export.text.split(separator: "\r\n", omittingEmptySubsequences: true)
            #expect(lines.first == Substring(AuditController.csvHeader.joined(separator: ",")))
            #expect(lines.count == 3, "header, the failed sign-in and the administrator's")
            #expect(export.text.contains("'=cmd.user"), "a formula-like cell is made inert")
            #expect(try await portal.auditEntries(action: .auditLogExported).count == 1)

            // What an administrator typed into a filter comes back in the export's entry, escaped on the page.
            _ = try await admin.get("/audit/export.csv?person=%3Cb%3Ebold%3C%2Fb%3E")
            let log = try await admin.get("/audit?action=audit_log_exported")
            #expect(log.text.contains("person=&lt;b&gt;bold&lt;/b&gt;"))
            #expect(!log.text.contains("<b>bold</b>"))
            #expect(log.text.contains(#"<strong class="tag tag--green">Success</strong>"#))
            #expect(log.text.contains("auditor #\(adminAccount.id)<br><span class=\"body-s secondary-text\">Administrator</span>"))
        }
    }
}
