import Foundation
import PortalPlatform

/// A new patient as the add-patient wizard has her so far, saved on the server at every step, so a
/// closed tab or an expired session loses nothing. What was typed is kept as typed, checked or not.
struct PatientDraft: Sendable, Codable, Equatable {
    enum Step: String, Sendable, Codable, CaseIterable {
        case contact, medications, exercises

        var number: Int { Self.allCases.firstIndex(of: self)! + 1 }

        var title: String {
            switch self {
            case .contact: "Contact"
            case .medications: "Medications"
            case .exercises: "Exercises"
            }
        }

        func url(draftID: Int64) -> SiteURL {
            switch self {
            case .contact: .patientDraftContact(draftID)
            case .medications: .patientDraftMedications(draftID)
            case .exercises: .patientDraftExercises(draftID)
            }
        }
    }

    var id: Int64 = 0
    var step: Step = .contact
    var updatedAt = Date(timeIntervalSince1970: 0)
    var contact: [String: String] = [:]
    var medications: [RegimenRow] = [.empty]
    var exercises: [RegimenRow] = [.empty]

    private enum CodingKeys: String, CodingKey {
        case contact, medications, exercises
    }

    /// "José Núñez-Ødegård", or "No name yet" before one was typed.
    var displayName: String {
        let name = [contact["first_name"], contact["last_name"]].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? "No name yet" : name
    }

    /// Nothing typed on any step: cancelling it needs no confirmation.
    var isEmpty: Bool {
        contact.values.allSatisfy(\.isEmpty) && medications.allSatisfy(\.isBlank) && exercises.allSatisfy(\.isBlank)
    }

    func encoded() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }

    static func decoded(_ text: String) throws -> PatientDraft {
        try JSONDecoder().decode(PatientDraft.self, from: Data(text.utf8))
    }
}
