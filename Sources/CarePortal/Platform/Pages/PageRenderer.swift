import Foundation
import Hummingbird
import Mustache

/// Every template the code renders; start-up stops when one is missing.
enum TemplateName: String, CaseIterable, Sendable {
    case siteHeader = "layouts/header"
    case pagination = "partials/pagination"
    case error = "errors/error"
    case home = "home/home"
    case setup = "sign-in/setup"
    case signIn = "sign-in/sign-in"
    case changePassword = "sign-in/change-password"
    case registerPhysician = "staff/register"
    case registrationReceived = "staff/registration-received"
    case staffList = "staff/list"
    case staffAccount = "staff/account"
    case auditLog = "audit/log"
    case outbox = "outbox/list"
    case outboxMessage = "outbox/message"
    case signUpCodes = "members/codes"
    case newSignUpCode = "members/new-code"
    case signUpCodeCreated = "members/code-created"
    case members = "members/list"
    case member = "members/member"
    case deleteMember = "members/delete"
    case cohorts = "members/cohorts"
    case programSettings = "program-settings/settings"
    case medicalProfessionals = "medical-professionals/list"
    case inviteMedicalProfessional = "medical-professionals/invite"
    case acceptInvitation = "medical-professionals/accept"
    case invitationUnusable = "medical-professionals/invitation-unusable"
    case desk = "desk/list"
    case deskThreadRow = "desk/thread-row"
    case deskListControls = "desk/list-controls"
    case deskPost = "desk/post"
    case deskThread = "desk/thread"
    case deskEditReply = "desk/edit-reply"
    case deskModerate = "desk/moderate"
    case deskReveal = "desk/reveal"
    case deskFlags = "desk/flags"
    case deskModerationLog = "desk/moderation-log"
    case deskEmailSettings = "desk/email-settings"
    case catalogue = "catalogue/catalogue"
    case catalogueEntry = "catalogue/entry"
    case patients = "patients/list"
    case patientRow = "patients/row"
    case patientContact = "patients/contact"
    case patientRegimen = "patients/regimen"
    case patientCancelDraft = "patients/cancel-draft"
    case patient = "patients/patient"
    case patientDetails = "patients/patient-details"
    case patientChartDaily = "patients/chart-daily"
    case patientChartItems = "patients/chart-items"
    case patientChartCalendar = "patients/chart-calendar"
    case patientHistory = "patients/history"
    case patientRemove = "patients/remove"
    case patientReport = "patients/report"
}

/// A page's typed view model; the template reads only what it holds.
protocol Page: Sendable, Encodable {
    static var template: TemplateName { get }
    var layout: Layout { get }
}

struct MissingTemplates: Error, CustomStringConvertible {
    let names: [String]
    let directory: String
    var description: String {
        "Templates missing from \(directory): \(names.joined(separator: ", ")). Run CarePortal from the project folder or set RESOURCES_DIR."
    }
}

/// A template file swift-mustache could not read.
struct TemplateNotParsed: Error, CustomStringConvertible {
    let path: String
    let error: any Error
    var description: String { "template \(path): \(error)" }
}

/// Renders pages from the mustache templates loaded once at start-up.
struct PageRenderer: Sendable {
    let library: MustacheLibrary
    let fragments = FragmentCache()

    init(templatesDirectory: String) async throws {
        guard FileManager.default.fileExists(atPath: templatesDirectory) else {
            throw MissingTemplates(names: ["(the whole folder)"], directory: templatesDirectory)
        }
        var library = try Self.templates(in: templatesDirectory)
        // Closing tags cannot hold a "/", so pages extend the base layout by this short name.
        guard let layout = library.getTemplate(named: "layouts/page") else {
            throw MissingTemplates(names: ["layouts/page"], directory: templatesDirectory)
        }
        library.register(layout, named: "layout")
        self.library = library
        let missing = TemplateName.allCases.filter { library.getTemplate(named: $0.rawValue) == nil }.map(\.rawValue)
        guard missing.isEmpty else { throw MissingTemplates(names: missing, directory: templatesDirectory) }
    }

    /// Every `.mustache` file under `directory`, named by its path without the extension (as
    /// swift-mustache names them), each escaping its values with `HTMLEscaping`.
    private static func templates(in directory: String) throws -> MustacheLibrary {
        HTMLEscaping.registered
        let root = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        var library = MustacheLibrary(templates: [:])
        guard let files = FileManager.default.enumerator(atPath: root.path) else { return library }
        for case let path as String in files where path.hasSuffix(".mustache") {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            do {
                try library.register("{{% CONTENT_TYPE: \(HTMLEscaping.name) }}" + text, named: String(path.dropLast(".mustache".count)))
            } catch {
                throw TemplateNotParsed(path: path, error: error)
            }
        }
        return library
    }

    func html<P: Page>(_ page: P) -> String {
        guard let html = library.render(TemplateValues.box(page), withTemplate: P.template.rawValue) else {
            preconditionFailure("template \(P.template.rawValue) was checked at start-up")
        }
        return html
    }

    /// A fragment's HTML, rendered from its template once and then remembered (see `Fragment`).
    func html<F: Fragment>(_ fragment: F) -> String {
        fragments.html(fragment) { fragment in
            guard let html = library.render(TemplateValues.box(fragment), withTemplate: F.template.rawValue) else {
                preconditionFailure("template \(F.template.rawValue) was checked at start-up")
            }
            return html
        }
    }

    /// Fragments one after another, each rendered once and remembered.
    func list<F: Fragment>(_ fragments: [F]) -> FragmentList {
        FragmentList(html: fragments.map(html).joined(), isEmpty: fragments.isEmpty)
    }

    func response<P: Page>(_ page: P, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html(page)))
        )
    }
}

/// A redirect after a form, so reloading the next page never sends the form again.
func seeOther(_ url: SiteURL) -> Response {
    seeOther(url.path)
}

func seeOther(_ path: String) -> Response {
    Response(status: .seeOther, headers: [.location: path])
}
