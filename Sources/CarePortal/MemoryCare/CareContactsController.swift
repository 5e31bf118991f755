import Foundation
import Hummingbird
import PortalPlatform

/// Her contacts in the web app (`/app/care/contacts`): the list with search, one contact with the
/// memories about them, adding, changing (kept safe from a change made in the app meanwhile) and deleting.
struct CareContactsController {
    let portal: Portal
    var care: MemoryCare { MemoryCare(portal: portal) }

    func addRoutes(to routes: inout PortalRoutes) {
        let access = Access.careReceiverPages
        routes.get(CareURL.appContacts.pattern, access: access, contacts)
        routes.get(CareURL.appContactNew.pattern, access: access, newContact)
        routes.post(CareURL.appContactNew.pattern, access: access, createContact)
        routes.get(CareURL.pattern(CareURL.appContact), access: access, contact)
        routes.get(CareURL.pattern(CareURL.appContactEdit), access: access, editContact)
        routes.post(CareURL.pattern(CareURL.appContactEdit), access: access, saveContact)
        routes.get(CareURL.pattern(CareURL.appContactDelete), access: access, confirmDelete)
        routes.post(CareURL.pattern(CareURL.appContactDelete), access: access, deleteContact)
        routes.get(CareURL.pattern(CareURL.appContactPhoto), access: access, photo)
        routes.post(CareURL.pattern(CareURL.appContactPhoto), access: access, setPhoto)
        routes.get(CareURL.pattern(CareURL.appContactPhotoRemove), access: access, confirmRemovePhoto)
        routes.post(CareURL.pattern(CareURL.appContactPhotoRemove), access: access, removePhoto)
    }

    private func layout(_ title: String, _ context: PortalContext) -> Layout {
        CareAppController.layout(portal, title, context, .appContacts)
    }

    @Sendable func contacts(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let query = MemoryRules.withoutControlCharacters(request.query("q") ?? "").trimmed
        let page = CarePageLinks.number(request)
        let (contacts, hasMore) = try await care.contacts(
            receiverID: holder.accountID,
            words: query.split(whereSeparator: \.isWhitespace).map(String.init),
            page: page
        )
        return portal.pages.response(
            CareContactsPage(
                layout: layout("Contacts", context),
                contacts: contacts,
                query: query,
                page: page,
                hasMore: hasMore,
                notice: request.query("done") == "deleted" ? "The contact is deleted." : nil
            )
        )
    }

    @Sendable func contact(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let notice: String? =
            switch request.query("done") {
            case "saved": "Saved."
            case "changed": "It was changed somewhere else just now. This is how it is now: please try again."
            case "photo": "The photo is saved."
            case "photo-removed": "The photo is removed."
            default: nil
            }
        return try await contactPage(try context.parameters.recordID(), holder, context, notice: notice)
    }

    /// Her contact's page; `photoError` beside the photo box (422).
    private func contactPage(
        _ id: Int64,
        _ holder: AppAccountHolder,
        _ context: PortalContext,
        notice: String? = nil,
        photoError: String? = nil
    ) async throws -> Response {
        let (contact, memories) = try await care.contact(id: id, receiverID: holder.accountID)
        let hasPhoto = try await care.photo(ofContact: id, receiverID: holder.accountID) != nil
        return portal.pages.response(
            CareContactPage(
                layout: layout(contact.content.name, context),
                contact: contact,
                memories: memories,
                notice: notice,
                hasPhoto: hasPhoto,
                photoError: photoError
            ),
            status: photoError == nil ? .ok : .unprocessableContent
        )
    }

    // MARK: Their photo

    @Sendable func photo(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        guard let photo = try await care.photo(ofContact: try context.parameters.recordID(), receiverID: holder.accountID) else {
            throw HTTPError(.notFound)
        }
        return try await care.response(for: photo, receiverID: holder.accountID, request: request, context: context)
    }

    @Sendable func setPhoto(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let id = try context.parameters.recordID()
        let form = try await request.multipartForm()
        do {
            _ = try await care.setPhoto(form.files["photo"], ofContact: id, receiverID: holder.accountID)
        } catch let refused as CareFileRefused {
            return try await contactPage(id, holder, context, photoError: refused.message)
        }
        return seeOther("\(CareURL.appContact(id).path)?done=photo")
    }

    @Sendable func confirmRemovePhoto(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let id = try context.parameters.recordID()
        let (contact, _) = try await care.contact(id: id, receiverID: holder.accountID)
        return portal.pages.response(
            CareConfirmPage(
                layout: layout("Remove a photo", context),
                heading: "Remove the photo of \(contact.content.name)?",
                body: "Their details and your memories about them stay. This cannot be undone.",
                action: CareURL.appContactPhotoRemove(id).path,
                version: nil,
                button: "Yes, remove it",
                cancelPath: CareURL.appContact(id).path
            )
        )
    }

