import Foundation
import PortalPlatform

/// Her contacts in the web app: the list with search, one contact with the memories about them, and its form.
struct CareContactsPage: Page {
    static let template = TemplateName.appCareContacts

    struct Card: Encodable, Sendable {
        let path: String
        let name: String
        let note: String
    }

    let layout: Layout
    let contacts: [Card]
    let query: String
    let newPath = CareURL.appContactNew.path
    let listPath = CareURL.appContacts.path
    let pages: CarePageLinks
    let notice: String?

    init(layout: Layout, contacts: [CareContact], query: String, page: Int, hasMore: Bool, notice: String?) {
        self.layout = layout
        self.contacts = contacts.map { contact in
            Card(
                path: CareURL.appContact(contact.id).path,
                name: contact.content.name,
                note: ([contact.content.company] + contact.content.phones.prefix(1)).filter { !$0.isEmpty }.joined(separator: " · ")
            )
        }
        self.query = query
        pages = CarePageLinks(.appContacts, page: page, hasMore: hasMore, keeping: [("q", query)])
        self.notice = notice
    }
}

struct CareContactPage: Page {
    static let template = TemplateName.appCareContact
    let layout: Layout
    let name: String
    let phones: [String]
    let details: [CareDetail]
    let memories: [CareMemoryCard]
    let editPath: String
    let deletePath: String
    let notice: String?
    let backPath = CareURL.appContacts.path
    /// Their photo, when there is one, and the form that sets it.
    let photoPath: String?
    let removePhotoPath: String
    let upload: CareUploadForm
    let errors: [FormErrors.Item]

    init(layout: Layout, contact: CareContact, memories: [Memory], notice: String?, hasPhoto: Bool = false, photoError: String? = nil) {
        self.layout = layout
        photoPath = hasPhoto ? CareURL.appContactPhoto(contact.id).path : nil
        removePhotoPath = CareURL.appContactPhotoRemove(contact.id).path
        upload = CareUploadForm(
            action: CareURL.appContactPhoto(contact.id).path,
            field: "photo",
            label: hasPhoto ? "Change the photo" : "Add a photo",
            hint: "A picture of them, up to 4 MB.",
            accept: "image/png,image/jpeg,image/webp",
            button: hasPhoto ? "Change it" : "Add it",
            error: photoError
        )
        var errors = FormErrors()
        if let photoError { errors.add("photo", photoError) }
        self.errors = errors.items
        name = contact.content.name
        phones = contact.content.phones
        details = [("Email", contact.content.email), ("Address", contact.content.address), ("Company", contact.content.company)]
            .filter { !$0.1.isEmpty }.map { CareDetail(label: $0.0, value: $0.1) }
        self.memories = memories.map { CareMemoryCard($0, path: CareURL.appMemory($0.id).path) }
        editPath = CareURL.appContactEdit(contact.id).path
        deletePath = CareURL.appContactDelete(contact.id).path
        self.notice = notice
    }
}

struct CareContactFormPage: Page {
    static let template = TemplateName.appCareContactForm
    static let fieldOrder = ["name", "phones", "email", "address", "company"]

    let layout: Layout
    let heading: String
    let errors: [FormErrors.Item]
    let conflict: String?
    let fields: [FormField]
    let address: String
    let addressError: String?
    let action: String
    let version: Int64?
    let submitTitle: String
    let cancelPath: String

    /// `phones` as typed: one line each.
    init(
        layout: Layout,
        contactID: Int64?,
        version: Int64?,
        name: String,
        phones: String,
        email: String,
        address: String,
        company: String,
        problems: [String: String] = [:],
        conflict: String? = nil
    ) {
        self.layout = layout
        heading = contactID == nil ? "New contact" : "Change \(name)"
        var errors = FormErrors()
        for field in Self.fieldOrder { if let problem = problems[field] { errors.add(field, problem) } }
        self.errors = errors.items
        self.conflict = conflict
        var fields = [
            FormField("name", label: "Name", value: name, autocomplete: "off", width: 20),
            FormField(
                "phones",
                label: "Phone number (optional)",
                value: phones,
                hint: "More than one? Put commas between them.",
                type: "tel",
                autocomplete: "off",
                width: 20
            ),
            FormField("email", label: "Email address (optional)", value: email, type: "email", autocomplete: "off", width: 30),
            FormField("company", label: "Company or place (optional)", value: company, autocomplete: "off", width: 30)
        ]
        errors.apply(to: &fields)
        self.fields = fields
        self.address = address
        addressError = problems["address"]
        action = contactID.map { CareURL.appContactEdit($0).path } ?? CareURL.appContactNew.path
        self.version = version
        submitTitle = contactID == nil ? "Save contact" : "Save changes"
        cancelPath = contactID.map { CareURL.appContact($0).path } ?? CareURL.appContacts.path
    }
}
