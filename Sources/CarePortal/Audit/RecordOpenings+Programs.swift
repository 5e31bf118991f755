import PortalPlatform

/// Which audited actions open each kind of person's record, and why in her words; each is answered to her
/// at her kind's `…/record-openings` (docs/security.md, "Who opened my record").
extension RecordOpenings {
    static let member = RecordOpenings(recordType: "member", reasons: [.memberViewed: "Looked at your member record"])
    static let patient = RecordOpenings(
        recordType: "patient",
        reasons: [
            .patientViewed: "Looked at your record", .patientReportExported: "Downloaded a report of your progress"
        ]
    )
    static let studyParticipant = RecordOpenings(recordType: "study_participant", reasons: [.studyParticipantViewed: "Looked at your study record"])
    static let pharmacyCustomer = RecordOpenings(
        recordType: "pharmacy_customer",
        reasons: [.pharmacyCustomerViewed: "Looked at your customer record"]
    )
}