    @Sendable func removePhoto(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let id = try context.parameters.recordID()
        try await care.removePhoto(ofContact: id, receiverID: holder.accountID)
        return seeOther("\(CareURL.appContact(id).path)?done=photo-removed")
    }

    private struct ContactForm: Decodable {
        var version: String?
        var name: String?
        var phones: String?
        var email: String?
        var address: String?
        var company: String?

        var content: ContactContent {
            ContactContent(
                name: name?.trimmed ?? "",
                phones: (phones ?? "").split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty },
                email: email?.trimmed ?? "",
                address: address?.trimmed ?? "",
                company: company?.trimmed ?? ""
            )
        }
    }

    /// The domain's problems by the form's fields: every phone's under `phones`.
    private static func problems(_ found: [String: String]) -> [String: String] {
        var problems: [String: String] = [:]
        for (key, message) in found {
            let field = key.hasPrefix("phones") ? "phones" : key
            if problems[field] == nil { problems[field] = message }
        }
        return problems
    }

    private func formPage(
        _ context: PortalContext,
        id: Int64?,
        version: Int64?,
        form: ContactForm,
        problems: [String: String] = [:],
        conflict: String? = nil
    ) -> CareContactFormPage {
        CareContactFormPage(
            layout: layout(id == nil ? "New contact" : "Change a contact", context),
            contactID: id,
            version: version,
            name: form.name ?? "",
            phones: form.phones ?? "",
            email: form.email ?? "",
            address: form.address ?? "",
            company: form.company ?? "",
            problems: problems,
            conflict: conflict
        )
    }

    @Sendable func newContact(request: Request, context: PortalContext) async throws -> Response {
        _ = try CareAppController.receiver(context)
        return portal.pages.response(formPage(context, id: nil, version: nil, form: ContactForm()))
    }

    @Sendable func createContact(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let form = try await request.form(ContactForm.self, context: context)
        do {
            let (contact, _) = try await care.createContact(receiverID: holder.accountID, clientID: nil, content: form.content)
            return seeOther("\(CareURL.appContact(contact.id).path)?done=saved")
        } catch let error as APIError where error.status == .unprocessableContent {
            return portal.pages.response(
                formPage(context, id: nil, version: nil, form: form, problems: Self.problems(error.fields)),
                status: .unprocessableContent
            )
        }
    }

    @Sendable func editContact(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let (contact, _) = try await care.contact(id: try context.parameters.recordID(), receiverID: holder.accountID)
        let content = contact.content
        let form = ContactForm(
            name: content.name,
            phones: content.phones.joined(separator: ", "),
            email: content.email,
            address: content.address,
            company: content.company
        )
        return portal.pages.response(formPage(context, id: contact.id, version: contact.version, form: form))
    }

    @Sendable func saveContact(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let id = try context.parameters.recordID()
        let form = try await request.form(ContactForm.self, context: context)
        do {
            _ = try await care.updateContact(id: id, receiverID: holder.accountID, version: Int64(form.version ?? "") ?? -1, content: form.content)
            return seeOther("\(CareURL.appContact(id).path)?done=saved")
        } catch CareConflict.contact(let newer) {
            guard newer.deletedAt == nil else { throw HTTPError(.notFound) }
            return portal.pages.response(
                formPage(
                    context,
                    id: id,
                    version: newer.version,
                    form: form,
                    conflict:
                        "It was changed somewhere else (perhaps in the app) since you opened it. Your changes are still below: save again to keep them."
                ),
                status: .conflict
            )
        } catch let error as APIError where error.status == .unprocessableContent {
            let version = Int64(form.version ?? "")
            return portal.pages.response(
                formPage(context, id: id, version: version, form: form, problems: Self.problems(error.fields)),
                status: .unprocessableContent
            )
        }
    }

    @Sendable func confirmDelete(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let (contact, memories) = try await care.contact(id: try context.parameters.recordID(), receiverID: holder.accountID)
        let about = memories.isEmpty ? "" : " The memories about them stay; their name goes from them."
        return portal.pages.response(
            CareConfirmPage(
                layout: layout("Delete a contact", context),
                heading: "Delete \(contact.content.name)?",
                body: "They go from your contacts.\(about) This cannot be undone.",
                action: CareURL.appContactDelete(contact.id).path,
                version: contact.version,
                button: "Yes, delete them",
                cancelPath: CareURL.appContact(contact.id).path
            )
        )
    }

    private struct VersionForm: Decodable {
        var version: String?
    }

    @Sendable func deleteContact(request: Request, context: PortalContext) async throws -> Response {
        let holder = try CareAppController.receiver(context)
        let id = try context.parameters.recordID()
        let version = try await request.form(VersionForm.self, context: context).version.flatMap { Int64($0) }
        do {
            try await care.deleteContact(id: id, receiverID: holder.accountID, version: version)
        } catch CareConflict.contact {
            return seeOther("\(CareURL.appContact(id).path)?done=changed")
        }
        return seeOther("\(CareURL.appContacts.path)?done=deleted")
    }
}
