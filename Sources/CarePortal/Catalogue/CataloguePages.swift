import Foundation
import PortalPlatform

/// The administrators' view of everything physicians can prescribe.
struct CataloguePage: Page {
    struct MedicationRow: Sendable, Encodable {
        let name: String
        let doses: String
        let description: String
        let editPath: String
    }

    struct ExerciseRow: Sendable, Encodable {
        let name: String
        let description: String
        let illustrationPath: String?
        let editPath: String
    }

    struct FrequencyRow: Sendable, Encodable {
        let name: String
        let schedule: String
        let editPath: String
    }

    struct AmountRow: Sendable, Encodable {
        let name: String
        let editPath: String
    }

    static let template = TemplateName.catalogue
    let layout: Layout
    let medications: [MedicationRow]
    let exercises: [ExerciseRow]
    let frequencies: [FrequencyRow]
    let amounts: [AmountRow]
    let newMedicationPath = SiteURL.newCatalogueMedication.path
    let newExercisePath = SiteURL.newCatalogueExercise.path
    let newFrequencyPath = SiteURL.newCatalogueFrequency.path
    let newAmountPath = SiteURL.newCatalogueAmount.path

    init(layout: Layout, catalogue: Catalogue) {
        self.layout = layout
        medications = catalogue.medications.map {
            MedicationRow(
                name: $0.name,
                doses: $0.doses.joined(separator: "; "),
                description: $0.description,
                editPath: SiteURL.editCatalogueMedication($0.id).path
            )
        }
        exercises = catalogue.exercises.map {
            ExerciseRow(
                name: $0.name,
                description: $0.description,
                illustrationPath: $0.illustration == nil ? nil : SiteURL.catalogueIllustration($0.id).path,
                editPath: SiteURL.editCatalogueExercise($0.id).path
            )
        }
        frequencies = catalogue.frequencies.map {
            FrequencyRow(name: $0.name, schedule: $0.scheduleDescription, editPath: SiteURL.editCatalogueFrequency($0.id).path)
        }
        amounts = catalogue.amounts.map { AmountRow(name: $0.name, editPath: SiteURL.editCatalogueAmount($0.id).path) }
    }
}

/// Adding or changing one catalogue entry: the same page for each of the four lists.
struct CatalogueEntryPage: Page {
    static let template = TemplateName.catalogueEntry
    let layout: Layout
    let heading: String
    let caption: String
    let intro: String?
    let errors: [FormErrors.Item]
    let action: String
    /// Exercise forms carry a file, so they are sent as multipart.
    let isUpload: Bool
    let fields: [FormField]
    let textAreas: [FormField]
    /// The current illustration of an exercise being changed.
    let illustrationPath: String?
    let illustrationField: FormField?
    let buttonTitle: String
    /// Where an entry being changed is removed from; nil when adding one.
    let removePath: String?
    let noun: String
    let cataloguePath = SiteURL.catalogue.path
}
